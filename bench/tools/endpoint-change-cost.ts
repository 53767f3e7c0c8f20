// What one endpoint change costs the controller's CPU before anything is
// sent: the model build (a long-lived builder, as the sync uses) and the
// decision, for a synthetic cluster of N apps (one Ingress, Service and
// EndpointSlice each), over 400 changes of one slice at a time:
//
//   node bench/tools/endpoint-change-cost.ts [apps ...]     (default 1000 5000)
//
// For profiles: node --cpu-prof bench/tools/endpoint-change-cost.ts 5000
import { decideApply } from '../../controller/src/diff/decide.ts';
import { createModelBuilder } from '../../controller/src/model/index.ts';
import type { Model, Snapshot } from '../../controller/src/model/types.ts';
import { median } from '../lib/stats.ts';
import { syntheticCluster, toSnapshot } from '../lib/synthetic-cluster.ts';
import { BENCH_BUILD_OPTIONS } from '../proxy/proxy-model.ts';

const CHANGES = 400;
const WARMUP = 50;

function measure(apps: number): { build: number; decide: number } {
  const builder = createModelBuilder();
  let snapshot: Snapshot = toSnapshot(syntheticCluster({ apps, endpointsPerApp: 5 }));
  let running: Model = builder.build(snapshot, BENCH_BUILD_OPTIONS).model;
  const builds: number[] = [];
  const decides: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    // A new slice object in a new array, the rest the same objects: what the informer store hands on.
    const slices = [...snapshot.endpointSlices];
    const changed = structuredClone(slices[i % apps]);
    if (changed === undefined) throw new Error('no slice to change');
    changed.endpoints = changed.endpoints.map((e, j) => (j === 0 ? { ...e, addresses: [`10.9.${i % 250}.${(i >> 8) % 250 + 1}`] } : e));
    slices[i % apps] = Object.freeze(changed);
    snapshot = { ...snapshot, endpointSlices: Object.freeze(slices) };
    const t0 = performance.now();
    const { model } = builder.build(snapshot, BENCH_BUILD_OPTIONS);
    const t1 = performance.now();
    const decision = decideApply({ model: running, dataplaneEmpty: false }, model);
    const t2 = performance.now();
    if (decision.kind !== 'dynamic') throw new Error(`change ${i}: expected a dynamic decision, got ${decision.kind}`);
    running = model;
    if (i >= WARMUP) {
      builds.push(t1 - t0);
      decides.push(t2 - t1);
    }
  }
  return { build: median(builds), decide: median(decides) };
}

const sizes = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [1000, 5000];
for (const apps of sizes) {
  const { build, decide } = measure(apps);
  console.log(`${String(apps).padStart(6)} apps: build median ${build.toFixed(2)} ms, decide median ${decide.toFixed(2)} ms (${CHANGES - WARMUP} endpoint changes)`);
}
