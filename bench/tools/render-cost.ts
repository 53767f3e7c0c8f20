// What rendering nginx.conf costs for N synthetic apps (one Ingress, Service
// and 5 endpoints each, HTTPS listener on): the first render of a fresh
// renderer (what a cold start pays: every server block from scratch, the
// templates compiled, the JIT cold) and the second render, of the model
// with one route changed, built by the same long-lived model builder (what
// a rebuild pays: the view and server-block caches warm). Each run is a fresh process, so the first render is as cold as the
// controller's; the model is built before the clock starts. Prints every
// run (wall and CPU time), the medians, and the sha256 of the first conf (a change that must not
// change the output can be checked against it):
//
//   node bench/tools/render-cost.ts [apps=10000] [runs=5] [--cpu-prof]
//
// --cpu-prof writes the first render's CPU profile of the first run to
// render-<apps>.cpuprofile in the working folder (open it in Chrome DevTools).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createModelBuilder } from '../../controller/src/model/index.ts';
import type { Model } from '../../controller/src/model/types.ts';
import { findDataplane, repoRoot } from '../../controller/src/nginx/dataplane.ts';
import { createConfigRenderer } from '../../controller/src/render/index.ts';
import { median } from '../lib/stats.ts';
import { syntheticCluster, toSnapshot, withOneRouteChanged } from '../lib/synthetic-cluster.ts';
import { BENCH_BUILD_OPTIONS } from '../proxy/proxy-model.ts';

interface RunResult {
  readonly firstMs: number;
  readonly secondMs: number;
  /** CPU time (user + system) of the same renders: steadier than wall time on a shared machine. */
  readonly firstCpuMs: number;
  readonly secondCpuMs: number;
  readonly bytes: number;
  readonly sha256: string;
}

/** Profiles `work` when `file` is set (the profiler itself slows the render down: the time printed is not comparable). */
async function profiled<T>(file: string | null, work: () => T): Promise<T> {
  if (file === null) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  const result = work();
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(file, JSON.stringify(profile));
  session.disconnect();
  return result;
}

async function child(apps: number, profile: string | null): Promise<RunResult> {
  const snapshot = toSnapshot(syntheticCluster({ apps, endpointsPerApp: 5 }));
  // One long-lived builder, as the controller's: the second model shares every unchanged Location with the first.
  const builder = createModelBuilder();
  const models: Model[] = [snapshot, withOneRouteChanged(snapshot)].map((s) => builder.build(s, BENCH_BUILD_OPTIONS).model);
  const renderer = createConfigRenderer({
    templateDir: join(repoRoot(), 'rootfs/etc/nginx/template'), prefix: tmpdir(), listenAddress: '127.0.0.1',
    httpPort: 18080, httpsPort: 18443, statusPort: 18081, workerProcesses: 2, dataplane: findDataplane(),
  });
  const cpuMs = (): number => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const [t0, c0] = [performance.now(), cpuMs()];
  const first = await profiled(profile, () => renderer.render(models[0] as Model));
  const [t1, c1] = [performance.now(), cpuMs()];
  renderer.render(models[1] as Model);
  const [t2, c2] = [performance.now(), cpuMs()];
  return { firstMs: t1 - t0, secondMs: t2 - t1, firstCpuMs: c1 - c0, secondCpuMs: c2 - c1, bytes: first.conf.length, sha256: createHash('sha256').update(first.conf).digest('hex') };
}

const args = process.argv.slice(2);
if (args[0] === '--child') {
  const result = await child(Number(args[1]), args[2] === undefined ? null : args[2]);
  process.stdout.write(`RENDER_JSON ${JSON.stringify(result)}\n`);
} else {
  const cpuProf = args.includes('--cpu-prof');
  const [appsArg = '10000', runsArg = '5'] = args.filter((arg) => arg !== '--cpu-prof');
  const results: RunResult[] = [];
  for (let run = 0; run < Number(runsArg); run++) {
    const profile = cpuProf && run === 0 ? [join(process.cwd(), `render-${appsArg}.cpuprofile`)] : [];
    const out = spawnSync(process.execPath, [import.meta.filename, '--child', appsArg, ...profile], { encoding: 'utf8', maxBuffer: 2 ** 26 });
    const line = /^RENDER_JSON (.*)$/mu.exec(out.stdout)?.[1];
    if (out.status !== 0 || line === undefined) throw new Error(`render run failed: ${out.stderr.slice(-2000)}`);
    const result = JSON.parse(line) as RunResult;
    results.push(result);
    console.log(`run ${run + 1}: first ${result.firstMs.toFixed(0)} ms (CPU ${result.firstCpuMs.toFixed(0)}), second ${result.secondMs.toFixed(0)} ms (CPU ${result.secondCpuMs.toFixed(0)})${profile.length ? ' (profiled)' : ''}`);
  }
  const hashes = new Set(results.map((r) => r.sha256));
  const timed = cpuProf ? results.slice(1) : results;
  console.log(`${appsArg} apps, ${results[0]?.bytes} bytes, sha256 ${[...hashes].join(' / ')}`);
  const ms = (pick: (r: RunResult) => number): string => `${median(timed.map(pick)).toFixed(0)} ms`;
  console.log(`median of ${timed.length}: first render ${ms((r) => r.firstMs)} (CPU ${ms((r) => r.firstCpuMs)}), second render ${ms((r) => r.secondMs)} (CPU ${ms((r) => r.secondCpuMs)})`);
}
