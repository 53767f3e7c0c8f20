// The controller's side of POST /configuration/routes: the dynamic route
// policies (canary splits) Lua's balancer applies per request, the full set
// each time (lua/resty_ingress/routes.lua).

import type { DynamicCredentials, DynamicRoutes } from '../model/types.ts';
import type { LuaClientOptions } from './lua-client.ts';
import { postDocument } from './lua-request.ts';

/** POSTs every route policy; resolves with the route store version. */
export async function postRoutes(baseUrl: string, routes: DynamicRoutes, opts: LuaClientOptions = {}): Promise<number> {
  return postDocument(baseUrl, '/configuration/routes', routes, opts);
}

/** POSTs every basic/digest user set (lua/resty_ingress/credentials_api.lua); resolves with the store version. */
export async function postCredentials(baseUrl: string, credentials: DynamicCredentials, opts: LuaClientOptions = {}): Promise<number> {
  return postDocument(baseUrl, '/configuration/credentials', credentials, opts);
}
