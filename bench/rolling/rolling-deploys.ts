// Benchmark 3, rolling deploys: 20 apps run by the simulator (pods are echo
// servers on loopback addresses, in child processes), the real controller
// in front, steady wrk load over all 20 hosts (about half of the rate they
// serve saturated, measured first). Each round measures a window
// of that load, then the same window while every Deployment rolls at once
// (the window is about as long as the roll, so the roll is not diluted by
// quiet seconds). Failed requests and reloads over all rolls; p99 during the
// rolls against the windows before them (the reference), median of rounds.
// One more app is never rolled: a second, light load goes straight to its pod,
// without the ingress, and shows what the roll does to the simulated machine
// itself (its pods, the API server and the simulator share the 2 cores).
import { KubeConfig } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEchoHost, type EchoHost } from '../../e2e/cluster/echo/echo-host.ts';
import { startSimulator, type Simulator } from '../../e2e/cluster/simulator/index.ts';
import { byProfile, type BenchContext, type Benchmark, type Profile } from '../lib/context.ts';
import { startControllerProcess, type ControllerProcess } from '../lib/controller-process.ts';
import { probe } from '../lib/http-probe.ts';
import { startLocalCluster, type LocalCluster } from '../lib/local-cluster.ts';
import { waitUntil } from '../lib/ports.ts';
import { metric, type BenchResult } from '../lib/report.ts';
import { roundsMetric, type RoundsGoal } from '../lib/rounds-goal.ts';
import { appHost, appIngress, appName, asJson, BENCH_NAMESPACE } from '../lib/synthetic-cluster.ts';
import { cpuSecondsOf, descendantsOf } from '../lib/process-cpu.ts';
import { median } from '../lib/stats.ts';
import { errorCount, latencyAt, runWrk, steadyPauseMs, toDistribution, type WrkResult } from '../lib/wrk.ts';

interface RollingParams {
  readonly apps: number;
  readonly replicas: number;
  readonly rounds: number;
  /** One wrk window, before or during a roll (a roll of 3 replicas takes ~2–2.5 s here). */
  readonly seconds: number;
}

const PARAMS: Record<Profile, RollingParams> = {
  full: { apps: 20, replicas: 3, rounds: 8, seconds: 3 },
  quick: { apps: 20, replicas: 2, rounds: 3, seconds: 2 },
  smoke: { apps: 2, replicas: 1, rounds: 1, seconds: 2 },
};

/** The steady load: this many connections, pausing so that they ask about STEADY_FRACTION of the saturated rate. */
const LOAD_CONNECTIONS = 20;
const STEADY_FRACTION = 0.5;

/**
 * Processes the pods run in (echo hosts), apps spread over them and the app
 * that never rolls in one of its own: closer to a cluster, where a pod that
 * starts or stops shares no event loop with the others.
 */
const POD_PROCESSES = 4;

/** The roll starts this long into its window, so wrk's connections are up. */
const ROLL_DELAY_MS = 200;

/** CPU cores each part used over a window (CPU seconds ÷ window seconds). */
type CoresByPart = Record<'nginx' | 'controller' | 'pods' | 'apiAndSimulator', number>;
const PARTS = ['nginx', 'controller', 'pods', 'apiAndSimulator'] as const;

interface RollRound {
  readonly before: WrkResult;
  readonly during: WrkResult;
  /** The load straight to the pod of the app that is not rolled, in the same windows. */
  readonly direct: { readonly before: WrkResult; readonly during: WrkResult };
  readonly reloads: number;
  readonly rollMs: number;
  readonly cores: { readonly before: CoresByPart; readonly during: CoresByPart };
}

/**
 * Goal: p99 during a roll under 1.5× the p99 before it. Each round's before
 * and during windows are back to back: their ratio cancels the machine's slow drift.
 */
export const P99_RISE: RoundsGoal<{ readonly rounds: readonly RollRound[] }> = {
  benchmark: 'rolling',
  name: 'latency p99 during ÷ before the roll, each round (median of rounds)',
  unit: '×',
  referenceLabel: 'before',
  goal: { on: 'value', op: '<', target: 1.5 },
  rounds: (raw) => raw.rounds.map((r) => latencyAt(r.during, 99) / latencyAt(r.before, 99)),
};

/** Starts a CPU measurement of the parts; the returned function ends it. */
function measureCores(parts: { nginx: readonly number[]; controller: number; pods: readonly number[] }): () => CoresByPart {
  const started = performance.now();
  const read = (): CoresByPart => {
    // This process: the local API server and the simulator (wrk is a child, not counted).
    const own = process.cpuUsage();
    return {
      nginx: cpuSecondsOf(parts.nginx),
      controller: cpuSecondsOf([parts.controller]),
      pods: cpuSecondsOf(parts.pods),
      apiAndSimulator: (own.user + own.system) / 1e6,
    };
  };
  const first = read();
  return () => {
    const seconds = (performance.now() - started) / 1000;
    const last = read();
    return Object.fromEntries(PARTS.map((part) => [part, (last[part] - first[part]) / seconds])) as CoresByPart;
  };
}

function createApp(cluster: LocalCluster, i: number, replicas: number): void {
  const name = appName(i);
  cluster.api.store.create('deployments.apps', {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: BENCH_NAMESPACE, name },
    spec: {
      replicas, selector: { matchLabels: { app: name } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'echo', image: 'echo:1', ports: [{ name: 'http', containerPort: 8080 }] }] } },
    },
  });
  cluster.api.store.create('services', {
    apiVersion: 'v1', kind: 'Service', metadata: { namespace: BENCH_NAMESPACE, name },
    spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
  });
  cluster.api.store.create('ingresses.networking.k8s.io', asJson(appIngress(i)));
}

/** True once every app runs `replicas` ready pods of one template and nothing else. */
function settled(sim: Simulator, apps: number, replicas: number, notHash: ReadonlyMap<string, string>): boolean {
  for (let i = 0; i < apps; i++) {
    const pods = sim.pods(BENCH_NAMESPACE, appName(i));
    const ready = pods.filter((p) => p.state === 'ready');
    if (pods.length !== replicas || ready.length !== replicas) return false;
    if (ready.some((p) => p.templateHash === notHash.get(appName(i)))) return false;
  }
  return true;
}

async function runRolling(ctx: BenchContext): Promise<BenchResult> {
  const params = byProfile(ctx, PARAMS);
  const cluster = await startLocalCluster(ctx.workDir);
  const kc = new KubeConfig();
  kc.loadFromString(cluster.api.kubeconfigFor());
  // Pods serve from their own process: in ours, the simulator and the API server would stall them during the roll.
  const echoHosts = await Promise.all(Array.from({ length: POD_PROCESSES + 1 }, () => startEchoHost()));
  let simulator: Simulator | null = null;
  let controller: ControllerProcess | null = null;
  try {
    // App i's pods run in process i mod POD_PROCESSES; the app that never rolls in one of its own.
    const hostFor = (podName: string): EchoHost => {
      const app = Number(/^app-(\d+)-/.exec(podName)?.[1] ?? 0);
      return echoHosts[app === params.apps ? POD_PROCESSES : app % POD_PROCESSES] as EchoHost;
    };
    const sim = await startSimulator({ kc, addressPool: '127.0.94.0/24', maxGraceMs: 1000, startServer: (options) => hostFor(options.podName).startServer(options) });
    simulator = sim;
    cluster.api.store.create('ingressclasses.networking.k8s.io', { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'resty' }, spec: { controller: 'resty-ingress.dev/controller' } });
    // Apps 0..apps-1 roll; app number `apps` does not (the reference's pod).
    for (let i = 0; i <= params.apps; i++) createApp(cluster, i, params.replicas);
    await waitUntil('the apps\' pods', async () => (settled(sim, params.apps + 1, params.replicas, new Map()) ? true : undefined), 30_000, 50);
    const quietPod = sim.pods(BENCH_NAMESPACE, appName(params.apps))[0];
    if (!quietPod) throw new Error('the app that is not rolled has no pod');
    controller = await startControllerProcess({ kubeconfigPath: cluster.kubeconfigPath, workDir: ctx.workDir });
    const live = controller;
    const hosts = Array.from({ length: params.apps }, (_, i) => appHost(i));
    for (const host of hosts) await waitUntil(`${host} to serve`, async () => ((await probe('127.0.0.1', live.httpPort, host)).status === 200 ? true : undefined), 20_000, 20);
    const target = { url: `http://127.0.0.1:${live.httpPort}/`, hosts, durationSeconds: params.seconds, connections: LOAD_CONNECTIONS, cpu: ctx.loadCpu };
    const saturated = await runWrk({ ...target, durationSeconds: 2, pauseMs: 0 });
    // A steady load leaves the machine room: about half of what it serves saturated.
    const pauseMs = steadyPauseMs(LOAD_CONNECTIONS, saturated.requestsPerSecond, STEADY_FRACTION);
    const load = { ...target, pauseMs };
    const directLoad = { url: `http://${quietPod.ip}:${quietPod.port}/`, durationSeconds: params.seconds, connections: 2, cpu: ctx.loadCpu, pauseMs };
    const parts = { nginx: descendantsOf(live.pid), controller: live.pid, pods: echoHosts.map((host) => host.pid) };
    const rounds: RollRound[] = [];
    for (let round = 1; round <= params.rounds; round++) {
      const beforeCores = measureCores(parts);
      const [before, directBefore] = await Promise.all([runWrk(load), runWrk(directLoad)]);
      const coresBefore = beforeCores();
      const reloadsBefore = live.reloads();
      const oldHashes = new Map(Array.from({ length: params.apps }, (_, i) => [appName(i), sim.pods(BENCH_NAMESPACE, appName(i))[0]?.templateHash ?? ''] as const));
      const duringCores = measureCores(parts);
      const during = Promise.all([runWrk(load), runWrk(directLoad)]);
      await sleep(ROLL_DELAY_MS);
      const rollStart = performance.now();
      for (let i = 0; i < params.apps; i++) {
        cluster.api.store.patch('deployments.apps', BENCH_NAMESPACE, appName(i), 'merge', { spec: { template: { metadata: { annotations: { 'bench/rolled-at': `${round}-${Date.now()}` } } } } });
      }
      await waitUntil('every rollout to finish', async () => (settled(sim, params.apps, params.replicas, oldHashes) ? true : undefined), (params.seconds + 20) * 1000, 20);
      const rollMs = performance.now() - rollStart;
      const [wrk, directDuring] = await during;
      const coresDuring = duringCores();
      const reloads = live.reloads() - reloadsBefore;
      ctx.log(`round ${round}: rolled ${params.apps} apps in ${rollMs.toFixed(0)} ms: ${errorCount(wrk)} failed requests, ${reloads} reloads, p99 ${latencyAt(before, 99).toFixed(2)} ms before, ${latencyAt(wrk, 99).toFixed(2)} ms during; straight to a pod not rolled ${latencyAt(directBefore, 99).toFixed(2)} → ${latencyAt(directDuring, 99).toFixed(2)} ms`);
      rounds.push({ before, during: wrk, direct: { before: directBefore, during: directDuring }, reloads, rollMs, cores: { before: coresBefore, during: coresDuring } });
    }
    const m = (pick: (r: RollRound) => number): number => median(rounds.map(pick));
    const sum = (pick: (r: RollRound) => number): number => rounds.reduce((n, r) => n + pick(r), 0);
    const windowMs = params.seconds * 1000 - ROLL_DELAY_MS;
    const p99 = { before: m((r) => latencyAt(r.before, 99)), during: m((r) => latencyAt(r.during, 99)) };
    const directP99 = { before: m((r) => latencyAt(r.direct.before, 99)), during: m((r) => latencyAt(r.direct.during, 99)) };
    const last = rounds.at(-1);
    return {
      id: 'rolling',
      title: `Rolling deploys: ${params.apps} apps rolled at once under steady load`,
      metrics: [
        metric('failed requests during the rolls', 'req', sum((r) => errorCount(r.during)), 0, 'none', { on: 'value', op: '==', target: 0 }),
        metric('NGINX reloads during the rolls', '', sum((r) => r.reloads), 0, 'none', { on: 'value', op: '==', target: 0 }),
        roundsMetric(P99_RISE, { rounds }),
        metric('latency p99 during vs before the roll (medians of rounds)', 'ms', p99.during, p99.before, 'before'),
        metric('environment: p99 straight to a pod not rolled (no ingress), during vs before', 'ms', directP99.during, directP99.before, 'before'),
        metric('p99 rise through the ingress vs the environment\'s rise (the ratio: what the ingress adds)', '×',
          p99.during / p99.before, directP99.during / directP99.before, 'environment'),
        metric('requests/s during vs before the roll', 'req/s', m((r) => r.during.requestsPerSecond), m((r) => r.before.requestsPerSecond), 'before'),
        metric('steady load (before the roll) vs the saturated rate', 'req/s', m((r) => r.before.requestsPerSecond), saturated.requestsPerSecond, 'saturated (no pause)'),
        metric('time for every rollout to finish', 's', m((r) => r.rollMs) / 1000, windowMs / 1000, 'rest of the window'),
      ],
      notes: [
        `failed requests by kind: ${JSON.stringify(rounds.map((r) => r.during.errors))}`,
        `${params.rounds} rounds of a ${params.seconds} s window before and a ${params.seconds} s window during the roll (it starts ${ROLL_DELAY_MS} ms in), medians of rounds; per-round p99 ms before/during: ${rounds.map((r) => `${latencyAt(r.before, 99).toFixed(2)}/${latencyAt(r.during, 99).toFixed(2)}`).join(', ')}`,
        `the environment row: 2 connections, same pause, straight to the pod of one more app that never rolls; its rise is the simulated machine's (pods, API server, simulator and ingress on 2 cores), not a path through the ingress; per-round p99 ms before/during: ${rounds.map((r) => `${latencyAt(r.direct.before, 99).toFixed(2)}/${latencyAt(r.direct.during, 99).toFixed(2)}`).join(', ')}`,
        `rolls that outlasted their window (its p99 misses the rest of the roll): ${rounds.filter((r) => r.rollMs > windowMs).length} of ${rounds.length}`,
        `CPU cores used before → during the roll (medians): ${PARTS.map((part) => `${part} ${m((r) => r.cores.before[part]).toFixed(2)} → ${m((r) => r.cores.during[part]).toFixed(2)}`).join(', ')}; wrk and the kernel: the rest of 2 cores`,
        `${params.replicas} replicas per app (maxSurge 1, maxUnavailable 0), simulator pods = node echo servers in ${POD_PROCESSES} processes by app and one for the app that never rolls (not the bench process); wrk ${LOAD_CONNECTIONS} connections over ${params.apps} hosts, each pausing ${pauseMs} ms between requests (aimed at ${STEADY_FRACTION} of the saturated rate, ${Math.round(saturated.requestsPerSecond)} req/s)`,
      ],
      distributions: last ? [toDistribution('before the roll', last.before), toDistribution('during the roll', last.during)] : [],
      raw: { rounds, saturated },
    };
  } finally {
    await controller?.stop();
    await simulator?.stop();
    await Promise.all(echoHosts.map((host) => host.stop()));
    await cluster.stop();
  }
}

export const rollingDeploysBenchmark: Benchmark = { id: 'rolling', title: 'Rolling deploys', run: runRolling };
