// Child process of the controller-scale benchmark: the rebuild as the sync
// loop runs it, build (the long-lived model builder) + decideApply, without
// render (the reload path's part, measured by bench/scale/scale.ts). The
// snapshot is deep-frozen like the informer store's, so the builder's
// identity caches work as they do in the controller; each warm run is a real
// route change (one Ingress's path toggles), so routing is rebuilt.
// Prints one JSON line; its RSS is this process's own.
//
//   node --max-semi-space-size=16 bench/scale/controller-rebuild-child.ts '{"apps":50000,"endpointsPerApp":5,"iterations":5}'
import { readFileSync } from 'node:fs';
import { decideApply } from '../../controller/src/diff/decide.ts';
import { deepFreeze } from '../../controller/src/kube/kinds.ts';
import { createModelBuilder } from '../../controller/src/model/index.ts';
import type { Model } from '../../controller/src/model/types.ts';
import { median } from '../lib/stats.ts';
import { syntheticCluster, toSnapshot, withOneRouteChanged } from '../lib/synthetic-cluster.ts';
import { BENCH_BUILD_OPTIONS } from '../proxy/proxy-model.ts';

export interface RebuildChildInput {
  readonly apps: number;
  readonly endpointsPerApp: number;
  readonly iterations: number;
}

export interface RebuildChildOutput {
  /** The first build (every Ingress translated), ms. */
  readonly coldMs: number;
  /** Medians of the warm runs, ms. */
  readonly buildMs: number;
  readonly decideMs: number;
  readonly totalMs: number;
  /** After the runs: resident, peak resident (VmHWM) and V8 heap used, MB. */
  readonly rssMb: number;
  readonly peakRssMb: number;
  readonly heapUsedMb: number;
  readonly failures: number;
}

function run(input: RebuildChildInput): RebuildChildOutput {
  const base = deepFreeze(toSnapshot(syntheticCluster({ apps: input.apps, endpointsPerApp: input.endpointsPerApp })));
  const variants = [base, withOneRouteChanged(base)];
  const builder = createModelBuilder();
  const times: { build: number; decide: number }[] = [];
  let running: Model | null = null;
  let failures = 0;
  for (let i = 0; i < input.iterations; i++) {
    const t0 = performance.now();
    const built = builder.build(variants[i % 2] ?? base, BENCH_BUILD_OPTIONS);
    const t1 = performance.now();
    decideApply({ model: running, dataplaneEmpty: false }, built.model);
    times.push({ build: t1 - t0, decide: performance.now() - t1 });
    running = built.model;
    failures = built.failures.length;
  }
  const status = readFileSync('/proc/self/status', 'utf8');
  const warm = times.slice(1);
  const memory = process.memoryUsage();
  return {
    coldMs: (times[0]?.build ?? Number.NaN) + (times[0]?.decide ?? Number.NaN),
    buildMs: median(warm.map((t) => t.build)),
    decideMs: median(warm.map((t) => t.decide)),
    totalMs: median(warm.map((t) => t.build + t.decide)),
    rssMb: memory.rss / 2 ** 20,
    peakRssMb: Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024,
    heapUsedMb: memory.heapUsed / 2 ** 20,
    failures,
  };
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  const input = JSON.parse(process.argv[2] ?? '{}') as RebuildChildInput;
  process.stdout.write(`REBUILD_JSON ${JSON.stringify(run(input))}\n`);
}
