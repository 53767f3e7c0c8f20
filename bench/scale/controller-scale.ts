// Benchmark "controller": the controller's own side of scale. Cold start of
// the real controller as it ships (the bundle `npm run build` writes to dist/,
// built here when stale) against the local API holding N apps (N Ingresses,
// N Services, N EndpointSlices of 5 endpoints), split into phases from its
// log lines, and the same from the TypeScript sources (ready and start-up
// only: what the bundle saves); its resident memory at ready; and the rebuild a route change
// costs (build + diff, no render) in a child process per size. The 50,000
// rows run only with `--scale full` (minutes, ~1 GB each).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { YOUNG_GENERATION_FLAG } from '../../controller/src/runtime-flags.ts';
import { byProfile, type BenchContext, type Benchmark, type Profile } from '../lib/context.ts';
import { memoryOf, startControllerProcess } from '../lib/controller-process.ts';
import { startLocalCluster } from '../lib/local-cluster.ts';
import { cpuSecondsOf } from '../lib/process-cpu.ts';
import { metric, type BenchResult, type Metric } from '../lib/report.ts';
import { appName, syntheticCluster } from '../lib/synthetic-cluster.ts';
import { realSlice } from './real-slices.ts';
import { shippedLauncher } from '../lib/shipped-build.ts';
import type { RebuildChildInput, RebuildChildOutput } from './controller-rebuild-child.ts';
import { coldStartPhases, troubleLines, type ColdStartPhases } from './cold-start-phases.ts';

const CHILD = fileURLToPath(new URL('./controller-rebuild-child.ts', import.meta.url));
const ENDPOINTS_PER_APP = 5;
const LARGE = 50_000;

interface ControllerScaleParams {
  readonly coldStart: readonly number[];
  readonly rebuild: readonly number[];
  readonly iterations: number;
}

const PARAMS: Record<Profile, ControllerScaleParams> = {
  full: { coldStart: [10_000], rebuild: [10_000], iterations: 7 },
  quick: { coldStart: [1000], rebuild: [1000, 10_000], iterations: 5 },
  smoke: { coldStart: [100], rebuild: [100], iterations: 3 },
};

/** The profile's sizes, plus 50,000 for both rows under `--scale full`. */
export function controllerScaleParams(ctx: Pick<BenchContext, 'profile' | 'scale'>): ControllerScaleParams {
  const params = byProfile(ctx, PARAMS);
  if (ctx.scale !== 'full') return params;
  return { ...params, coldStart: [...params.coldStart, LARGE], rebuild: [...params.rebuild, LARGE] };
}

interface ColdStart extends ColdStartPhases {
  readonly apps: number;
  readonly readyMs: number;
  readonly rssMb: number;
  readonly peakMb: number;
  /** CPU seconds the controller process (not its NGINX) used from spawn to ready: its own work, apart from the API server's and NGINX's. */
  readonly cpuSeconds: number;
  /** The controller's warnings and errors during the start (a list retried, a sync failed). */
  readonly trouble: readonly Readonly<Record<string, unknown>>[];
  /** The same start from the TypeScript sources (bin/resty-ingress.js): spawn → ready and spawn → "watching". */
  readonly fromSources: { readonly readyMs: number; readonly startupMs: number };
}

async function coldStart(ctx: BenchContext, apps: number, launcher: string | undefined): Promise<Omit<ColdStart, 'fromSources'>> {
  const cluster = await startLocalCluster(ctx.workDir);
  try {
    const synthetic = syntheticCluster({ apps, endpointsPerApp: ENDPOINTS_PER_APP });
    cluster.load({ ...synthetic, endpointSlices: synthetic.endpointSlices.map((slice, i) => realSlice(slice, appName(i), i)) });
    const controller = await startControllerProcess({ kubeconfigPath: cluster.kubeconfigPath, workDir: ctx.workDir, readyTimeoutMs: 600_000, launcher });
    try {
      const cpuSeconds = cpuSecondsOf([controller.pid]);
      const memory = memoryOf(controller.pid, (p) => readFileSync(p, 'utf8'));
      return { apps, readyMs: controller.readyMs, cpuSeconds, ...memory, ...coldStartPhases(controller.logs(), controller.readyMs), trouble: troubleLines(controller.logs()) };
    } finally {
      await controller.stop();
    }
  } finally {
    await cluster.stop();
  }
}

async function rebuild(apps: number, iterations: number): Promise<RebuildChildOutput & { readonly apps: number }> {
  const input: RebuildChildInput = { apps, endpointsPerApp: ENDPOINTS_PER_APP, iterations };
  // With the controller's own V8 flags: the pipeline as it runs in the controller.
  const { stdout } = await promisify(execFile)(process.execPath, [YOUNG_GENERATION_FLAG, CHILD, JSON.stringify(input)], { maxBuffer: 1 << 20 });
  const line = stdout.split('\n').find((l) => l.startsWith('REBUILD_JSON '));
  if (line === undefined) throw new Error(`rebuild child printed no result: ${stdout.slice(0, 500)}`);
  return { apps, ...(JSON.parse(line.slice('REBUILD_JSON '.length)) as RebuildChildOutput) };
}

const label = (apps: number): string => `${apps.toLocaleString('en')} Ingresses, ${(apps * ENDPOINTS_PER_APP).toLocaleString('en')} endpoints`;

function coldStartMetrics(c: ColdStart): Metric[] {
  const target = c.apps >= LARGE ? 30 : 5;
  const goal = c.apps >= 10_000 ? { on: 'value' as const, op: '<' as const, target } : null;
  const rssGoal = c.apps >= 10_000 ? { on: 'value' as const, op: '<' as const, target: 1024 } : null;
  return [
    metric(`cold start to ready (${label(c.apps)})`, 's', c.readyMs / 1000, goal === null ? null : target, goal === null ? '—' : 'goal', goal),
    metric(`  start-up: spawn → watching (${label(c.apps)})`, 'ms', c.startupMs, null, '—'),
    metric(`  initial lists (${label(c.apps)})`, 'ms', c.listMs, null, '—'),
    metric(`  first build (${label(c.apps)})`, 'ms', c.buildMs, null, '—'),
    metric(`  first render (${label(c.apps)})`, 'ms', c.renderMs, null, '—'),
    metric(`  NGINX start + push (${label(c.apps)})`, 'ms', c.applyMs, null, '—'),
    metric(`    of which NGINX start (${label(c.apps)})`, 'ms', c.nginxStartMs, null, '—'),
    metric(`    of which first push to Lua (${label(c.apps)})`, 'ms', c.pushMs, null, '—'),
    metric(`  controller CPU, spawn → ready (${label(c.apps)})`, 's', c.cpuSeconds, null, '—'),
    metric(`cold start to ready from the TypeScript sources (${label(c.apps)})`, 's', c.fromSources.readyMs / 1000, null, '—'),
    metric(`  start-up from the sources: spawn → watching (${label(c.apps)})`, 'ms', c.fromSources.startupMs, null, '—'),
    metric(`controller RSS at ready (${label(c.apps)})`, 'MB', c.rssMb, rssGoal === null ? null : 1024, rssGoal === null ? '—' : 'goal', rssGoal),
  ];
}

function rebuildMetrics(r: RebuildChildOutput & { readonly apps: number }): Metric[] {
  const large = r.apps >= LARGE;
  return [
    metric(`rebuild: build + diff, one route changed (${label(r.apps)})`, 'ms', r.totalMs, large ? 500 : null, large ? 'goal' : '—', large ? { on: 'value', op: '<', target: 500 } : null),
    metric(`  of which diff (decideApply) (${label(r.apps)})`, 'ms', r.decideMs, null, '—'),
    metric(`first build + diff (${label(r.apps)})`, 'ms', r.coldMs, null, '—'),
    metric(`rebuild process peak RSS (${label(r.apps)})`, 'MB', r.peakRssMb, large ? 1024 : null, large ? 'goal' : '—', large ? { on: 'value', op: '<', target: 1024 } : null),
  ];
}

async function runControllerScale(ctx: BenchContext): Promise<BenchResult> {
  const params = controllerScaleParams(ctx);
  const rebuilds = [];
  for (const apps of params.rebuild) {
    const r = await rebuild(apps, params.iterations);
    ctx.log(`rebuild ${apps}: ${r.totalMs.toFixed(0)} ms (build ${r.buildMs.toFixed(0)}, diff ${r.decideMs.toFixed(0)}), first ${r.coldMs.toFixed(0)} ms, peak RSS ${r.peakRssMb.toFixed(0)} MB`);
    rebuilds.push(r);
  }
  const launcher = await shippedLauncher(ctx.log);
  const colds: ColdStart[] = [];
  for (const apps of params.coldStart) {
    const sources = await coldStart(ctx, apps, undefined);
    const c = { ...await coldStart(ctx, apps, launcher), fromSources: { readyMs: sources.readyMs, startupMs: sources.startupMs } };
    ctx.log(`cold start ${apps} (from the sources: ready ${sources.readyMs.toFixed(0)} ms, start-up ${sources.startupMs.toFixed(0)}): ready ${c.readyMs.toFixed(0)} ms (start-up ${c.startupMs.toFixed(0)}, lists ${c.listMs.toFixed(0)}, build ${c.buildMs.toFixed(0)}, render ${c.renderMs.toFixed(0)}, NGINX start ${c.nginxStartMs.toFixed(0)}, push ${c.pushMs.toFixed(0)}), controller CPU ${c.cpuSeconds.toFixed(1)} s, RSS ${c.rssMb.toFixed(0)} MB, ${c.trouble.length} warnings/errors`);
    colds.push(c);
  }
  return {
    id: 'controller',
    title: 'Controller at scale: cold start, rebuild + diff, memory',
    metrics: [...rebuilds.flatMap(rebuildMetrics), ...colds.flatMap(coldStartMetrics)],
    notes: [
      `rebuild = median of ${params.iterations - 1} warm runs of the long-lived model builder + decideApply over a deep-frozen synthetic snapshot, each a route change (one Ingress path toggles); render is the reload path's (bench scale)`,
      'cold start: the real controller as it ships (the bundle in dist/), after one start from the TypeScript sources (the "from the sources" rows), against the in-process local API server (same machine, same CPUs: the server\'s own work, serializing every page, is part of the list time; controller CPU = the controller process alone); phases from the controller\'s log lines ("watching", the first "sync" line\'s build/render/apply)',
      'cold start: the EndpointSlices as the EndpointSlice controller writes them (Pod references, nodes, zones, owner reference, managedFields: bench/scale/real-slices.ts)',
      `every Ingress has its own host; ${ENDPOINTS_PER_APP} endpoints per Service; every tenth Ingress carries annotations; the 50,000 rows only with --scale full`,
    ],
    distributions: [],
    raw: { rebuilds, colds },
  };
}

export const controllerScaleBenchmark: Benchmark = { id: 'controller', title: 'Controller at scale', run: runControllerScale };
