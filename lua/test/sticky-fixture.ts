// NGINX with our Lua (lua-fixture.ts) and a server whose locations render
// $resty_route as location.njk does, for the session affinity tests
// (sticky.lua): pushes of backends with an `affinity`, requests that carry a
// cookie and report the Set-Cookie they got, and the cookie values
// ingress-nginx computes (md5 of the backend name, of name + endpoint).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { freePort } from './nginx-harness.ts';
import { postRaw, startEchoBackends, startLuaNginx, waitAllWorkersApplied, type EchoBackend, type LuaNginx } from './lua-fixture.ts';

export const HOST = 'shop.test';
/** The $resty_route of each location; Ingress ns/app has affinity: cookie, ns/plain has not. */
export const ROUTES = {
  root: `- sticky ${HOST} ns app svc /`,
  shop: `- sticky ${HOST} ns app svc /shop`,
  regex: `- sticky ${HOST} ns app svc /re/[a-z]+\``,
  plain: `- sticky ${HOST} ns plain svc /plain`,
  retry: `- flaky ${HOST} ns app svc /retry`,
  canary: `- cmain ${HOST} ns app svc /canary`,
} as const;

/** DynamicBackend.affinity (controller/src/model/types.ts BackendAffinity). */
export interface Affinity {
  mode: 'balanced' | 'persistent';
  cookie: string;
  path: string | null;
  domain: string | null;
  expires: number | null;
  maxAge: number | null;
  secure: boolean;
  sameSite: string | null;
  conditionalSameSiteNone: boolean;
  changeOnFailure: boolean;
  ingresses: string[];
}

export const AFFINITY: Affinity = {
  mode: 'balanced', cookie: 'INGRESSCOOKIE', path: null, domain: null, expires: null, maxAge: null, secure: false,
  sameSite: null, conditionalSameSiteNone: false, changeOnFailure: false, ingresses: ['ns/app'],
};

export interface StickyNginx {
  readonly lua: LuaNginx;
  readonly port: number;
  /** Echo backends a, b, c, d on 127.0.0.2..5. */
  readonly echo: EchoBackend[];
  routeLog(): string[];
  stop(): Promise<void>;
}

export async function startStickyNginx(): Promise<StickyNginx> {
  const echo = await startEchoBackends(['a', 'b', 'c', 'd']);
  const port = await freePort();
  const location = (match: string, key: string, backend: string): string => `
        location ${match} {
            set $proxy_upstream_name "${backend}";
            set $resty_route "${key}";
            access_log routes.log resty_routes;
            proxy_connect_timeout 2s;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_pass http://upstream_balancer;
        }`;
  const server = `
    log_format resty_routes escape=none '$resty_route|$upstream_addr';
    server {
        listen 127.0.0.1:${port};
        server_name ${HOST};${location('= /', ROUTES.root, 'sticky')}${location('/shop', ROUTES.shop, 'sticky')}${location('~* ^/re/[a-z]+$', ROUTES.regex, 'sticky')}${location('= /plain', ROUTES.plain, 'sticky')}${location('= /retry', ROUTES.retry, 'flaky')}${location('= /canary', ROUTES.canary, 'cmain')}
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

export interface PushedBackend {
  endpoints: Endpoint[];
  affinity?: Affinity | null;
}

/** POSTs the full set of backends and waits until every worker applied it. */
export async function pushBackends(fixture: StickyNginx, backends: Record<string, PushedBackend>): Promise<void> {
  const body = Object.entries(backends).map(([name, b]) => ({ name, endpoints: b.endpoints, loadBalance: 'round_robin', ...(b.affinity ? { affinity: b.affinity } : {}) }));
  const res = await postRaw(fixture.lua.statusUrl, JSON.stringify(body));
  assert.equal(res.status, 201, res.text);
  await waitAllWorkersApplied(fixture.lua);
}

/** What one request got: the answering backend (or `status N`) and its Set-Cookie header, if any. */
export interface Visit {
  readonly body: string;
  readonly setCookie: string | undefined;
}

/** One GET on a new connection (either worker may answer) with these headers. */
export function visit(fixture: StickyNginx, path: string, headers: Record<string, string> = {}): Promise<Visit> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: fixture.port, path, agent: false, headers: { host: HOST, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => {
        const cookies = res.headers['set-cookie'];
        assert.ok(cookies === undefined || cookies.length === 1, `one Set-Cookie at most: ${String(cookies)}`);
        resolve({ body: res.statusCode === 200 ? body : `status ${res.statusCode}`, setCookie: cookies?.[0] });
      });
    });
    req.once('error', reject);
    req.end();
  });
}

/** The `name=value` pair of a Set-Cookie header, to send back as a Cookie header. */
export function cookiePair(setCookie: string | undefined): string {
  assert.ok(setCookie, 'a Set-Cookie header');
  return setCookie.split(';')[0] ?? '';
}

export const md5 = (text: string): string => createHash('md5').update(text).digest('hex');
/** ingress-nginx's backend key: md5(md5(name) .. name). */
export const backendKey = (name: string): string => md5(md5(name) + name);
/** ingress-nginx's persistent key of an endpoint: md5(name .. "address:port"). */
export const persistentKey = (name: string, endpoint: Endpoint): string => md5(`${name}${endpoint.address}:${endpoint.port}`);
