// NGINX with our Lua (lua-fixture.ts) plus a server whose locations render
// $resty_route as location.njk does, for the route policy (canary) tests: the
// routes below, node:http backends answering their name, pushes of backends
// and policies, and requests with chosen headers and cookies. Each location
// writes `$resty_route|$upstream_addr` to <prefix>/routes.log, as the metrics
// log carries $resty_route.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { freePort } from './nginx-harness.ts';
import { postRaw, startEchoBackends, startLuaNginx, waitAllWorkersApplied, type EchoBackend, type LuaNginx } from './lua-fixture.ts';

export const HOST = 'canary.test';
/** The $resty_route of each test location: the keys policies are pushed for. */
export const ROUTES = {
  /** main → backend "main" */
  main: `- main ${HOST} ns web svc /`,
  /** The same backend, another location: no policy unless pushed for its own key. */
  other: `- main ${HOST} ns web svc /other`,
  /** main → "flaky", whose canary may be "flaky-canary" (retries) */
  retry: `- flaky ${HOST} ns web svc /retry`,
  /** main → "ewma-main", an EWMA backend: log_by_lua feeds it response times. */
  ewma: `- ewma-main ${HOST} ns web svc /ewma`,
} as const;

export interface Canary {
  backend: string;
  weight: number;
  weightTotal?: number | null;
  header?: string | null;
  headerValue?: string | null;
  headerPattern?: string | null;
  cookie?: string | null;
}

export interface CanaryNginx {
  readonly lua: LuaNginx;
  readonly port: number;
  readonly echo: EchoBackend[];
  /** The lines of routes.log so far. */
  routeLog(): string[];
  stop(): Promise<void>;
}

/** Starts NGINX and backends "main", "canary", "canary-2" on 127.0.0.2..4 (echo[0..2]). */
export async function startCanaryNginx(): Promise<CanaryNginx> {
  const echo = await startEchoBackends(['main', 'canary', 'canary-2']);
  const port = await freePort();
  const location = (path: string, key: string, backend: string, extra = ''): string => `
        location = ${path} {
            set $proxy_upstream_name "${backend}";
            set $resty_route "${key}";
            access_log routes.log resty_routes;
            proxy_connect_timeout 2s;
            proxy_http_version 1.1;
            proxy_set_header Connection "";${extra}
            proxy_pass http://upstream_balancer;
        }`;
  const server = `
    log_format resty_routes escape=none '$resty_route|$upstream_addr';
    server {
        listen 127.0.0.1:${port};
        server_name ${HOST};${location('/', ROUTES.main, 'main')}${location('/other', ROUTES.other, 'main')}${location('/retry', ROUTES.retry, 'flaky')}${location('/ewma', ROUTES.ewma, 'ewma-main', '\n            log_by_lua_block { resty_ingress.log("ewma-main") }')}
    }`;
  const lua = await startLuaNginx(server);
  return {
    lua,
    port,
    echo,
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

type Endpoint = { address: string; port: number };
export const endpointOf = (b: EchoBackend): Endpoint => ({ address: b.address, port: b.port });

/** POSTs the full set of backends and waits until every worker applied it. */
export async function pushBackends(fixture: CanaryNginx, backends: Record<string, Endpoint[]>, loadBalance: 'round_robin' | 'ewma' = 'round_robin'): Promise<void> {
  const body = Object.entries(backends).map(([name, endpoints]) => ({ name, endpoints, loadBalance: name.startsWith('ewma') ? 'ewma' : loadBalance }));
  const res = await postRaw(fixture.lua.statusUrl, JSON.stringify(body));
  assert.equal(res.status, 201, res.text);
  await waitAllWorkersApplied(fixture.lua);
}

/** POSTs a raw body to /configuration/routes. */
export async function postRoutesRaw(fixture: CanaryNginx, body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${fixture.lua.statusUrl}/configuration/routes`, { method: 'POST', body });
  return { status: res.status, text: await res.text() };
}

/** POSTs policies (key → canary) and waits until every worker applied them. */
export async function pushRoutes(fixture: CanaryNginx, routes: Record<string, Canary>): Promise<void> {
  const res = await postRoutesRaw(fixture, JSON.stringify({ routes: Object.entries(routes).map(([key, canary]) => ({ key, canary })) }));
  assert.equal(res.status, 201, res.text);
  await waitAllWorkersApplied(fixture.lua);
}

export interface Ask {
  readonly path?: string;
  readonly headers?: Record<string, string>;
}

/** `count` requests (at most 8 at once, kept-alive connections spread over both workers); { body or status: hits }. */
export async function tallyRoutes(fixture: CanaryNginx, ask: Ask, count: number): Promise<Record<string, number>> {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const hits: Record<string, number> = {};
  const one = (): Promise<string> => new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: fixture.port, path: ask.path ?? '/', agent, headers: { host: HOST, ...ask.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => resolve(res.statusCode === 200 ? body : `status ${res.statusCode}`));
    });
    req.once('error', reject);
    req.end();
  });
  try {
    let left = count;
    while (left > 0) {
      const batch = Math.min(8, left);
      left -= batch;
      for (const key of await Promise.all(Array.from({ length: batch }, one))) hits[key] = (hits[key] ?? 0) + 1;
    }
  } finally {
    agent.destroy();
  }
  return hits;
}
