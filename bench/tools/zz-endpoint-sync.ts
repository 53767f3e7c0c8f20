import { decideApply } from '../../controller/src/diff/decide.ts';
import { createModelBuilder } from '../../controller/src/model/index.ts';
import type { Model, Snapshot } from '../../controller/src/model/types.ts';
import { BENCH_BUILD_OPTIONS } from '../proxy/proxy-model.ts';
import { syntheticCluster, toSnapshot } from '../lib/synthetic-cluster.ts';
const n = Number(process.argv[2] ?? 1000);
const base = toSnapshot(syntheticCluster({ apps: n, endpointsPerApp: 5 }));
const builder = createModelBuilder();
let snapshot: Snapshot = base;
let running: Model = builder.build(snapshot, BENCH_BUILD_OPTIONS).model;
const builds: number[] = []; const decides: number[] = [];
for (let i = 0; i < 400; i++) {
  const k = i % n;
  const slices = [...snapshot.endpointSlices];
  const old = slices[k]!;
  const changed = structuredClone(old);
  changed.endpoints = changed.endpoints.map((e, j) => (j === 0 ? { ...e, addresses: [`10.9.${i % 250}.${(i >> 8) % 250 + 1}`] } : e));
  slices[k] = Object.freeze(changed);
  snapshot = { ...snapshot, endpointSlices: slices };
  const t0 = performance.now();
  const { model } = builder.build(snapshot, BENCH_BUILD_OPTIONS);
  const t1 = performance.now();
  decideApply({ model: running, dataplaneEmpty: false }, model);
  const t2 = performance.now();
  running = model;
  if (i >= 50) { builds.push(t1 - t0); decides.push(t2 - t1); }
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!.toFixed(2);
console.log(`n=${n} build median ${med(builds)} ms, decide median ${med(decides)} ms`);
