// The controller's side of POST /configuration/routes: the dynamic route
// policies (canary splits) Lua's balancer applies per request, the full set
// each time (lua/resty_ingress/routes.lua).

import type { DynamicCredentials, DynamicRoutes } from '../model/types.ts';
import type { DynamicPending } from '../sync/pending-hosts.ts';
import { waitForWorkers, type LuaClientOptions } from './lua-client.ts';
import { postDocument } from './lua-request.ts';

/** POSTs every route policy; resolves with the route store version. */
export async function postRoutes(baseUrl: string, routes: DynamicRoutes, opts: LuaClientOptions = {}): Promise<number> {
  return postDocument(baseUrl, '/configuration/routes', routes, opts);
}

/** POSTs every basic/digest user set (lua/resty_ingress/credentials_api.lua); resolves with the store version. */
export async function postCredentials(baseUrl: string, credentials: DynamicCredentials, opts: LuaClientOptions = {}): Promise<number> {
  return postDocument(baseUrl, '/configuration/credentials', credentials, opts);
}

/** Where a pending push's time went: the POST (Lua parses and stores the set), then until every worker holds it. */
export interface PendingTiming {
  readonly version: number;
  readonly postMs: number;
  readonly workersMs: number;
}

/**
 * POSTs every pending host (sync/pending-hosts.ts, lua/resty_ingress/pending_api.lua), then waits until
 * every worker holds them: the catch-all serves them from then on. Resolves with the store version.
 */
export async function applyPending(baseUrl: string, pending: DynamicPending, opts: LuaClientOptions = {}): Promise<PendingTiming> {
  const started = performance.now();
  const version = await postDocument(baseUrl, '/configuration/pending', pending, opts);
  const posted = performance.now();
  await waitForWorkers(baseUrl, version, opts);
  return { version, postMs: posted - started, workersMs: performance.now() - posted };
}
