// Child process of the scale benchmark: one size per process, so its RSS is
// the pipeline's own. Builds a synthetic cluster, runs the model builder
// (long-lived, as the controller keeps it) + decideApply + render several
// times, writes nginx.conf (and the conf with one more app, for the reload
// measurement) and prints one JSON line. Every warm
// run is a real route change: one Ingress's path toggles between two values,
// so the decision is a reload and render cannot reuse everything.
//
//   node bench/scale/scale-child.ts '{"apps":1000,"endpointsPerApp":5,...}'
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decideApply } from '../../controller/src/diff/decide.ts';
import { buildModel, createModelBuilder } from '../../controller/src/model/index.ts';
import type { Model, Snapshot } from '../../controller/src/model/types.ts';
import { findDataplane, repoRoot } from '../../controller/src/nginx/dataplane.ts';
import { createConfigRenderer } from '../../controller/src/render/index.ts';
import { BENCH_BUILD_OPTIONS } from '../proxy/proxy-model.ts';
import { median } from '../lib/stats.ts';
import { syntheticCluster, toSnapshot } from '../lib/synthetic-cluster.ts';

export interface ScaleChildInput {
  readonly apps: number;
  readonly endpointsPerApp: number;
  readonly iterations: number;
  readonly outDir: string;
  readonly httpPort: number;
  readonly statusPort: number;
}

export interface ScaleChildOutput {
  readonly coldMs: number;
  readonly warmMs: number;
  readonly buildMs: number;
  readonly decideMs: number;
  readonly renderMs: number;
  readonly rssMb: number;
  readonly peakRssMb: number;
  readonly confBytes: number;
  readonly version: string;
  readonly nextVersion: string;
  readonly failures: number;
}

function peakRssMb(): number {
  const status = readFileSync('/proc/self/status', 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024;
}

/** `snapshot` with the path of its last Ingress changed (everything else shared, not copied). */
function withOneRouteChanged(snapshot: Snapshot): Snapshot {
  const last = snapshot.ingresses.at(-1);
  const changed = structuredClone(last);
  const path = changed?.spec?.rules?.[0]?.http?.paths[0];
  if (changed === undefined || path === undefined) return snapshot;
  path.path = '/changed';
  return { ...snapshot, ingresses: [...snapshot.ingresses.slice(0, -1), changed] };
}

function main(input: ScaleChildInput): ScaleChildOutput {
  const base = toSnapshot(syntheticCluster({ apps: input.apps, endpointsPerApp: input.endpointsPerApp }));
  const variants = [base, withOneRouteChanged(base)];
  const renderer = createConfigRenderer({
    templateDir: join(repoRoot(), 'rootfs/etc/nginx/template'), prefix: input.outDir, listenAddress: '127.0.0.1',
    httpPort: input.httpPort, statusPort: input.statusPort, workerProcesses: 2, dataplane: findDataplane(), accessLog: false,
  });
  // Long-lived like the controller's: unchanged Ingresses reuse their translation.
  const builder = createModelBuilder();
  const times: { total: number; build: number; decide: number; render: number }[] = [];
  let running: Model | null = null;
  let conf = '';
  let version = '';
  let failures = 0;
  for (let i = 0; i < input.iterations; i++) {
    const snapshot = variants[i % 2] ?? base;
    const t0 = performance.now();
    const built = builder.build(snapshot, BENCH_BUILD_OPTIONS);
    const t1 = performance.now();
    decideApply({ model: running, dataplaneEmpty: false }, built.model);
    const t2 = performance.now();
    ({ conf, version } = renderer.render(built.model));
    const t3 = performance.now();
    times.push({ total: t3 - t0, build: t1 - t0, decide: t2 - t1, render: t3 - t2 });
    running = built.model;
    failures = built.failures.length;
  }
  const rssMb = process.memoryUsage().rss / 2 ** 20;
  const peak = peakRssMb();
  writeFileSync(join(input.outDir, 'nginx.conf'), conf);
  const next = toSnapshot(syntheticCluster({ apps: input.apps + 1, endpointsPerApp: input.endpointsPerApp }));
  const nextRendered = renderer.render(buildModel(next, BENCH_BUILD_OPTIONS).model);
  writeFileSync(join(input.outDir, 'next.conf'), nextRendered.conf);
  const warm = times.slice(1);
  return {
    coldMs: times[0]?.total ?? Number.NaN,
    warmMs: median(warm.map((t) => t.total)),
    buildMs: median(warm.map((t) => t.build)),
    decideMs: median(warm.map((t) => t.decide)),
    renderMs: median(warm.map((t) => t.render)),
    rssMb, peakRssMb: peak, confBytes: Buffer.byteLength(conf), version, nextVersion: nextRendered.version, failures,
  };
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  const input = JSON.parse(process.argv[2] ?? '{}') as ScaleChildInput;
  process.stdout.write(`SCALE_JSON ${JSON.stringify(main(input))}\n`);
}
