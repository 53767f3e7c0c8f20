// One request to a Lua configuration document (certificates, routes): the
// loopback status server answers POST with 201 "version N", 400 with a reason
// (the previous state stays). Errors quote Lua's reason, never the body (it
// may hold private keys).

import { LuaClientError, type LuaClientOptions } from './lua-client.ts';

const DEFAULT_TIMEOUT_MS = 10_000;

/** Sends `init` to `<baseUrl><path>`; resolves with the status and text, throws LuaClientError when there is no answer. */
export async function luaRequest(baseUrl: string, path: string, init: RequestInit, opts: LuaClientOptions): Promise<{ status: number; text: string }> {
  const url = `${baseUrl.replace(/\/+$/u, '')}${path}`;
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

/** POSTs `document` as JSON to `path`; resolves with the store version Lua answers. */
export async function postDocument(baseUrl: string, path: string, document: unknown, opts: LuaClientOptions = {}): Promise<number> {
  const result = await luaRequest(baseUrl, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(document) }, opts);
  const reason = result.text.trim().slice(0, 300);
  if (result.status === 400) throw new LuaClientError('LUA_REJECTED', `POST ${path} refused: ${reason}`, 400);
  if (result.status !== 201) throw new LuaClientError('LUA_HTTP_ERROR', `POST ${path}: HTTP ${result.status}: ${reason}`, result.status);
  const match = /^version (\d+)\s*$/u.exec(result.text);
  if (!match) throw new LuaClientError('LUA_BAD_RESPONSE', `POST ${path}: unexpected answer ${result.text.slice(0, 100)}`, 201);
  return Number(match[1]);
}
