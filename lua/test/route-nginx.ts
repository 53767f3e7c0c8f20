// NGINX with our Lua (lua-fixture.ts) plus one server of test locations that
// render $resty_route as location.njk does, each proxying to the balancer,
// with node:http backends answering their name. Each location writes
// `$resty_route|$upstream_addr` to <prefix>/routes.log, as the metrics log
// carries $resty_route. The canary and session affinity fixtures build on it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './nginx-harness.ts';
import { startEchoBackends, startLuaNginx, type EchoBackend, type LuaNginx } from './lua-fixture.ts';

/** One test location: `location <match> {}` with this route key, backend name and extra directives. */
export interface RouteLocation {
  readonly match: string;
  readonly key: string;
  readonly backend: string;
  readonly extra?: string;
}

export interface RouteNginx {
  readonly lua: LuaNginx;
  readonly port: number;
  /** The echo backends, in the order their names were given (127.0.0.2 onwards). */
  readonly echo: EchoBackend[];
  /** The lines of routes.log so far. */
  routeLog(): string[];
  stop(): Promise<void>;
}

function locationBlock(location: RouteLocation): string {
  return `
        location ${location.match} {
            set $proxy_upstream_name "${location.backend}";
            set $resty_route "${location.key}";
            access_log routes.log resty_routes;
            proxy_connect_timeout 2s;
            proxy_http_version 1.1;
            proxy_set_header Connection "";${location.extra ?? ''}
            proxy_pass http://upstream_balancer;
        }`;
}

/** Starts the echo backends named `backends` and NGINX serving `locations` for `host`. */
export async function startRouteNginx(host: string, backends: readonly string[], locations: readonly RouteLocation[]): Promise<RouteNginx> {
  const echo = await startEchoBackends([...backends]);
  const port = await freePort();
  const server = `
    log_format resty_routes escape=none '$resty_route|$upstream_addr';
    server {
        listen 127.0.0.1:${port};
        server_name ${host};${locations.map(locationBlock).join('')}
    }`;
  const lua = await startLuaNginx(server);
  return {
    lua, port, echo,
    routeLog: () => {
      try {
        return readFileSync(join(lua.nginx.prefix, 'routes.log'), 'utf8').split('\n').filter((line) => line !== '');
      } catch {
        return [];
      }
    },
    stop: async () => {
      await lua.nginx.stop();
      await Promise.all(echo.map((b) => b.close()));
    },
  };
}

export type Endpoint = { address: string; port: number };
export const endpointOf = (b: EchoBackend): Endpoint => ({ address: b.address, port: b.port });
