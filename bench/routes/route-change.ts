// Benchmark 4, route changes: with 1,000 Ingresses live and steady traffic on
// some of them, add new Ingresses one at a time (each needs a reload) and
// time how long until the new host serves; count errors on the other
// traffic during those reloads. Three phases, one after the other: without
// other traffic (what this machine's NGINX needs at best), under a steady
// load (connections pausing between requests, as in the rolling benchmark),
// and under a saturating one (the goal rows). Reference: the goal.
import { setTimeout as sleep } from 'node:timers/promises';
import { loopbackAddresses, startBackends, type Backends } from '../lib/backends.ts';
import { byProfile, type BenchContext, type Benchmark, type Profile } from '../lib/context.ts';
import { startControllerProcess, type ControllerProcess } from '../lib/controller-process.ts';
import { probe } from '../lib/http-probe.ts';
import { startLocalCluster, type LocalCluster } from '../lib/local-cluster.ts';
import { freePort, waitUntil } from '../lib/ports.ts';
import { metric, type BenchResult } from '../lib/report.ts';
import { median, summarize } from '../lib/stats.ts';
import { appHost, asJson, syntheticCluster, type SyntheticCluster } from '../lib/synthetic-cluster.ts';
import { errorCount, latencyAt, runWrk, STEADY_PAUSE_MS, toDistribution, type WrkOptions, type WrkResult } from '../lib/wrk.ts';
import { describePhases, medianPhases, servePhases, type RouteTiming } from './serve-phases.ts';

interface RouteParams {
  readonly apps: number;
  /** Ingresses added without other traffic, then under the steady load. */
  readonly idleAdditions: number;
  readonly steadyAdditions: number;
  /** Ingresses added under the saturating load. */
  readonly additions: number;
  readonly gapMs: number;
}

const PARAMS: Record<Profile, RouteParams> = {
  full: { apps: 1000, idleAdditions: 3, steadyAdditions: 4, additions: 8, gapMs: 1500 },
  quick: { apps: 1000, idleAdditions: 2, steadyAdditions: 2, additions: 4, gapMs: 1200 },
  smoke: { apps: 20, idleAdditions: 1, steadyAdditions: 1, additions: 1, gapMs: 500 },
};

const LOADED_HOSTS = 20;
/** How long a new route may take to serve before the benchmark gives up on it. */
const ROUTE_TIMEOUT_MS = 30_000;
const FIRST_BACKEND = '127.0.92.1';

function clusterOn(backends: Backends, apps: number, first = 0): SyntheticCluster {
  const count = backends.addresses.length;
  return syntheticCluster({
    apps, first, endpointsPerApp: 2, port: backends.port,
    address: (app, endpoint) => backends.addresses[(app * 2 + endpoint) % count] ?? FIRST_BACKEND,
  });
}

/** Adds app `index` (Service and slice first, so only the Ingress changes nginx.conf); resolves with when it was written and first served. */
async function addRoute(cluster: LocalCluster, backends: Backends, controller: ControllerProcess, index: number): Promise<RouteTiming> {
  const app = clusterOn(backends, 1, index);
  for (const service of app.services) cluster.api.store.create('services', asJson(service));
  for (const slice of app.endpointSlices) cluster.api.store.create('endpointslices.discovery.k8s.io', asJson(slice));
  await sleep(250);
  const writtenAt = Date.now();
  for (const ingress of app.ingresses) cluster.api.store.create('ingresses.networking.k8s.io', asJson(ingress));
  await waitUntil(`${appHost(index)} to serve`, async () => ((await probe('127.0.0.1', controller.httpPort, appHost(index))).status === 200 ? true : undefined), ROUTE_TIMEOUT_MS, 5);
  return { writtenAt, servedAt: Date.now(), plain: app.ingresses.every((ingress) => ingress.metadata?.annotations === undefined) };
}

function msList(times: readonly number[]): string {
  return times.map((t) => `${t.toFixed(0)} ms`).join(', ');
}

/** What one phase's routes need: the cluster, the backends and the controller they go through. */
interface RouteRig {
  readonly ctx: BenchContext;
  readonly params: RouteParams;
  readonly cluster: LocalCluster;
  readonly backends: Backends;
  readonly controller: ControllerProcess;
  /** Every route added, in order (the phases are taken from them and the controller's log at the end). */
  readonly routes: RouteTiming[];
}

/** Adds `count` apps from index `first`, `gapMs` apart; resolves with each one's time until it serves. */
async function addRoutes(rig: RouteRig, label: string, first: number, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let k = 0; k < count; k++) {
    const route = await addRoute(rig.cluster, rig.backends, rig.controller, first + k);
    rig.routes.push(route);
    times.push(route.servedAt - route.writtenAt);
    rig.ctx.log(`route ${label} ${k + 1}: serving after ${times.at(-1)?.toFixed(0)} ms`);
    if (k < count - 1) await sleep(rig.params.gapMs);
  }
  return times;
}

/**
 * addRoutes under a wrk `load` (its duration is set here). The load lasts
 * until the last new route serves, however slow the machine: wrk is stopped
 * then (its duration is only a bound), so every reload happens under it.
 */
async function addRoutesUnder(
  load: Omit<WrkOptions, 'durationSeconds' | 'stop'>,
  rig: RouteRig, label: string, first: number, count: number,
): Promise<{ times: number[]; wrk: WrkResult }> {
  const stopLoad = new AbortController();
  const bound = Math.ceil(count * (rig.params.gapMs + ROUTE_TIMEOUT_MS) / 1000) + 2;
  const wrk = runWrk({ ...load, durationSeconds: bound, stop: stopLoad.signal });
  await sleep(1000);
  let times: number[];
  try {
    times = await addRoutes(rig, label, first, count);
  } finally {
    stopLoad.abort();
  }
  return { times, wrk: await wrk };
}

/** Where a route change's time goes, from the controller's log lines after line `from`: the static-change syncs and the reloads. */
function reloadBreakdown(controller: ControllerProcess, from: number): { buildMs: number; renderMs: number; validateMs: number; reloadMs: number; validatedAhead: number; unvalidated: number } {
  const lines = controller.logs().slice(from);
  const field = (msg: string, name: string, where: (l: Record<string, unknown>) => boolean = () => true): number =>
    median(lines.filter((l) => l.msg === msg && where(l)).map((l) => Number(l[name])).filter(Number.isFinite));
  // The settling sync builds and renders the change (then validated ahead); the one after the window reuses both.
  const staticSync = (l: Record<string, unknown>): boolean => l.why === 'static change (settling)';
  return {
    buildMs: field('sync', 'buildMs', staticSync), renderMs: field('sync', 'renderMs', staticSync),
    validateMs: field('NGINX reloaded', 'validateMs'), reloadMs: field('NGINX reloaded', 'durationMs'),
    validatedAhead: lines.filter((l) => l.msg === 'NGINX reloaded' && l.validatedAhead === true).length,
    unvalidated: lines.filter((l) => l.msg === 'NGINX reloaded' && l.validated === false).length,
  };
}

/** The controller's sync, reload, warning and error lines from its first configuration on, the fields that time or explain them (raw JSON). */
function syncLog(lines: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const ready = lines.findIndex((l) => l.msg === 'first configuration is live');
  const fields = ['time', 'msg', 'result', 'why', 'changedCount', 'ms', 'buildMs', 'renderMs', 'applyMs', 'pending', 'pendingPostMs',
    'pendingWorkersMs', 'preview', 'previewMs', 'previewBuildMs', 'previewBackendsMs', 'waitedMs', 'kickedAt', 'kicks', 'startedAt', 'push', 'durationMs', 'validateMs', 'validated', 'level', 'err', 'component'];
  return lines.slice(Math.max(0, ready)).filter((l) => l.msg === 'sync' || l.msg === 'NGINX reloaded' || Number(l.level) >= 40).slice(0, 2000)
    .map((l) => Object.fromEntries(fields.filter((f) => l[f] !== undefined).map((f) => [f, l[f]])));
}

/** BENCH_ROUTES_APPS=10000 runs the profile with that many Ingresses present (the scale figures of docs/performance.md). */
function withAppsFromEnv(params: RouteParams): RouteParams {
  const apps = Number(process.env.BENCH_ROUTES_APPS);
  return Number.isInteger(apps) && apps > 0 ? { ...params, apps } : params;
}

async function runRouteChange(ctx: BenchContext): Promise<BenchResult> {
  const params = withAppsFromEnv(byProfile(ctx, PARAMS));
  const backendPort = await freePort();
  const backends = await startBackends(ctx.dataplane, ctx.workDir, loopbackAddresses(FIRST_BACKEND, 4), backendPort, ctx.loadCpu);
  const cluster = await startLocalCluster(ctx.workDir);
  let controller: ControllerProcess | null = null;
  try {
    cluster.load(clusterOn(backends, params.apps));
    controller = await startControllerProcess({ kubeconfigPath: cluster.kubeconfigPath, workDir: ctx.workDir, readyTimeoutMs: 120_000 });
    const live = controller;
    const rig: RouteRig = { ctx, params, cluster, backends, controller: live, routes: [] };
    const hosts = Array.from({ length: Math.min(LOADED_HOSTS, params.apps) }, (_, i) => appHost(i));
    const url = `http://127.0.0.1:${live.httpPort}/`;
    let next = params.apps;
    const idleTimes = await addRoutes(rig, 'without other traffic', next, params.idleAdditions);
    next += params.idleAdditions;
    await sleep(params.gapMs);
    const steady = await addRoutesUnder({ url, hosts, connections: 20, cpu: ctx.loadCpu, pauseMs: STEADY_PAUSE_MS },
      rig, 'under steady load', next, params.steadyAdditions);
    next += params.steadyAdditions;
    await sleep(params.gapMs);
    const reloadsBefore = live.reloads();
    const logsBefore = live.logs().length;
    const saturated = await addRoutesUnder({ url, hosts, connections: 10, cpu: ctx.loadCpu }, rig, 'under saturating load', next, params.additions);
    const times = saturated.times;
    const { wrk } = saturated;
    const steadyWrk = steady.wrk;
    // "NGINX reloaded" is logged once the old workers are gone, after the new host answers: wait for
    // the last one (bounded; fewer reloads than additions would show in the row).
    await waitUntil('the last reload to be logged', async () => (live.reloads() - reloadsBefore >= params.additions ? true : undefined), 10_000)
      .catch(() => undefined);
    const reloads = live.reloads() - reloadsBefore;
    const summary = summarize(times);
    const breakdown = reloadBreakdown(live, logsBefore);
    // The serve-first path phase by phase, every route (the first one comes right after the start).
    const phases = rig.routes.map((route) => servePhases(route, live.logs()));
    const served = phases.filter((p) => p !== null);
    const phaseMedians = medianPhases(served);
    const syncLines = syncLog(live.logs());
    // A read error is a keep-alive connection an old worker closed at the
    // reload while wrk's next request raced in (NGINX closes idle keep-alive
    // connections when a worker starts shutting down; no directive changes
    // that). Clients retry idempotent requests on such a close (RFC 9112
    // 9.3.1); wrk does not. Everything else is a real failure.
    const failed = errorCount(wrk) - wrk.errors.read + errorCount(steadyWrk) - steadyWrk.errors.read;
    return {
      id: 'routes',
      title: `Route changes: a new Ingress while ${params.apps.toLocaleString('en')} exist`,
      metrics: [
        metric('new Ingress serving, p50', 'ms', summary.p50, 1000, 'goal p99'),
        metric('new Ingress serving, p99', 'ms', summary.p99, 1000, 'goal', { on: 'value', op: '<', target: 1000 }),
        metric('new Ingress serving, max', 'ms', summary.max, 1000, 'goal p99'),
        metric('new Ingress serving without other traffic, max', 'ms', summarize(idleTimes).max, 1000, 'goal p99'),
        metric(`new Ingress serving under steady load (20 connections pausing ${STEADY_PAUSE_MS} ms), max`, 'ms', summarize(steady.times).max, 1000, 'goal p99'),
        metric('  build, render (median), while the change settles', 'ms', breakdown.buildMs, breakdown.renderMs, 'render'),
        metric('  nginx -t (median), run while the change settles when validated ahead', 'ms', breakdown.validateMs, null, '—'),
        metric('  reloads whose nginx -t ran while the change settled (validated ahead)', '', breakdown.validatedAhead, reloads, 'reloads'),
        metric('  reloads without nginx -t (the change carried no snippet or PEM: the master\'s parse checks it)', '', breakdown.unvalidated, reloads, 'reloads'),
        metric('  of which HUP → new workers serve the new version (median)', 'ms', breakdown.reloadMs, null, '—'),
        metric('failed requests on other hosts during the reloads', 'req', failed, 0, 'none', { on: 'value', op: '==', target: 0 }),
        metric('keep-alive connections closed under a racing request (read errors)', 'req', wrk.errors.read + steadyWrk.errors.read, null, 'NGINX reload behaviour'),
        metric('latency p99 of other traffic during the reloads', 'ms', latencyAt(wrk, 99), null, '—'),
        metric('reloads', '', reloads, params.additions, 'one per new Ingress'),
        metric(`serve-first phases, median of the ${served.length} served first (all phases): API write → informer event`, 'ms', phaseMedians.informerMs, phaseMedians.total, 'write → first 200'),
        metric('  of it, another sync running (its build or render holds the event loop)', 'ms', phaseMedians.informerBusyMs, phaseMedians.total, 'write → first 200'),
        metric('  → the sync starts (a sync still running, rate limit)', 'ms', phaseMedians.queueMs, phaseMedians.total, 'write → first 200'),
        metric(`  build (${served.filter((p) => p.via === 'preview').length} of the added Ingress alone, the rest of the whole model)`, 'ms', phaseMedians.buildMs, phaseMedians.total, 'write → first 200'),
        metric('  backends pushed first (with the full build: the differ too)', 'ms', phaseMedians.backendsMs, phaseMedians.total, 'write → first 200'),
        metric('  POST /configuration/pending', 'ms', phaseMedians.postMs, phaseMedians.total, 'write → first 200'),
        metric('  → every worker holds the set', 'ms', phaseMedians.workersMs, phaseMedians.total, 'write → first 200'),
        metric('  → first 200 seen by the 5 ms probe', 'ms', phaseMedians.probeMs, phaseMedians.total, 'write → first 200'),
        metric(`first new Ingress after the start (without other traffic; ${rig.routes[0]?.plain === false ? 'annotated: waits for its reload' : 'plain'})`, 'ms', rig.routes[0] === undefined ? Number.NaN : rig.routes[0].servedAt - rig.routes[0].writtenAt, 1000, 'goal p99'),
      ],
      notes: [
        `failed requests by kind (saturating load): ${JSON.stringify(wrk.errors)}, (steady load): ${JSON.stringify(steadyWrk.errors)}; "failed" = status (non-2xx/3xx) + connect + write + timeout. read = an old worker closed an idle keep-alive connection at the reload as wrk's next request raced in: NGINX closes idle keep-alive connections when a worker begins its graceful exit (ngx_close_idle_connections; a directive to keep them was proposed and not merged, nginx/nginx PR 303 and 437), the same on every ingress-nginx reload; HTTP clients retry idempotent requests on it (RFC 9112 9.3.1), wrk does not`,
        `serve-first phases of each new Ingress, in order: ${phases.map((p, i) => `#${i + 1}${rig.routes[i]?.plain === false ? ' (annotated)' : ''} ${describePhases(p)}`).join('; ')}`,
        `Ingresses added ${params.gapMs} ms apart: ${params.idleAdditions} without other traffic (${msList(idleTimes)}), ${params.steadyAdditions} under a steady load (wrk, 20 connections over ${hosts.length} existing hosts each pausing ${STEADY_PAUSE_MS} ms, ${Math.round(steadyWrk.requestsPerSecond)} req/s: ${msList(steady.times)}), then ${params.additions} under a saturating one (10 connections, no pause, ${Math.round(wrk.requestsPerSecond)} req/s: ${msList(times)}); time = API write → the new host answers 200 through NGINX (5 ms probes); the breakdown rows are of the saturated phase`,
      ],
      distributions: [toDistribution('other traffic during reloads', wrk)],
      raw: { times, idleTimes, steadyTimes: steady.times, wrk, steadyWrk, reloads, breakdown, routes: rig.routes, phases, phaseMedians, syncLines },
    };
  } finally {
    await controller?.stop();
    await cluster.stop();
    await backends.nginx.stop();
  }
}

export const routeChangeBenchmark: Benchmark = { id: 'routes', title: 'Route changes', run: runRouteChange };
