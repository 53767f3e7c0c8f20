// Helpers shared by this folder's tests: raw HTTP calls, reading a watch
// stream, and running the real kubectl / helm binaries against a server.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, fetch } from 'undici';
import type { ApiServer } from './server.ts';

const agents = new WeakMap<ApiServer, Agent>();
/** An undici dispatcher that trusts this server's self-signed certificate. */
function dispatcherFor(server: ApiServer): Agent {
  let agent = agents.get(server);
  if (!agent) {
    agent = new Agent({ connect: server.caPem ? { ca: server.caPem } : {} });
    agents.set(server, agent);
  }
  return agent;
}

export interface HttpResult { readonly status: number; readonly body: Record<string, unknown> & { items?: Record<string, unknown>[] } }

export async function call(server: ApiServer, method: string, path: string,
  opts: { body?: unknown; raw?: string; contentType?: string; token?: string | null; accept?: string } = {}): Promise<HttpResult> {
  const headers: Record<string, string> = { 'Content-Type': opts.contentType ?? 'application/json' };
  const token = opts.token === undefined ? server.adminToken : opts.token;
  if (token) headers.Authorization = `Bearer ${token}`;
  if (opts.accept) headers.Accept = opts.accept;
  const res = await fetch(server.url + path, {
    method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)), dispatcher: dispatcherFor(server),
  });
  const text = await res.text();
  let body: HttpResult['body'];
  try { body = JSON.parse(text) as HttpResult['body']; } catch { body = { text }; }
  return { status: res.status, body };
}

export interface WatchStream {
  /** resolves with the next `n` events (waits up to `timeoutMs`) */
  next(n: number, timeoutMs?: number): Promise<{ type: string; object: Record<string, unknown> }[]>;
  /** resolves when the server ends the stream */
  readonly ended: Promise<void>;
  close(): void;
}

export async function openWatch(server: ApiServer, path: string): Promise<WatchStream> {
  const controller = new AbortController();
  const res = await fetch(server.url + path, { headers: { Authorization: `Bearer ${server.adminToken}` }, signal: controller.signal, dispatcher: dispatcherFor(server) });
  if (res.status !== 200 || !res.body) throw new Error(`watch ${path}: HTTP ${res.status} ${await res.text()}`);
  const events: { type: string; object: Record<string, unknown> }[] = [];
  let buffered = '';
  let wake: () => void = () => undefined;
  const decoder = new TextDecoder();
  const ended = (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buffered.slice(0, nl)) as (typeof events)[number]);
          buffered = buffered.slice(nl + 1);
        }
        wake();
      }
    } catch { /* aborted by close() */ }
    wake();
  })();
  let done = false;
  void ended.then(() => { done = true; });
  return {
    async next(n, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length < n && !done && Date.now() < deadline) {
        await new Promise<void>((r) => { wake = r; setTimeout(r, 50); });
      }
      if (events.length < n) throw new Error(`watch ${path}: wanted ${n} events, got ${JSON.stringify(events.map((e) => e.type))}`);
      return events.splice(0, n);
    },
    ended,
    close: () => controller.abort(),
  };
}

export interface ToolResult { readonly code: number; readonly stdout: string; readonly stderr: string }

export function runTool(bin: string, args: readonly string[], env: Record<string, string>, cwd?: string): Promise<ToolResult> {
  return new Promise((resolvePromise) => {
    execFile(bin, args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: env.HOME ?? process.env.HOME ?? '/tmp', ...env }, cwd, timeout: 60_000 },
      (err, stdout, stderr) => resolvePromise({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }));
  });
}

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** helm v4 as unpacked by setup (.cache/helm/helm), or RESTY_HELM; undefined when absent. */
export function findHelm(): string | undefined {
  const candidates = [process.env.RESTY_HELM, join(REPO_ROOT, '.cache/helm/helm')].filter((p): p is string => Boolean(p));
  return candidates.find((p) => existsSync(p));
}

export const KUBECTL = process.env.RESTY_KUBECTL ?? '/usr/bin/kubectl';
