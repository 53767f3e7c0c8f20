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
// and the summed RSS of the master and its children, at rest and its
// peak while both generations of workers live (the reload's memory cost).
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
}

export interface ReloadTarget {
  readonly dataplane: Dataplane;
  readonly prefix: string;
  readonly masterPid: number;
  /** The live file the master reads. */
  readonly confPath: string;
  readonly versionUrl: string;
}

/** Summed VmRSS (MB) of the master and every live child of it (workers old and new). */
export function nginxRssMb(masterPid: number, read: (path: string) => string = (p) => readFileSync(p, 'utf8')): number {
  let kb = 0;
  for (const pid of [masterPid, ...childPids(masterPid)]) {
    try {
      kb += Number(/^VmRSS:\s+(\d+) kB/m.exec(read(`/proc/${pid}/status`))?.[1] ?? 0);
    } catch {
      // exited between listing and reading
    }
  }
  return kb / 1024;
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
    await tick(5);
  }
  const parsedAt = workersAt ?? servingAt;
  return {
    validated: validate, writeMs: t1 - t0, testMs,
    masterParseMs: parsedAt - t2, workerStartMs: servingAt - parsedAt, replacedMs: replacedAt - t2,
    hupToServingMs: servingAt - t2, totalMs: servingAt - t0, steadyRssMb, peakRssMb,
  };
}
