// User-space instructions per proxied request, counted by valgrind's
// callgrind. CPU time per request swings by a factor of two between rounds
// on a shared machine; an instruction count does not (about 1 % between runs),
// so a change of a few hundred instructions per request shows. It leaves out
// the kernel (sockets, writes), which every side pays alike, so its ratio is
// lower than the CPU-time ratio.
//
// One side runs as a single NGINX process (master_process off) under
// callgrind. Callgrind slows requests ~40× but not the clock: work driven
// by time (our workers' 5 ms poll of the shared dicts) would be counted ~40×
// per request. That work runs in NGINX's expired timers, so each window's
// inclusive count of ngx_event_expire_timers is taken out of it; what is
// left of the background (waking up for them) is measured in an idle window
// (no load) and subtracted from the loaded window in proportion to its
// length. Subtracting the whole background by time instead moved ours by up
// to 9 % on a loaded machine (39,131 against 42,705-43,160): the timers' rate
// while idle is not their rate while serving, and with a few hundred
// requests a second each request carried thousands of instructions of that
// difference.
// A side with a canary policy proves its split afterwards: its metrics log
// says how many requests of the measured route went to the canary.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Model } from '../../controller/src/model/types.ts';
import { metricsLogPath } from '../../controller/src/render/render-options.ts';
import type { BenchContext } from '../lib/context.ts';
import { errorCount, runWrk } from '../lib/wrk.ts';
import { BENCH_HOST } from './proxy-model.ts';
import { startSide } from './proxy-side.ts';
import type { SideSpec } from './reference-conf.ts';

export interface InstructionWindows {
  readonly warmupSeconds: number;
  readonly idleSeconds: number;
  readonly seconds: number;
  readonly connections: number;
}

export interface InstructionCount {
  readonly side: string;
  readonly requests: number;
  /** Instructions over the loaded window, background included. */
  readonly loadedInstructions: number;
  /** Of those, in expired timers (the time-driven work). */
  readonly timerInstructions: number;
  /** Background instructions per second outside timers, from the idle window. */
  readonly idlePerSecond: number;
  /** (loaded − its timers − the rest of the background over the loaded window) ÷ requests. */
  readonly perRequest: number;
  /** The loaded window's dump, for `callgrind_annotate --inclusive=no <file>`. */
  readonly dumpFile: string;
  /** Requests of BENCH_HOST's `/` in the metrics log and how many went to a canary; null without a metrics log. */
  readonly split: CanarySplitCount | null;
  /** Failed requests of the loaded window (socket errors, non-2xx/3xx answers). */
  readonly failed: number;
}

export interface CanarySplitCount {
  readonly requests: number;
  readonly canary: number;
  /**
   * Of `requests`, those answered 2xx, or 499 (wrk closing its connections at the end of a window
   * is no refusal): a basic-auth row counts only when every request got in.
   */
  readonly ok: number;
}

/**
 * Counts the metrics-log lines of `host`'s `path` and those the balancer sent
 * to a canary: their $resty_route (the first field) has an 8th word, the
 * canary backend (docs/CONTRACTS.md, route policies).
 */
export function canarySplit(metricsLog: string, host: string, path: string): CanarySplitCount {
  let requests = 0;
  let canary = 0;
  let ok = 0;
  for (const line of metricsLog.split('\n')) {
    const fields = line.split('\t', 3);
    const words = (fields[0] ?? '').split(' ');
    if (words[2] !== host || words[6] !== path) continue;
    requests += 1;
    if (words.length === 8) canary += 1;
    if (fields[2]?.startsWith('2') === true || fields[2] === '499') ok += 1;
  }
  return { requests, canary, ok };
}

/** True when valgrind and callgrind_control can be run. */
export function hasCallgrind(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Turns the rendered conf into one that serves from the master process (the one callgrind follows). */
export function singleProcess(conf: string): string {
  if (!/^master_process on;$/m.test(conf)) throw new Error('the rendered nginx.conf has no "master_process on;" line to turn off');
  return conf.replace(/^master_process on;$/m, 'master_process off;');
}

/**
 * Instructions a callgrind dump counts in ngx_event_expire_timers and what it
 * calls: the cost line after each `calls=` of a `cfn=ngx_event_expire_timers`
 * (--compress-strings=no; positions `line`, one event, Ir) is inclusive.
 */
export function timerInstructions(dump: string): number {
  let total = 0;
  const lines = dump.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== 'cfn=ngx_event_expire_timers' || !lines[i + 1]?.startsWith('calls=')) continue;
    const cost = Number(/^\S+ (\d+)$/.exec(lines[i + 2] ?? '')?.[1]);
    if (!Number.isFinite(cost)) throw new Error(`callgrind dump: no cost line after the call to ngx_event_expire_timers: ${JSON.stringify(lines[i + 2])}`);
    total += cost;
  }
  return total;
}

/** The total of the newest dump (cg.<pid>.<n>, highest n) in `dir`, and its instructions in expired timers. */
export function newestDump(dir: string): { total: number; timers: number; file: string } {
  const parts = readdirSync(dir)
    .map((name) => ({ name, part: Number(/^cg\.\d+\.(\d+)$/.exec(name)?.[1]) }))
    .filter((d) => Number.isInteger(d.part))
    .sort((a, b) => a.part - b.part);
  const newest = parts.at(-1);
  if (newest === undefined) throw new Error(`no callgrind dump in ${dir}`);
  const file = join(dir, newest.name);
  const text = readFileSync(file, 'utf8');
  const total = Number(/^summary: (\d+)/m.exec(text)?.[1]);
  if (!Number.isFinite(total)) throw new Error(`callgrind dump ${file} has no summary line`);
  return { total, timers: timerInstructions(text), file };
}

/** Instructions the process runs while `during` runs (counters zeroed first, dumped after); seconds by the clock. */
async function countedWindow(pid: number, dumpDir: string, during: () => Promise<void>): Promise<{ total: number; timers: number; file: string; seconds: number }> {
  execFileSync('callgrind_control', ['-z', String(pid)], { stdio: 'ignore' });
  const start = performance.now();
  await during();
  const seconds = (performance.now() - start) / 1000;
  execFileSync('callgrind_control', ['-d', String(pid)], { stdio: 'ignore' });
  return { ...newestDump(dumpDir), seconds };
}

/**
 * Counts instructions per request of one side of the proxy benchmark, under
 * wrk on BENCH_HOST's `/` sending `headers`. `name`: the run's folder in the
 * work directory (the side's label when not given).
 */
export async function countInstructions(ctx: BenchContext, model: Model, spec: SideSpec, windows: InstructionWindows,
  headers: readonly string[] = [], name: string = spec.label): Promise<InstructionCount> {
  const side = spec.label;
  const dumpDir = join(ctx.workDir, `${name}-callgrind`);
  mkdirSync(dumpDir, { recursive: true });
  const valgrind = ['valgrind', '--tool=callgrind', '--compress-strings=no', `--callgrind-out-file=${dumpDir}/cg.%p`];
  const underValgrind: BenchContext = { ...ctx, dataplane: { ...ctx.dataplane, command: [...valgrind, ...ctx.dataplane.command] } };
  const started = await startSide(underValgrind, model, `${name}-callgrind`, (conf) => singleProcess(spec.transform(conf)), spec.lua);
  let stopped = false;
  try {
    const pid = started.nginx.masterPid;
    const load = (seconds: number) => runWrk({
      url: `http://127.0.0.1:${started.port}/`, hosts: [BENCH_HOST], headers, connections: windows.connections, cpu: ctx.loadCpu, durationSeconds: seconds,
    });
    await load(windows.warmupSeconds);
    const idle = await countedWindow(pid, dumpDir, () => new Promise((resolve) => setTimeout(resolve, windows.idleSeconds * 1000)));
    let requests = 0;
    let failed = 0;
    const loaded = await countedWindow(pid, dumpDir, async () => {
      const result = await load(windows.seconds);
      requests = result.requests;
      failed = errorCount(result);
    });
    const idlePerSecond = (idle.total - idle.timers) / idle.seconds;
    const perRequest = requests > 0 ? (loaded.total - loaded.timers - idlePerSecond * loaded.seconds) / requests : Number.NaN;
    // Stopping flushes the metrics log's buffer.
    stopped = true;
    await started.nginx.stop();
    const log = metricsLogPath(started.nginx.prefix);
    const split = existsSync(log) ? canarySplit(readFileSync(log, 'utf8'), BENCH_HOST, '/') : null;
    return { side, requests, loadedInstructions: loaded.total, timerInstructions: loaded.timers, idlePerSecond, perRequest, dumpFile: loaded.file, split, failed };
  } finally {
    if (!stopped) await started.nginx.stop();
  }
}
