// Where one reload's time goes, measured from outside a running NGINX master
// as the controller drives it: write the next nginx.conf (temp file + rename),
// `nginx -t` (or not), SIGHUP, then by polling /proc and the status server:
//   master parse   HUP → the first new worker exists (the master parses the
//                  whole file again, runs init_by_lua, forks)
//   worker start   → the new workers answer /config-version with the new
//                  version (init_worker_by_lua, the first timer tick; this is
//                  the controller's confirmation)
//   replaced       → no old worker still accepts (every new connection
//                  reaches the new configuration)
// and the memory of the master and its children, at rest, at its peak while
// both generations of workers live (the reload's memory cost), and at rest
// again once the old workers are gone: summed RSS, which counts a page the
// master shares with its forked workers once per process, and summed PSS
// (/proc/<pid>/smaps_rollup: each shared page divided among its sharers),
// which counts it once.
// Certificates are not loaded at parse time (Lua serves them from a shared
// dict by SNI), so no certificate phase exists on this path.
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import type { Dataplane } from '../../controller/src/nginx/dataplane.ts';
import { childPids, workerPidsOf } from '../../controller/src/nginx/nginx-processes.ts';
import { testConfig } from '../lib/nginx-instance.ts';

export interface ReloadPhases {
  /** Whether `nginx -t` ran before the HUP. */
  readonly validated: boolean;
  readonly writeMs: number;
  /** `nginx -t`; 0 when skipped. */
  readonly testMs: number;
  readonly masterParseMs: number;
  readonly workerStartMs: number;
  readonly replacedMs: number;
  /** HUP → version served (masterParseMs + workerStartMs). */
  readonly hupToServingMs: number;
  /** write + nginx -t + HUP → version served: what a new route waits for once rendered. */
  readonly totalMs: number;
  readonly steadyRssMb: number;
  readonly peakRssMb: number;
  /** Once no old worker is left. */
  readonly afterRssMb: number;
  readonly steadyPssMb: number;
  readonly peakPssMb: number;
  readonly afterPssMb: number;
}

export interface ReloadTarget {
  readonly dataplane: Dataplane;
  readonly prefix: string;
  readonly masterPid: number;
  /** The live file the master reads. */
  readonly confPath: string;
  readonly versionUrl: string;
}

/** Summed `field` (kB) of `file` under /proc/<pid>/ of the master and every live child of it (workers old and new), in MB. */
function summedMb(masterPid: number, file: string, field: string, read: (path: string) => string): number {
  const pattern = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm');
  let kb = 0;
  for (const pid of [masterPid, ...childPids(masterPid)]) {
    try {
      kb += Number(pattern.exec(read(`/proc/${pid}/${file}`))?.[1] ?? 0);
    } catch {
      // exited between listing and reading
    }
  }
  return kb / 1024;
}

const readText = (path: string): string => readFileSync(path, 'utf8');

/** Summed VmRSS (MB) of the master and every live child of it (workers old and new). */
export function nginxRssMb(masterPid: number, read: (path: string) => string = readText): number {
  return summedMb(masterPid, 'status', 'VmRSS', read);
}

/** Summed PSS (MB, smaps_rollup) of the master and every live child: pages they share counted once in all. */
export function nginxPssMb(masterPid: number, read: (path: string) => string = readText): number {
  return summedMb(masterPid, 'smaps_rollup', 'Pss', read);
}

async function versionIs(url: string, version: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    return (await res.text()).trim() === version;
  } catch {
    return false;
  }
}

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Reloads the master at `target` to `conf` (whose version is `version`) and times each phase. */
export async function measureReload(target: ReloadTarget, conf: string, version: string, validate: boolean, timeoutMs = 60_000): Promise<ReloadPhases> {
  const { masterPid } = target;
  const steadyRssMb = nginxRssMb(masterPid);
  const steadyPssMb = nginxPssMb(masterPid);
  const oldWorkers = workerPidsOf(masterPid);
  const t0 = performance.now();
  const temp = `${target.confPath}.next`;
  await writeFile(temp, conf);
  const t1 = performance.now();
  // The candidate is checked under its own name, as the controller does, then renamed over the live file.
  const testMs = validate ? await testConfig(target.dataplane, target.prefix, temp) : 0;
  await rename(temp, target.confPath);
  const t2 = performance.now();
  process.kill(masterPid, 'SIGHUP');
  let peakRssMb = steadyRssMb;
  let peakPssMb = steadyPssMb;
  let workersAt: number | null = null;
  let servingAt: number | null = null;
  let replacedAt: number | null = null;
  const deadline = t2 + timeoutMs;
  // 5 ms polls: /proc reads are cheap next to a multi-second parse; the fetch only once workers exist.
  while (replacedAt === null || servingAt === null) {
    if (performance.now() > deadline) throw new Error(`reload to ${version} not done within ${timeoutMs} ms`);
    const current = workerPidsOf(masterPid);
    const now = performance.now();
    if (workersAt === null && current.some((pid) => !oldWorkers.includes(pid))) workersAt = now;
    if (workersAt !== null && servingAt === null && await versionIs(target.versionUrl, version)) servingAt = performance.now();
    if (replacedAt === null && workersAt !== null && !current.some((pid) => oldWorkers.includes(pid))) replacedAt = now;
    peakRssMb = Math.max(peakRssMb, nginxRssMb(masterPid));
    peakPssMb = Math.max(peakPssMb, nginxPssMb(masterPid));
    await tick(5);
  }
  const parsedAt = workersAt ?? servingAt;
  return {
    validated: validate, writeMs: t1 - t0, testMs,
    masterParseMs: parsedAt - t2, workerStartMs: servingAt - parsedAt, replacedMs: replacedAt - t2,
    hupToServingMs: servingAt - t2, totalMs: servingAt - t0, steadyRssMb, peakRssMb, afterRssMb: nginxRssMb(masterPid),
    steadyPssMb, peakPssMb, afterPssMb: nginxPssMb(masterPid),
  };
}
