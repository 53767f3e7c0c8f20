// Runs one NGINX master on a complete nginx.conf inside a prefix, optionally
// pinned to a CPU, for benchmarks that need NGINX without the controller
// (proxy path, backends, scale). The controller's own NGINX is started by the
// controller; this is only for measuring.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Dataplane } from '../../controller/src/nginx/dataplane.ts';
import { workerPidsOf } from '../../controller/src/nginx/nginx-processes.ts';
import { answers, waitUntil } from './ports.ts';
import { terminate } from './terminate.ts';
import { pinned } from './wrk.ts';

export interface NginxInstance {
  readonly prefix: string;
  readonly masterPid: number;
  /** Current (not draining) worker PIDs. */
  workerPids(): number[];
  errorLog(): string;
  /** TERM, then KILL after 5 s. */
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly dataplane: Dataplane;
  /** Existing folder; nginx.conf is written there. */
  readonly prefix: string;
  readonly conf: string;
  /** Answers 200 once NGINX serves. */
  readonly readyUrl: string;
  readonly cpu?: number | null;
  readonly confName?: string;
}

/** `nginx -t` on a conf file; resolves with the elapsed ms, throws with NGINX's message. */
export async function testConfig(dataplane: Dataplane, prefix: string, confPath: string): Promise<number> {
  const [cmd, ...args] = dataplane.command as [string, ...string[]];
  const started = performance.now();
  await promisify(execFile)(cmd, [...args, '-p', prefix, '-c', confPath, '-e', join(prefix, 'error.log'), '-t', '-q'], { maxBuffer: 1 << 24 })
    .catch((err: Error & { stderr?: string }) => { throw new Error(`nginx -t failed: ${err.stderr ?? err.message}`); });
  return performance.now() - started;
}

/** Writes the conf, checks it with `nginx -t`, starts the master and waits for readyUrl. */
export async function startNginxInstance(opts: StartOptions): Promise<NginxInstance> {
  mkdirSync(opts.prefix, { recursive: true });
  const confPath = join(opts.prefix, opts.confName ?? 'nginx.conf');
  writeFileSync(confPath, opts.conf);
  await testConfig(opts.dataplane, opts.prefix, confPath);
  const argv = [...pinned(opts.cpu), ...opts.dataplane.command, '-p', opts.prefix, '-c', confPath, '-e', join(opts.prefix, 'error.log')];
  const [cmd, ...args] = argv as [string, ...string[]];
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const errorLog = (): string => {
    try {
      return readFileSync(join(opts.prefix, 'error.log'), 'utf8');
    } catch {
      return '';
    }
  };
  const stop = (): Promise<void> => terminate(child, 5000);
  try {
    await waitUntil(`NGINX at ${opts.readyUrl}`, async () => {
      if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${stderr}${errorLog().slice(-2000)}`);
      return (await answers(opts.readyUrl)) ? true : undefined;
    }, 20_000);
  } catch (err) {
    await stop();
    throw err;
  }
  const masterPid = child.pid ?? 0;
  return { prefix: opts.prefix, masterPid, workerPids: () => workerPidsOf(masterPid), errorLog, stop };
}

/** Nanoseconds `pid` has spent on a CPU (first field of /proc/<pid>/schedstat). */
export function cpuTimeNs(pid: number): number {
  const text = readFileSync(`/proc/${pid}/schedstat`, 'utf8');
  return Number(text.split(' ')[0]);
}
