// NGINX with our Lua (lua-fixture.ts) and a server whose locations render
// $resty_route as location.njk does, for the session affinity tests
// (sticky.lua): pushes of backends with an `affinity`, requests that carry a
// cookie and report the Set-Cookie they got, and the cookie values
// ingress-nginx computes (md5 of the backend name, of name + endpoint).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { postRaw, waitAllWorkersApplied } from './lua-fixture.ts';
import { endpointOf, startRouteNginx, type Endpoint, type RouteNginx } from './route-nginx.ts';

export { endpointOf, type Endpoint };

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

/** NGINX serving ROUTES, with echo backends a, b, c, d on 127.0.0.2..5. */
export type StickyNginx = RouteNginx;

export function startStickyNginx(): Promise<StickyNginx> {
  return startRouteNginx(HOST, ['a', 'b', 'c', 'd'], [
    { match: '= /', key: ROUTES.root, backend: 'sticky' },
    { match: '/shop', key: ROUTES.shop, backend: 'sticky' },
    { match: '~* ^/re/[a-z]+$', key: ROUTES.regex, backend: 'sticky' },
    { match: '= /plain', key: ROUTES.plain, backend: 'sticky' },
    { match: '= /retry', key: ROUTES.retry, backend: 'flaky' },
    { match: '= /canary', key: ROUTES.canary, backend: 'cmain' },
  ]);
}

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
