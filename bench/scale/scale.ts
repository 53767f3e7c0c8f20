// Benchmark 5, scale: per size, a child process runs the full pipeline
// (buildModel + decideApply + render) and reports time and its own RSS; then
// this process measures nginx.conf size, `nginx -t`, NGINX start, and a
// confirmed reload to the conf with one more app. At the largest size the
// real controller starts cold against the local API holding the cluster:
// time to "first configuration is live" and the controller's RSS.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { YOUNG_GENERATION_FLAG } from '../../controller/src/runtime-flags.ts';
import { byProfile, type BenchContext, type Benchmark, type Profile } from '../lib/context.ts';
import { memoryOf, startControllerProcess } from '../lib/controller-process.ts';
import { startLocalCluster } from '../lib/local-cluster.ts';
import { startNginxInstance, testConfig } from '../lib/nginx-instance.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePorts } from '../lib/ports.ts';
import { metric, type BenchResult, type Metric } from '../lib/report.ts';
import { median } from '../lib/stats.ts';
import { syntheticCluster } from '../lib/synthetic-cluster.ts';
import { measureReload, type ReloadPhases } from './reload-phases.ts';
import type { ScaleChildInput, ScaleChildOutput } from './scale-child.ts';

const CHILD = fileURLToPath(new URL('./scale-child.ts', import.meta.url));
const ENDPOINTS_PER_APP = 5;

interface ScaleParams {
  readonly sizes: readonly number[];
  readonly iterations: number;
  /** Apps in the cluster the real controller cold-starts against. */
  readonly coldStartApps: number;
  /** Reload pairs per size: one with `nginx -t` before the HUP, one without. */
  readonly reloadRounds: number;
}

const PARAMS: Record<Profile, ScaleParams> = {
  full: { sizes: [100, 1000, 10_000], iterations: 5, coldStartApps: 10_000, reloadRounds: 3 },
  quick: { sizes: [100, 1000, 10_000], iterations: 3, coldStartApps: 1000, reloadRounds: 2 },
  smoke: { sizes: [100], iterations: 2, coldStartApps: 100, reloadRounds: 1 },
};

interface SizeResult {
  readonly apps: number;
  readonly pipeline: ScaleChildOutput;
  readonly nginxTestMs: number;
  readonly nginxStartMs: number;
  /** Median nginx -t + HUP + new version (the validated reloads). */
  readonly reloadMs: number;
  /** Every measured reload, validated and not, alternating. */
  readonly reloads: readonly ReloadPhases[];
}

async function runChild(input: ScaleChildInput): Promise<ScaleChildOutput> {
  // With the controller's own V8 flags: its pipeline as it runs in the controller.
  const { stdout } = await promisify(execFile)(process.execPath, [YOUNG_GENERATION_FLAG, CHILD, JSON.stringify(input)], { maxBuffer: 1 << 24 });
  const line = stdout.split('\n').find((l) => l.startsWith('SCALE_JSON '));
  if (line === undefined) throw new Error(`scale child printed no result: ${stdout.slice(0, 500)}`);
  return JSON.parse(line.slice('SCALE_JSON '.length)) as ScaleChildOutput;
}

async function measureSize(ctx: BenchContext, apps: number, params: ScaleParams): Promise<SizeResult> {
  const outDir = join(ctx.workDir, `size-${apps}`);
  mkdirSync(outDir, { recursive: true });
  const [httpPort, statusPort] = await freePorts(2) as [number, number];
  const pipeline = await runChild({ apps, endpointsPerApp: ENDPOINTS_PER_APP, iterations: params.iterations, outDir, httpPort, statusPort });
  const confPath = join(outDir, 'nginx.conf');
  const nginxTestMs = await testConfig(ctx.dataplane, outDir, confPath);
  const versionUrl = `http://127.0.0.1:${statusPort}/config-version`;
  const base = { conf: readFileSync(confPath, 'utf8'), version: pipeline.version };
  const next = { conf: readFileSync(join(outDir, 'next.conf'), 'utf8'), version: pipeline.nextVersion };
  const startedAt = performance.now();
  const nginx = await startNginxInstance({ dataplane: ctx.dataplane, prefix: outDir, conf: base.conf, readyUrl: versionUrl });
  const nginxStartMs = performance.now() - startedAt;
  try {
    // What the controller does for a reload (write, nginx -t, HUP, wait for the new version), and
    // the same without nginx -t, alternating between the conf and the one with one more app.
    const target = { dataplane: ctx.dataplane, prefix: outDir, masterPid: nginx.masterPid, confPath, versionUrl };
    const reloads: ReloadPhases[] = [];
    for (let i = 0; i < params.reloadRounds * 2; i++) {
      const to = i % 2 === 0 ? next : base;
      reloads.push(await measureReload(target, to.conf, to.version, i % 2 === 0));
      await sleep(500); // old workers gone, RSS back at rest
    }
    const reloadMs = median(reloads.filter((r) => r.validated).map((r) => r.totalMs));
    return { apps, pipeline, nginxTestMs, nginxStartMs, reloadMs, reloads };
  } finally {
    await nginx.stop();
  }
}

async function coldStart(ctx: BenchContext, apps: number): Promise<{ readyMs: number; rssMb: number; peakMb: number }> {
  const cluster = await startLocalCluster(ctx.workDir);
  try {
    cluster.load(syntheticCluster({ apps, endpointsPerApp: ENDPOINTS_PER_APP }));
    const controller = await startControllerProcess({ kubeconfigPath: cluster.kubeconfigPath, workDir: ctx.workDir, readyTimeoutMs: 120_000 });
    try {
      return { readyMs: controller.readyMs, ...memoryOf(controller.pid, (p) => readFileSync(p, 'utf8')) };
    } finally {
      await controller.stop();
    }
  } finally {
    await cluster.stop();
  }
}

/** The median of one phase over the reloads with (or without) nginx -t. */
function phase(r: SizeResult, validated: boolean, pick: (p: ReloadPhases) => number): number {
  return median(r.reloads.filter((p) => p.validated === validated).map(pick));
}

function sizeMetrics(r: SizeResult, top: boolean): Metric[] {
  const label = `${r.apps.toLocaleString('en')} Ingresses, ${(r.apps * ENDPOINTS_PER_APP).toLocaleString('en')} endpoints`;
  const p = r.pipeline;
  const withTest = (pick: (x: ReloadPhases) => number): number => phase(r, true, pick);
  const without = (pick: (x: ReloadPhases) => number): number => phase(r, false, pick);
  const peakRatio = median(r.reloads.map((x) => x.peakRssMb / x.steadyRssMb));
  // PSS divides each shared page among its sharers: the master's forked workers count it once in all, not once each.
  const pssRatio = median(r.reloads.map((x) => x.peakPssMb / x.steadyPssMb));
  const first = r.reloads[0];
  const last = r.reloads.at(-1);
  return [
    metric(`rebuild: build+diff+render (${label})`, 'ms', p.warmMs, 300, 'goal', top ? { on: 'value', op: '<', target: 300 } : null),
    metric(`  build / diff (${label})`, 'ms', p.buildMs, p.decideMs, 'diff ms'),
    metric(`  render (${label})`, 'ms', p.renderMs, null, '—'),
    metric(`pipeline RSS (${label})`, 'MB', p.peakRssMb, 400, 'goal', top ? { on: 'value', op: '<', target: 400 } : null),
    metric(`nginx.conf size (${label})`, 'KB', p.confBytes / 1024, null, '—'),
    metric(`  write nginx.conf (${label})`, 'ms', withTest((x) => x.writeMs), null, '—'),
    metric(`  nginx -t (${label})`, 'ms', withTest((x) => x.testMs), null, '—'),
    metric(`  HUP → new workers exist: master parse (${label})`, 'ms', withTest((x) => x.masterParseMs), without((x) => x.masterParseMs), 'without nginx -t'),
    metric(`  new workers → serve the new version (${label})`, 'ms', withTest((x) => x.workerStartMs), without((x) => x.workerStartMs), 'without nginx -t'),
    metric(`  HUP → no old worker accepts (${label})`, 'ms', withTest((x) => x.replacedMs), without((x) => x.replacedMs), 'without nginx -t'),
    metric(`reload: write + nginx -t + HUP + new version (${label})`, 'ms', r.reloadMs, null, '—'),
    metric(`reload without nginx -t: write + HUP + new version (${label})`, 'ms', without((x) => x.totalMs), r.reloadMs, 'with nginx -t'),
    metric(`NGINX RSS during a reload, peak ÷ at rest (${label})`, '×', peakRatio, 2, 'goal', top ? { on: 'value', op: '<=', target: 2 } : null),
    metric(`NGINX PSS during a reload, peak ÷ at rest (${label})`, '×', pssRatio, 2, 'goal', top ? { on: 'value', op: '<=', target: 2 } : null),
    metric(`  NGINX at rest before the first reload → after the last, RSS (${label})`, 'MB', first?.steadyRssMb ?? Number.NaN, last?.afterRssMb ?? null, 'after the last reload'),
    metric(`  NGINX at rest before the first reload → after the last, PSS (${label})`, 'MB', first?.steadyPssMb ?? Number.NaN, last?.afterPssMb ?? null, 'after the last reload'),
    metric(`  NGINX peak during a reload (median), RSS / PSS (${label})`, 'MB', median(r.reloads.map((x) => x.peakRssMb)), median(r.reloads.map((x) => x.peakPssMb)), 'PSS MB'),
  ];
}

async function runScale(ctx: BenchContext): Promise<BenchResult> {
  const params = byProfile(ctx, PARAMS);
  const sizes: SizeResult[] = [];
  for (const apps of params.sizes) {
    const result = await measureSize(ctx, apps, params);
    ctx.log(`scale ${apps}: rebuild ${result.pipeline.warmMs.toFixed(0)} ms (cold ${result.pipeline.coldMs.toFixed(0)}), peak RSS ${result.pipeline.peakRssMb.toFixed(0)} MB, nginx -t ${result.nginxTestMs.toFixed(0)} ms, reload ${result.reloadMs.toFixed(0)} ms`);
    for (const r of result.reloads) ctx.log(`  reload${r.validated ? '' : ' without nginx -t'}: ${JSON.stringify(r, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v) : v))}`);
    sizes.push(result);
  }
  const cold = await coldStart(ctx, params.coldStartApps);
  ctx.log(`cold start at ${params.coldStartApps}: ready in ${cold.readyMs.toFixed(0)} ms, controller RSS ${cold.rssMb.toFixed(0)} MB`);
  const topApps = Math.max(...params.sizes);
  const coldLabel = `${params.coldStartApps.toLocaleString('en')} Ingresses`;
  return {
    id: 'scale',
    title: 'Scale: model build + diff + render, RSS, nginx -t, reload, cold start',
    metrics: [
      ...sizes.flatMap((r) => sizeMetrics(r, r.apps === topApps)),
      metric(`cold start to ready, real controller (${coldLabel})`, 's', cold.readyMs / 1000, 30, 'goal', { on: 'value', op: '<', target: 30 }),
      metric(`controller RSS at ready (${coldLabel})`, 'MB', cold.rssMb, 400, 'goal', params.coldStartApps >= 10_000 ? { on: 'value', op: '<', target: 400 } : null),
    ],
    notes: [
      `rebuild = median of ${params.iterations - 1} warm runs of buildModel + decideApply + render in a child process per size, each a route change (one Ingress path toggles, so the decision reloads); pipeline RSS = that child's peak (VmHWM), including the synthetic snapshot`,
      `every Ingress has its own host; ${ENDPOINTS_PER_APP} endpoints per Service; every tenth Ingress carries annotations; worker_processes 2`,
      'reload phases: write = temp file + rename; master parse = SIGHUP → the first new worker process exists (the master parses the whole file again and runs init_by_lua; then forks); new workers → serve = init_worker_by_lua until /config-version answers the new version (the controller\'s confirmation); no certificate phase: certificates come from a Lua shared dict by SNI, never loaded at parse time; NGINX RSS = the master and all its children, summed, polled every 5 ms; reloads alternate with and without nginx -t (raw.sizes[].reloads has each one)',
      `split at the top size: build ${sizes.at(-1)?.pipeline.buildMs.toFixed(0)} ms, decide ${sizes.at(-1)?.pipeline.decideMs.toFixed(0)} ms, render ${sizes.at(-1)?.pipeline.renderMs.toFixed(0)} ms`,
    ],
    distributions: [],
    raw: { sizes, cold },
  };
}

export const scaleBenchmark: Benchmark = { id: 'scale', title: 'Scale', run: runScale };
