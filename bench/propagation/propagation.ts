// Benchmark 2, endpoint propagation: time from an EndpointSlice write in the
// local API to every NGINX worker of the REAL controller (a child process)
// holding the new endpoints, for single changes and for a burst of 100
// changes in 1 s, at several cluster sizes. Reference: the goal. The first
// change after the controller is ready runs code V8 has not optimized yet,
// pays the first collections of start-up's garbage, and is NGINX's workers'
// first incremental push: it takes 2–4× a later one, once per controller
// start. It gets a row of its own, and the steady-state percentiles start
// after it.
import { setTimeout as sleep } from 'node:timers/promises';
import { byProfile, type BenchContext, type Benchmark, type Profile } from '../lib/context.ts';
import { startControllerProcess, type ControllerProcess } from '../lib/controller-process.ts';
import { startLocalCluster, type LocalCluster } from '../lib/local-cluster.ts';
import { metric, type BenchResult, type Metric } from '../lib/report.ts';
import { summarize, type LatencySummary } from '../lib/stats.ts';
import { appSlice, asJson, BENCH_NAMESPACE, syntheticCluster, tenNetAddress } from '../lib/synthetic-cluster.ts';
import { createPropagationTracker, type PropagationTracker } from './propagation-tracker.ts';

interface PropagationParams {
  readonly sizes: readonly number[];
  readonly singles: number;
  readonly burst: number;
  readonly burstWindowMs: number;
}

const PARAMS: Record<Profile, PropagationParams> = {
  full: { sizes: [10, 1000, 5000], singles: 40, burst: 100, burstWindowMs: 1000 },
  quick: { sizes: [10, 1000], singles: 20, burst: 100, burstWindowMs: 1000 },
  smoke: { sizes: [10], singles: 3, burst: 10, burstWindowMs: 100 },
};

const ENDPOINTS_PER_APP = 2;
const PORT = 8080;
/** Gap between single changes: well beyond the controller's default sync spacing (20 ms at 50/s), so singles are singles. */
const SINGLE_GAP_MS = 150;
// Fresh addresses for changes, far from the initial ones (10.0.x.y).
let nextMarker = 0;
const markerAddress = (): string => tenNetAddress((200 << 16) + nextMarker++);

interface SizeRun {
  readonly apps: number;
  /** The first change after the controller was ready (cold code paths), ms. */
  readonly firstMs: number;
  readonly single: LatencySummary;
  readonly burst: LatencySummary;
  readonly missing: number;
  readonly reloads: number;
  /** The controller's own "sync" log lines during the changes: where the time goes. */
  readonly syncMs: LatencySummary;
  readonly buildMs: LatencySummary;
  readonly applyMs: LatencySummary;
}

/** Durations the controller logged for its syncs after log line `from`. */
function syncTimes(controller: ControllerProcess, from: number): Pick<SizeRun, 'syncMs' | 'buildMs' | 'applyMs'> {
  const syncs = controller.logs().slice(from).filter((l) => l.msg === 'sync');
  const field = (name: string): LatencySummary => summarize(syncs.map((l) => Number(l[name])).filter(Number.isFinite));
  return { syncMs: field('ms'), buildMs: field('buildMs'), applyMs: field('applyMs') };
}

/** Replaces app i's slice with one fresh address plus its first original one; registers the change. */
function writeChange(cluster: LocalCluster, tracker: PropagationTracker, app: number): void {
  const address = markerAddress();
  const slice = asJson(appSlice(app, [tenNetAddress(app * ENDPOINTS_PER_APP + 1), address], PORT));
  const current = cluster.api.store.get('endpointslices.discovery.k8s.io', BENCH_NAMESPACE, `app-${app}-1`);
  (slice.metadata as Record<string, unknown>).resourceVersion = (current.metadata as Record<string, unknown>).resourceVersion;
  const writtenAt = performance.now();
  cluster.api.store.update('endpointslices.discovery.k8s.io', slice);
  tracker.expect({ backend: `${BENCH_NAMESPACE}-app-${app}-80`, address, writtenAt });
}

async function measureSize(ctx: BenchContext, apps: number, params: PropagationParams): Promise<SizeRun> {
  const cluster = await startLocalCluster(ctx.workDir);
  let controller: ControllerProcess | null = null;
  try {
    cluster.load(syntheticCluster({ apps, endpointsPerApp: ENDPOINTS_PER_APP, port: PORT }));
    controller = await startControllerProcess({ kubeconfigPath: cluster.kubeconfigPath, workDir: ctx.workDir, readyTimeoutMs: 120_000 });
    const tracker = createPropagationTracker(controller.statusUrl);
    const reloadsBefore = controller.reloads();
    writeChange(cluster, tracker, 0);
    const first = await tracker.drain(5000);
    let missing = first.missing.length;
    await sleep(SINGLE_GAP_MS);
    const logsBefore = controller.logs().length;
    const single: number[] = [];
    for (let i = 0; i < params.singles; i++) {
      writeChange(cluster, tracker, (i * 7919) % apps);
      const { seen, missing: lost } = await tracker.drain(5000);
      single.push(...seen.map((s) => s.latencyMs));
      missing += lost.length;
      await sleep(SINGLE_GAP_MS);
    }
    let writing = true;
    const writer = (async (): Promise<void> => {
      const start = performance.now();
      for (let i = 0; i < params.burst; i++) {
        await sleep(Math.max(0, start + (i * params.burstWindowMs) / params.burst - performance.now()));
        writeChange(cluster, tracker, (i * 104_729 + 1) % apps);
      }
      writing = false;
    })();
    const burst = await tracker.drain(params.burstWindowMs + 10_000, () => writing);
    await writer;
    missing += burst.missing.length;
    return { apps, firstMs: first.seen[0]?.latencyMs ?? Number.NaN, single: summarize(single), burst: summarize(burst.seen.map((s) => s.latencyMs)), missing, reloads: controller.reloads() - reloadsBefore,
      ...syncTimes(controller, logsBefore) };
  } finally {
    await controller?.stop();
    await cluster.stop();
  }
}

function sizeMetrics(run: SizeRun): Metric[] {
  const size = `${run.apps.toLocaleString('en')} backends`;
  const goal = run.apps === 1000 ? { on: 'value' as const, op: '<' as const, target: 100 } : null;
  return [
    metric(`first change after the controller is ready (${size})`, 'ms', run.firstMs, 100, 'goal p99'),
    metric(`single change p50 (${size})`, 'ms', run.single.p50, 100, 'goal p99'),
    metric(`single change p99 (${size})`, 'ms', run.single.p99, 100, 'goal', goal),
    metric(`single change max (${size})`, 'ms', run.single.max, 100, 'goal p99'),
    metric(`burst change p50 (${size})`, 'ms', run.burst.p50, 100, 'goal p99'),
    metric(`burst change p99 (${size})`, 'ms', run.burst.p99, 100, 'goal', goal),
    metric(`burst change max (${size})`, 'ms', run.burst.max, 100, 'goal p99'),
    metric(`changes never seen (${size})`, '', run.missing, 0, 'none', { on: 'value', op: '==', target: 0 }),
    metric(`reloads during the changes (${size})`, '', run.reloads, 0, 'none', { on: 'value', op: '==', target: 0 }),
    // Where the time goes, from the controller's own sync log lines.
    metric(`controller sync p50 (${size})`, 'ms', run.syncMs.p50, null, '—'),
    metric(`controller sync p99 (${size})`, 'ms', run.syncMs.p99, null, '—'),
    metric(`  build p50, push p50 (${size})`, 'ms', run.buildMs.p50, run.applyMs.p50, 'push p50'),
  ];
}

async function runPropagation(ctx: BenchContext): Promise<BenchResult> {
  const params = byProfile(ctx, PARAMS);
  const runs: SizeRun[] = [];
  for (const apps of params.sizes) {
    const run = await measureSize(ctx, apps, params);
    ctx.log(`propagation ${apps}: first ${run.firstMs.toFixed(1)} ms; single p50 ${run.single.p50.toFixed(1)} p99 ${run.single.p99.toFixed(1)} ms; burst p50 ${run.burst.p50.toFixed(1)} p99 ${run.burst.p99.toFixed(1)} ms`);
    runs.push(run);
  }
  return {
    id: 'propagation',
    title: 'Endpoint propagation: EndpointSlice write → every NGINX worker routes to the new set',
    metrics: runs.flatMap(sizeMetrics),
    notes: [
      `real controller (bin/resty-ingress.js, default --sync-rate-limit, 2 NGINX workers) against the in-process local API; ${ENDPOINTS_PER_APP} endpoints per backend`,
      `one first change (its own row: cold code paths, once per controller start), then ${params.singles} single changes ${SINGLE_GAP_MS} ms apart, then ${params.burst} changes in ${params.burstWindowMs} ms; "live" = every worker's applied version (GET /configuration/status) holds the change, checked against GET /configuration/backends`,
    ],
    distributions: runs.map((r) => ({
      label: `burst, ${r.apps} backends`,
      points: [{ percentile: 50, ms: r.burst.p50 }, { percentile: 99, ms: r.burst.p99 }, { percentile: 99.9, ms: r.burst.max }],
    })),
    raw: runs,
  };
}

export const propagationBenchmark: Benchmark = { id: 'propagation', title: 'Endpoint propagation', run: runPropagation };
