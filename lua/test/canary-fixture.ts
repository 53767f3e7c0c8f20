// NGINX with our Lua (lua-fixture.ts) plus a server whose locations render
// $resty_route as location.njk does, for the route policy (canary) tests: the
// routes below, node:http backends answering their name, pushes of backends
// and policies, and requests with chosen headers and cookies. Each location
// writes `$resty_route|$upstream_addr` to <prefix>/routes.log, as the metrics
// log carries $resty_route.
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { postRaw, waitAllWorkersApplied } from './lua-fixture.ts';
import { endpointOf, startRouteNginx, type Endpoint, type RouteNginx } from './route-nginx.ts';

export { endpointOf };

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

/** NGINX serving ROUTES, and backends "main", "canary", "canary-2" on 127.0.0.2..4 (echo[0..2]). */
export type CanaryNginx = RouteNginx;

/** Starts NGINX and backends "main", "canary", "canary-2" on 127.0.0.2..4 (echo[0..2]). */
export function startCanaryNginx(): Promise<CanaryNginx> {
  return startRouteNginx(HOST, ['main', 'canary', 'canary-2'], [
    { match: '= /', key: ROUTES.main, backend: 'main' },
    { match: '= /other', key: ROUTES.other, backend: 'main' },
    { match: '= /retry', key: ROUTES.retry, backend: 'flaky' },
    { match: '= /ewma', key: ROUTES.ewma, backend: 'ewma-main', extra: '\n            log_by_lua_block { resty_ingress.log("ewma-main") }' },
  ]);
}

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
