// Client of the Lua configuration server (lua/resty_ingress/configuration.lua)
// on NGINX's loopback status port: push the dynamic part of the model, read it
// back, read the per-worker applied versions and wait until every worker
// holds a push. Errors carry stable codes so
// callers decide retry vs. report without parsing messages.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BackendPatch, DynamicBackend } from '../model/types.ts';

export type LuaClientErrorCode =
  /** No answer within the timeout. */
  | 'LUA_TIMEOUT'
  /** Connection refused/reset: NGINX is not (yet) listening. */
  | 'LUA_UNREACHABLE'
  /** 400: Lua refused the push (bad shape); the previous state is still in force. */
  | 'LUA_REJECTED'
  /** Any other non-success status. */
  | 'LUA_HTTP_ERROR'
  /** A success status with a body that is not what the contract says. */
  | 'LUA_BAD_RESPONSE'
  /** A push was stored, but not every live worker holds it in time. */
  | 'LUA_WORKERS_BEHIND'
  /** The store went back below a version it had accepted: NGINX restarted and lost it. */
  | 'LUA_STATE_LOST';

export class LuaClientError extends Error {
  readonly code: LuaClientErrorCode;
  /** HTTP status, when there was a response. */
  readonly status: number | null;

  constructor(code: LuaClientErrorCode, message: string, status: number | null = null, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LuaClientError';
    this.code = code;
    this.status = status;
  }
}

export interface LuaClientOptions {
  /** Whole-request timeout in ms (default 10 s: a large push is up to ~20 MB). */
  readonly timeoutMs?: number;
}

/** GET /configuration/status. */
export interface LuaStatus {
  /** The store version: the last push Lua accepted (0 = none since NGINX started). */
  readonly version: number;
  /** The version every live worker holds whole; a push is applied once this reaches it. */
  readonly applied: number;
  /** The version each worker (by PID) holds. */
  readonly workers: Readonly<Record<string, number>>;
}

const DEFAULT_TIMEOUT_MS = 10_000;

async function call(baseUrl: string, path: string, init: RequestInit, opts: LuaClientOptions): Promise<{ status: number; text: string }> {
  const url = `${baseUrl.replace(/\/+$/, '')}${path}`;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, text: await res.text() };
  } catch (err) {
    if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
      throw new LuaClientError('LUA_TIMEOUT', `${init.method ?? 'GET'} ${url}: no answer within ${timeoutMs} ms`, null, { cause: err });
    }
    const reason = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
    throw new LuaClientError('LUA_UNREACHABLE', `${init.method ?? 'GET'} ${url}: ${reason}`, null, { cause: err });
  }
}

function expectStatus(result: { status: number; text: string }, ok: number, what: string): void {
  if (result.status === ok) return;
  const reason = result.text.trim().slice(0, 300);
  if (result.status === 400) throw new LuaClientError('LUA_REJECTED', `${what} refused: ${reason}`, 400);
  throw new LuaClientError('LUA_HTTP_ERROR', `${what}: HTTP ${result.status}: ${reason}`, result.status);
}

function parseJson(text: string, what: string, status: number): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new LuaClientError('LUA_BAD_RESPONSE', `${what}: not JSON: ${text.slice(0, 100)}`, status);
  }
}

/** POSTs the FULL set of dynamic backends; resolves with the store version it became. */
export async function postBackends(baseUrl: string, backends: readonly DynamicBackend[], opts: LuaClientOptions = {}): Promise<number> {
  const result = await call(baseUrl, '/configuration/backends', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(backends),
  }, opts);
  expectStatus(result, 201, 'POST /configuration/backends');
  return versionOf(result.text, 'POST /configuration/backends', 201);
}

/**
 * PATCHes only what changed: `set` backends added or replaced, `remove` names
 * dropped, every other backend untouched. Valid only while Lua holds the
 * state the caller diffed against (after an NGINX restart, POST the full set).
 * Resolves with the store version it became.
 */
export async function patchBackends(baseUrl: string, patch: BackendPatch, opts: LuaClientOptions = {}): Promise<number> {
  const result = await call(baseUrl, '/configuration/backends', {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ set: patch.set, remove: patch.remove }),
  }, opts);
  expectStatus(result, 200, 'PATCH /configuration/backends');
  return versionOf(result.text, 'PATCH /configuration/backends', 200);
}

function versionOf(text: string, what: string, status: number): number {
  const match = /^version (\d+)\s*$/.exec(text);
  if (!match) throw new LuaClientError('LUA_BAD_RESPONSE', `${what}: unexpected answer ${text.slice(0, 100)}`, status);
  return Number(match[1]);
}

/** The backends as Lua holds them (`[]` after an NGINX restart: push again); with `names`, only those that exist. */
export async function getBackends(baseUrl: string, opts: LuaClientOptions & { readonly names?: readonly string[] } = {}): Promise<DynamicBackend[]> {
  if (opts.names?.length === 0) return [];
  const query = opts.names === undefined ? '' : `?${opts.names.map((name) => `name=${encodeURIComponent(name)}`).join('&')}`;
  const result = await call(baseUrl, `/configuration/backends${query}`, { method: 'GET' }, opts);
  expectStatus(result, 200, 'GET /configuration/backends');
  const body = parseJson(result.text, 'GET /configuration/backends', 200);
  if (!Array.isArray(body)) throw new LuaClientError('LUA_BAD_RESPONSE', 'GET /configuration/backends: not an array', 200);
  return body as DynamicBackend[];
}

/** The store version and each worker's applied version. */
export async function getStatus(baseUrl: string, opts: LuaClientOptions = {}): Promise<LuaStatus> {
  const result = await call(baseUrl, '/configuration/status', { method: 'GET' }, opts);
  expectStatus(result, 200, 'GET /configuration/status');
  const body = parseJson(result.text, 'GET /configuration/status', 200) as Partial<LuaStatus> | null;
  const workers = body?.workers;
  if (typeof body?.version !== 'number' || typeof body.applied !== 'number' || typeof workers !== 'object' || workers === null
    || Object.values(workers).some((v) => typeof v !== 'number')) {
    throw new LuaClientError('LUA_BAD_RESPONSE', `GET /configuration/status: unexpected shape ${result.text.slice(0, 100)}`, 200);
  }
  return { version: body.version, applied: body.applied, workers };
}

export interface WaitForWorkersOptions extends LuaClientOptions {
  /** How long every worker may take (default 5 s; they poll every 5 ms, a busy one later). */
  readonly withinMs?: number;
  /** Between two reads of the status (default 5 ms, the workers' own poll). */
  readonly pollMs?: number;
}

/**
 * Resolves once every live worker holds `version` (a push's answer): the
 * store having it is not enough, a worker that has not applied it still
 * routes by the old endpoints. Rejects with LUA_WORKERS_BEHIND after
 * `withinMs`, or LUA_STATE_LOST when the store fell below `version`.
 */
export async function waitForWorkers(baseUrl: string, version: number, opts: WaitForWorkersOptions = {}): Promise<LuaStatus> {
  const withinMs = opts.withinMs ?? 5000;
  const pollMs = opts.pollMs ?? 5;
  const deadline = Date.now() + withinMs;
  for (;;) {
    const status = await getStatus(baseUrl, opts);
    if (status.version < version) {
      throw new LuaClientError('LUA_STATE_LOST', `waiting for version ${version}: the store is at ${status.version} (NGINX restarted?)`);
    }
    if (status.applied >= version) return status;
    if (Date.now() >= deadline) {
      throw new LuaClientError('LUA_WORKERS_BEHIND',
        `version ${version} not held by every worker within ${withinMs} ms: workers ${JSON.stringify(status.workers)}, all at ${status.applied}`);
    }
    await sleep(pollMs);
  }
}

/**
 * How long a full set of `backends` may take, Lua's parse of the POST and then each worker's
 * apply: the fixed defaults plus 0.2 ms per backend. Workers once decoded every backend of a full
 * set before reporting it (1.4–2.7 s for 50,000 on one quiet core; 5–7.5 s on two busy cores), so a
 * fixed 5 s failed the first push at 50,000 Ingresses. They now mark them and decode each on first
 * use (lua/resty_ingress/backends.lua: 0.4 s for 50,000 on a busy machine), but the POST's own
 * parse still grows with the set (2.5–3.5 s for 50,000 there; bench/tools/first-push.ts): the
 * margin stays for a busy machine, it only costs time when something is wrong.
 */
export function fullSetTimeouts(backends: number): { timeoutMs: number; withinMs: number } {
  const extra = Math.ceil(backends * 0.2);
  return { timeoutMs: DEFAULT_TIMEOUT_MS + extra, withinMs: 5000 + extra };
}

/** POSTs the full set, then waits until every live worker holds it; resolves with its version. */
export async function applyBackends(baseUrl: string, backends: readonly DynamicBackend[], opts: WaitForWorkersOptions = {}): Promise<number> {
  const sized = { ...fullSetTimeouts(backends.length), ...opts };
  const version = await postBackends(baseUrl, backends, sized);
  await waitForWorkers(baseUrl, version, sized);
  return version;
}

/** PATCHes a change, then waits until every live worker holds it; resolves with its version. */
export async function applyPatch(baseUrl: string, patch: BackendPatch, opts: WaitForWorkersOptions = {}): Promise<number> {
  const version = await patchBackends(baseUrl, patch, opts);
  await waitForWorkers(baseUrl, version, opts);
  return version;
}
