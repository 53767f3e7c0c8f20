// The controller's side of POST/GET /configuration/certificates (the Lua
// certificate store, lua/resty_ingress/certificate_api.lua). The body holds
// private keys: it goes only to the loopback status server, and errors quote
// Lua's reason (which names ids, never PEM content), never the body.

import type { DynamicCertificates } from '../model/types.ts';
import { LuaClientError, type LuaClientOptions } from './lua-client.ts';
import { luaRequest, postDocument } from './lua-request.ts';

/** What GET answers: what is loaded, without any PEM. */
export interface LoadedCertificates {
  readonly version: number;
  readonly certificates: readonly { readonly id: string; readonly stamp: number }[];
  readonly hosts: readonly { readonly host: string; readonly certificate: string }[];
  readonly defaultCertificate: string | null;
}

const PATH = '/configuration/certificates';

/** POSTs every certificate and the host map; resolves with the certificate store version. */
export async function postCertificates(baseUrl: string, certificates: DynamicCertificates, opts: LuaClientOptions = {}): Promise<number> {
  return postDocument(baseUrl, PATH, certificates, opts);
}

/** What Lua holds (ids, stamps, hosts, default); never a PEM. */
export async function getCertificates(baseUrl: string, opts: LuaClientOptions = {}): Promise<LoadedCertificates> {
  const result = await luaRequest(baseUrl, PATH, { method: 'GET' }, opts);
  if (result.status !== 200) throw new LuaClientError('LUA_HTTP_ERROR', `GET ${PATH}: HTTP ${result.status}`, result.status);
  try {
    return JSON.parse(result.text) as LoadedCertificates;
  } catch {
    throw new LuaClientError('LUA_BAD_RESPONSE', `GET ${PATH}: not JSON`, 200);
  }
}
