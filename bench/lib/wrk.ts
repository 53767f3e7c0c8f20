// Runs wrk (Debian's package) as a child process, pinned to a CPU with
// taskset when available, and parses the JSON line bench/wrk/report.lua
// prints. Asynchronous on purpose: the bench process may itself host the
// simulated pods that serve the load.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Distribution } from './report.ts';

const REPORT_SCRIPT = fileURLToPath(new URL('../wrk/report.lua', import.meta.url));
const ROTATE_SCRIPT = fileURLToPath(new URL('../wrk/rotate-hosts.lua', import.meta.url));

let scriptDir: string | null = null;

/** A temp folder for the combined scripts, removed when this process exits. */
function scriptFolder(): string {
  if (scriptDir) return scriptDir;
  const dir = mkdtempSync(join(tmpdir(), 'resty-bench-wrk-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  scriptDir = dir;
  return dir;
}

/**
 * report.lua alone, or with rotate-hosts.lua appended and/or a delay() that
 * makes each connection wait `pauseMs` before its next request (written once
 * per combination into a temp folder).
 */
function scriptFor(hostCount: number, pauseMs: number): string {
  if (hostCount <= 1 && pauseMs === 0) return REPORT_SCRIPT;
  const combined = join(scriptFolder(), `${hostCount > 1 ? 'rotate' : 'one'}-${pauseMs}.lua`);
  if (!existsSync(combined)) {
    const rotate = hostCount > 1 ? readFileSync(ROTATE_SCRIPT, 'utf8') : '';
    const pause = pauseMs > 0 ? `\nfunction delay()\n  return ${pauseMs}\nend\n` : '';
    writeFileSync(combined, readFileSync(REPORT_SCRIPT, 'utf8') + rotate + pause);
  }
  return combined;
}

/**
 * A steady load: each connection waits this long between requests, so the
 * rate stays well below what the machine can serve and p99 shows what a
 * change does to requests, not how a queue on two saturated cores grows
 * when the simulated control plane (API server, simulator, the bench
 * itself: a real cluster runs them elsewhere) takes a share of them.
 */
export const STEADY_PAUSE_MS = 2;

/**
 * The pause that keeps `connections` at about `fraction` of `saturatedRps`
 * (each connection's cycle is at least its pause, so the rate ends a little
 * below). A fixed pause drifts with the machine: STEADY_PAUSE_MS with 20
 * connections ran at 0.9-1.15x the saturated rate in this session's runs.
 */
export function steadyPauseMs(connections: number, saturatedRps: number, fraction = 0.5): number {
  if (!(saturatedRps > 0)) return STEADY_PAUSE_MS;
  return Math.max(1, Math.round((1000 * connections) / (fraction * saturatedRps)));
}

export interface WrkOptions {
  readonly url: string;
  readonly durationSeconds: number;
  readonly connections: number;
  readonly threads?: number;
  /** Host headers to rotate through, one per request; empty = the URL's host. */
  readonly hosts?: readonly string[];
  /** More request headers ("Name: value"), on every request; with at most one host (rotate-hosts.lua sends only Host). */
  readonly headers?: readonly string[];
  /** CPU to pin wrk to (taskset -c), or null. */
  readonly cpu?: number | null;
  /**
   * Each connection waits this many ms after an answer before its next
   * request: a steady load below saturation, where latency is the path's and
   * not the queue's (default 0: as fast as the server answers).
   */
  readonly pauseMs?: number;
  /**
   * Ends the run early when aborted: wrk stops on SIGINT and still reports
   * (durationSeconds is then only the upper bound).
   */
  readonly stop?: AbortSignal;
}

export interface WrkResult {
  readonly requests: number;
  readonly durationSeconds: number;
  readonly requestsPerSecond: number;
  /** Socket errors plus non-2xx/3xx responses. */
  readonly errors: { readonly connect: number; readonly read: number; readonly write: number; readonly status: number; readonly timeout: number };
  readonly meanMs: number;
  readonly maxMs: number;
  /** Latency in ms by percentile. */
  readonly latency: readonly { readonly percentile: number; readonly ms: number }[];
}

let tasksetFound: boolean | undefined;

/**
 * True when `taskset` exists (util-linux); without it nothing is pinned. Asked
 * once: a spawnSync per wrk run blocked the bench process, and with it the
 * local API server it hosts, ~20 ms in every rolling-deploy window.
 */
export function hasTaskset(): boolean {
  tasksetFound ??= spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;
  return tasksetFound;
}

/** argv prefix that pins a command to `cpu`, or [] when not pinning. */
export function pinned(cpu: number | null | undefined): string[] {
  return cpu === null || cpu === undefined || !hasTaskset() ? [] : ['taskset', '-c', String(cpu)];
}

interface WrkJson {
  requests: number;
  durationUs: number;
  errors: WrkResult['errors'];
  meanUs: number;
  maxUs: number;
  latency: { percentile: number; us: number }[];
}

/** Parses wrk's output; throws when the report line is missing (wrk failed). */
export function parseWrkOutput(output: string): WrkResult {
  const line = output.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (line === undefined) throw new Error(`wrk printed no report: ${output.slice(0, 500)}`);
  const json = JSON.parse(line.slice('BENCH_JSON '.length)) as WrkJson;
  const durationSeconds = json.durationUs / 1e6;
  return {
    requests: json.requests,
    durationSeconds,
    requestsPerSecond: durationSeconds > 0 ? json.requests / durationSeconds : 0,
    errors: json.errors,
    meanMs: json.meanUs / 1000,
    maxMs: json.maxUs / 1000,
    latency: json.latency.map((p) => ({ percentile: p.percentile, ms: p.us / 1000 })),
  };
}

/** Latency at a percentile wrk reported (see report.lua's list). */
export function latencyAt(result: WrkResult, percentile: number): number {
  return result.latency.find((p) => p.percentile === percentile)?.ms ?? Number.NaN;
}

/** Total failed requests: socket errors and non-2xx/3xx answers. */
export function errorCount(result: WrkResult): number {
  const e = result.errors;
  return e.connect + e.read + e.write + e.status + e.timeout;
}

export function toDistribution(label: string, result: WrkResult): Distribution {
  return { label, points: result.latency.filter((p) => p.percentile < 100) };
}

/** One host: a plain header (no per-request Lua in wrk); several: report.lua rotates them. `headers` go as -H. */
export function hostArgs(url: string, hosts: readonly string[], headers: readonly string[] = []): string[] {
  if (hosts.length > 1 && headers.length > 0) throw new Error('wrk: request headers with rotating hosts (rotate-hosts.lua would drop them)');
  const extra = headers.flatMap((header) => ['-H', header]);
  if (hosts.length === 1) return ['-H', `Host: ${hosts[0] ?? ''}`, ...extra, url];
  return hosts.length === 0 ? [...extra, url] : [url, '--', ...hosts];
}

/** Runs wrk to completion (or until `stop` aborts). */
export function runWrk(opts: WrkOptions): Promise<WrkResult> {
  const argv = [
    ...pinned(opts.cpu), 'wrk', `-t${opts.threads ?? 1}`, `-c${opts.connections}`, `-d${opts.durationSeconds}s`,
    '--timeout', '5s', '-s', scriptFor(opts.hosts?.length ?? 0, opts.pauseMs ?? 0), ...hostArgs(opts.url, opts.hosts ?? [], opts.headers ?? []),
  ];
  return new Promise((resolve, reject) => {
    const [cmd, ...args] = argv as [string, ...string[]];
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.once('error', reject);
    const interrupt = (): void => { child.kill('SIGINT'); };
    opts.stop?.addEventListener('abort', interrupt, { once: true });
    child.once('close', (code) => {
      opts.stop?.removeEventListener('abort', interrupt);
      try {
        resolve(parseWrkOutput(output));
      } catch (err) {
        reject(new Error(`wrk exited ${code}: ${(err as Error).message}`));
      }
    });
  });
}
