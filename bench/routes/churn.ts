// Benchmark: reloads under churn. With N Ingresses live and a saturating load
// on some of them, one change per second: even changes add an Ingress for a
// new host (plain: served first from Lua, then rendered by a reload; every
// tenth with annotations: the reload serves it), odd
// ones add a server-alias to an existing Ingress (a name only a reload can
// serve). Each change is timed to the first 200 that reflects it; the row
// shows whether reloads are coalesced (reloads vs changes), how many NGINX
// worker generations are alive at once (old ones draining) and whether
// other traffic failed. Reference: the route-change goal (p99 < 1 s).
import { setTimeout as sleep } from 'node:timers/promises';
import { loopbackAddresses, startBackends, type Backends } from '../lib/backends.ts';
import { byProfile, type BenchContext, type Benchmark, type Profile } from '../lib/context.ts';
import { startControllerProcess, type ControllerProcess } from '../lib/controller-process.ts';
import { probe } from '../lib/http-probe.ts';
import { startLocalCluster, type LocalCluster } from '../lib/local-cluster.ts';
import { sampleWorkers } from '../lib/nginx-workers.ts';
import { freePort, waitUntil } from '../lib/ports.ts';
import { metric, type BenchResult } from '../lib/report.ts';
import { summarize } from '../lib/stats.ts';
import { appHost, appName, asJson, BENCH_NAMESPACE, syntheticCluster, type SyntheticCluster } from '../lib/synthetic-cluster.ts';
import { errorCount, latencyAt, runWrk, toDistribution } from '../lib/wrk.ts';

interface ChurnParams {
  readonly apps: number;
  readonly changes: number;
  readonly intervalMs: number;
}

const PARAMS: Record<Profile, ChurnParams> = {
  full: { apps: 1000, changes: 60, intervalMs: 1000 },
  quick: { apps: 1000, changes: 10, intervalMs: 1000 },
  smoke: { apps: 20, changes: 3, intervalMs: 1000 },
};

const LOADED_HOSTS = 20;
const CHANGE_TIMEOUT_MS = 60_000;
/** Reloads are over once none was logged for this long. */
const QUIET_MS = 3000;
const FIRST_BACKEND = '127.0.93.1';
const INGRESSES = 'ingresses.networking.k8s.io';
const ALIAS = 'nginx.ingress.kubernetes.io/server-alias';

function clusterOn(backends: Backends, apps: number, first = 0): SyntheticCluster {
  const count = backends.addresses.length;
  return syntheticCluster({
    apps, first, endpointsPerApp: 2, port: backends.port,
    address: (app, endpoint) => backends.addresses[(app * 2 + endpoint) % count] ?? FIRST_BACKEND,
  });
}

const aliasHost = (k: number): string => `churn-alias-${k}.bench.example.com`;

/** BENCH_ROUTES_APPS and BENCH_CHURN_CHANGES override the profile's sizes (the 10,000-Ingress run of docs/performance.md). */
function withEnv(params: ChurnParams): ChurnParams {
  const apps = Number(process.env.BENCH_ROUTES_APPS);
  const changes = Number(process.env.BENCH_CHURN_CHANGES);
  return {
    ...params,
    ...(Number.isInteger(apps) && apps > 0 ? { apps } : {}),
    ...(Number.isInteger(changes) && changes > 0 ? { changes } : {}),
  };
}

/** 'new annotated host': appIngress gives every tenth app annotations, so its host is not plain and waits for the reload. */
interface Change { readonly kind: 'new host' | 'new annotated host' | 'alias'; readonly host: string; apply(): void }

/** Change k: a new plain-host Ingress (its Service and slice created beforehand), or a server-alias on an existing Ingress. */
function changeAt(k: number, params: ChurnParams, cluster: LocalCluster, backends: Backends): Change {
  if (k % 2 === 0) {
    const app = clusterOn(backends, 1, params.apps + k);
    for (const service of app.services) cluster.api.store.create('services', asJson(service));
    for (const slice of app.endpointSlices) cluster.api.store.create('endpointslices.discovery.k8s.io', asJson(slice));
    const kind = app.ingresses.some((i) => i.metadata?.annotations !== undefined) ? 'new annotated host' : 'new host';
    return { kind, host: appHost(params.apps + k), apply: () => { for (const ingress of app.ingresses) cluster.api.store.create(INGRESSES, asJson(ingress)); } };
  }
  const target = appName(LOADED_HOSTS + (k % Math.max(1, params.apps - LOADED_HOSTS)));
  return {
    kind: 'alias', host: aliasHost(k),
    apply: () => {
      const ingress = cluster.api.store.get(INGRESSES, BENCH_NAMESPACE, target) as { metadata: { annotations?: Record<string, string> } };
      ingress.metadata.annotations = { ...ingress.metadata.annotations, [ALIAS]: aliasHost(k) };
      cluster.api.store.update(INGRESSES, asJson(ingress));
    },
  };
}

/** Applies the change at its slot and resolves with ms until its host answers 200 through NGINX. */
async function timeChange(change: Change, controller: ControllerProcess): Promise<number> {
  const started = performance.now();
  change.apply();
  await waitUntil(`${change.host} to serve`, async () => ((await probe('127.0.0.1', controller.httpPort, change.host)).status === 200 ? true : undefined), CHANGE_TIMEOUT_MS, 10);
  return performance.now() - started;
}

/** Waits until no reload was logged for QUIET_MS (bounded), so the last coalesced reload is counted. */
async function reloadsSettled(controller: ControllerProcess): Promise<void> {
  let last = controller.reloads();
  let quietSince = performance.now();
  await waitUntil('reloads to settle', async () => {
    if (controller.reloads() !== last) { last = controller.reloads(); quietSince = performance.now(); }
    return performance.now() - quietSince >= QUIET_MS ? true : undefined;
  }, 60_000, 100).catch(() => undefined);
}

async function runChurn(ctx: BenchContext): Promise<BenchResult> {
  const params = withEnv(byProfile(ctx, PARAMS));
  const backendPort = await freePort();
  const backends = await startBackends(ctx.dataplane, ctx.workDir, loopbackAddresses(FIRST_BACKEND, 4), backendPort, ctx.loadCpu);
  const cluster = await startLocalCluster(ctx.workDir);
  let controller: ControllerProcess | null = null;
  try {
    cluster.load(clusterOn(backends, params.apps));
    controller = await startControllerProcess({ kubeconfigPath: cluster.kubeconfigPath, workDir: ctx.workDir, readyTimeoutMs: 180_000 });
    const live = controller;
    const changes = Array.from({ length: params.changes }, (_, k) => changeAt(k, params, cluster, backends));
    await reloadsSettled(live);
    const hosts = Array.from({ length: Math.min(LOADED_HOSTS, params.apps) }, (_, i) => appHost(i));
    const stopLoad = new AbortController();
    const bound = Math.ceil((params.changes * params.intervalMs + CHANGE_TIMEOUT_MS + 60_000) / 1000);
    const wrk = runWrk({ url: `http://127.0.0.1:${live.httpPort}/`, hosts, connections: 10, cpu: ctx.loadCpu, durationSeconds: bound, stop: stopLoad.signal });
    const workers = sampleWorkers(live.pid);
    await sleep(1000);
    const reloadsBefore = live.reloads();
    const logsBefore = live.logs().length;
    const timed: Promise<number>[] = [];
    let census;
    try {
      const t0 = performance.now();
      for (let k = 0; k < changes.length; k++) {
        await sleep(Math.max(0, t0 + k * params.intervalMs - performance.now()));
        const change = changes[k]!;
        timed.push(timeChange(change, live).then((ms) => { ctx.log(`churn ${k + 1}/${changes.length} (${change.kind}): serving after ${ms.toFixed(0)} ms`); return ms; }));
      }
      await Promise.all(timed);
      await reloadsSettled(live);
    } finally {
      stopLoad.abort();
      census = workers.stop();
    }
    const times = await Promise.all(timed);
    const load = await wrk;
    const reloads = live.reloads() - reloadsBefore;
    const of = (kind: Change['kind']): number[] => times.filter((_, k) => changes[k]!.kind === kind);
    const all = summarize(times);
    const failed = errorCount(load) - load.errors.read;
    return {
      id: 'churn',
      title: `Churn: ${params.changes} Ingress changes, 1 per ${params.intervalMs / 1000} s, while ${params.apps.toLocaleString('en')} exist`,
      metrics: [
        metric('change → served (first 200 reflecting it), p50', 'ms', all.p50, 1000, 'goal p99'),
        metric('change → served, p99', 'ms', all.p99, 1000, 'goal', { on: 'value', op: '<', target: 1000 }),
        metric('change → served, max', 'ms', all.max, 1000, 'goal p99'),
        metric('  new plain host (served first from Lua), p99', 'ms', summarize(of('new host')).p99, 1000, 'goal p99'),
        metric('  new host whose Ingress has annotations (needs the reload), p99', 'ms', summarize(of('new annotated host')).p99, 1000, 'goal p99'),
        metric('  server-alias added (needs the reload), p99', 'ms', summarize(of('alias')).p99, 1000, 'goal p99'),
        metric('reloads done vs changes (coalescing)', '', reloads, params.changes, 'changes'),
        metric('NGINX worker generations alive at once, max', '', census.generations, null, '—'),
        metric('NGINX workers of older generations (draining) at once, max', '', census.draining, null, '—'),
        metric('failed requests on other hosts', 'req', failed, 0, 'none', { on: 'value', op: '==', target: 0 }),
        metric('keep-alive connections closed under a racing request (read errors)', 'req', load.errors.read, null, 'NGINX reload behaviour'),
        metric('latency p99 of other traffic during the churn', 'ms', latencyAt(load, 99), null, '—'),
      ],
      notes: [
        `changes ${params.intervalMs} ms apart, each timed from the API write to the first 200 for its host through NGINX (10 ms probes), not waiting for the previous one; even changes create an Ingress for a new host (plain, but every tenth app's Ingress carries two annotations: then it waits for the reload), odd ones add ${ALIAS} to an existing Ingress; each in ms: ${times.map((t) => t.toFixed(0)).join(', ')}`,
        `other traffic: wrk, 10 connections over ${hosts.length} existing hosts, no pause, ${Math.round(load.requestsPerSecond)} req/s; errors ${JSON.stringify(load.errors)}; read = an old worker closed an idle keep-alive connection at a reload (see the routes row)`,
        `worker census: /proc every 100 ms (${census.samples} samples), NGINX workers under the controller grouped by start time (a generation = one reload's workers), max ${census.workers} workers at once with 2 worker processes per generation`,
      ],
      distributions: [toDistribution('other traffic during churn', load)],
      // The controller's sync and reload lines of the window: where a slow change waited.
      raw: { times, kinds: changes.map((c) => c.kind), reloads, census, load, controllerLines: live.logs().slice(logsBefore).filter((l) => l.msg === 'sync' || l.msg === 'NGINX reloaded') },
    };
  } finally {
    await controller?.stop();
    await cluster.stop();
    await backends.nginx.stop();
  }
}

export const churnBenchmark: Benchmark = { id: 'churn', title: 'Reloads under churn', run: runChurn };
