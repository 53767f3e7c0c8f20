// The controller's side of POST/GET /configuration/certificates (the Lua
// certificate store, lua/resty_ingress/certificate_api.lua). The body holds
// private keys: it goes only to the loopback status server, and errors quote
// Lua's reason (which names ids, never PEM content), never the body.

import type { DynamicCertificates } from '../model/types.ts';
import { LuaClientError, type LuaClientOptions } from './lua-client.ts';

/** What GET answers: what is loaded, without any PEM. */
export interface LoadedCertificates {
  readonly version: number;
  readonly certificates: readonly { readonly id: string; readonly stamp: number }[];
  readonly hosts: readonly { readonly host: string; readonly certificate: string }[];
  readonly defaultCertificate: string | null;
}

const PATH = '/configuration/certificates';
const DEFAULT_TIMEOUT_MS = 10_000;

async function request(baseUrl: string, init: RequestInit, opts: LuaClientOptions): Promise<{ status: number; text: string }> {
  const url = `${baseUrl.replace(/\/+$/u, '')}${PATH}`;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, text: await res.text() };
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    const reason = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
    throw new LuaClientError(timedOut ? 'LUA_TIMEOUT' : 'LUA_UNREACHABLE', `${init.method ?? 'GET'} ${url}: ${timedOut ? `no answer within ${timeoutMs} ms` : reason}`, null, { cause: err });
  }
}

/** POSTs every certificate and the host map; resolves with the certificate store version. */
export async function postCertificates(baseUrl: string, certificates: DynamicCertificates, opts: LuaClientOptions = {}): Promise<number> {
  const result = await request(baseUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(certificates) }, opts);
  const reason = result.text.trim().slice(0, 300);
  if (result.status === 400) throw new LuaClientError('LUA_REJECTED', `POST ${PATH} refused: ${reason}`, 400);
  if (result.status !== 201) throw new LuaClientError('LUA_HTTP_ERROR', `POST ${PATH}: HTTP ${result.status}: ${reason}`, result.status);
  const match = /^version (\d+)\s*$/u.exec(result.text);
  if (!match) throw new LuaClientError('LUA_BAD_RESPONSE', `POST ${PATH}: unexpected answer ${result.text.slice(0, 100)}`, 201);
  return Number(match[1]);
}

/** What Lua holds (ids, stamps, hosts, default); never a PEM. */
export async function getCertificates(baseUrl: string, opts: LuaClientOptions = {}): Promise<LoadedCertificates> {
  const result = await request(baseUrl, { method: 'GET' }, opts);
  if (result.status !== 200) throw new LuaClientError('LUA_HTTP_ERROR', `GET ${PATH}: HTTP ${result.status}`, result.status);
  try {
    return JSON.parse(result.text) as LoadedCertificates;
  } catch {
    throw new LuaClientError('LUA_BAD_RESPONSE', `GET ${PATH}: not JSON`, 200);
  }
}
