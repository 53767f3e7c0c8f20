// Benchmark 3, rolling deploys: 20 apps run by the simulator (pods are echo
// servers on loopback addresses, in one child process), the real controller
// in front, steady wrk load over all 20 hosts; then every Deployment rolls at once. Measures
// failed requests, reloads and p99 during the roll against the same load
// just before it (the reference).
import { KubeConfig } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEchoHost } from '../../e2e/cluster/echo/echo-host.ts';
import { startSimulator, type Simulator } from '../../e2e/cluster/simulator/index.ts';
import { byProfile, type BenchContext, type Benchmark, type Profile } from '../lib/context.ts';
import { startControllerProcess, type ControllerProcess } from '../lib/controller-process.ts';
import { probe } from '../lib/http-probe.ts';
import { startLocalCluster, type LocalCluster } from '../lib/local-cluster.ts';
import { waitUntil } from '../lib/ports.ts';
import { metric, type BenchResult } from '../lib/report.ts';
import { appHost, appIngress, appName, asJson, BENCH_NAMESPACE } from '../lib/synthetic-cluster.ts';
import { errorCount, latencyAt, runWrk, toDistribution } from '../lib/wrk.ts';

interface RollingParams {
  readonly apps: number;
  readonly replicas: number;
  readonly seconds: number;
}

const PARAMS: Record<Profile, RollingParams> = {
  full: { apps: 20, replicas: 3, seconds: 15 },
  quick: { apps: 20, replicas: 2, seconds: 8 },
  smoke: { apps: 2, replicas: 1, seconds: 2 },
};

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
  const echoHost = await startEchoHost();
  let simulator: Simulator | null = null;
  let controller: ControllerProcess | null = null;
  try {
    const sim = await startSimulator({ kc, addressPool: '127.0.94.0/24', maxGraceMs: 1000, startServer: echoHost.startServer });
    simulator = sim;
    cluster.api.store.create('ingressclasses.networking.k8s.io', { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'resty' }, spec: { controller: 'resty-ingress.dev/controller' } });
    for (let i = 0; i < params.apps; i++) createApp(cluster, i, params.replicas);
    await waitUntil('the apps\' pods', async () => (settled(sim, params.apps, params.replicas, new Map()) ? true : undefined), 30_000, 50);
    controller = await startControllerProcess({ kubeconfigPath: cluster.kubeconfigPath, workDir: ctx.workDir });
    const live = controller;
    const hosts = Array.from({ length: params.apps }, (_, i) => appHost(i));
    for (const host of hosts) await waitUntil(`${host} to serve`, async () => ((await probe('127.0.0.1', live.httpPort, host)).status === 200 ? true : undefined), 20_000, 20);
    const load = { url: `http://127.0.0.1:${live.httpPort}/`, hosts, durationSeconds: params.seconds, connections: 20, cpu: ctx.loadCpu };
    const before = await runWrk(load);
    const reloadsBefore = live.reloads();
    const oldHashes = new Map(Array.from({ length: params.apps }, (_, i) => [appName(i), sim.pods(BENCH_NAMESPACE, appName(i))[0]?.templateHash ?? ''] as const));
    const during = runWrk(load);
    await sleep(500);
    const rollStart = performance.now();
    for (let i = 0; i < params.apps; i++) {
      cluster.api.store.patch('deployments.apps', BENCH_NAMESPACE, appName(i), 'merge', { spec: { template: { metadata: { annotations: { 'bench/rolled-at': new Date().toISOString() } } } } });
    }
    await waitUntil('every rollout to finish', async () => (settled(sim, params.apps, params.replicas, oldHashes) ? true : undefined), (params.seconds + 20) * 1000, 50);
    const rollMs = performance.now() - rollStart;
    const wrk = await during;
    const reloads = live.reloads() - reloadsBefore;
    ctx.log(`rolled ${params.apps} apps in ${rollMs.toFixed(0)} ms: ${errorCount(wrk)} failed requests, ${reloads} reloads`);
    return {
      id: 'rolling',
      title: `Rolling deploys: ${params.apps} apps rolled at once under steady load`,
      metrics: [
        metric('failed requests during the roll', 'req', errorCount(wrk), 0, 'none', { on: 'value', op: '==', target: 0 }),
        metric('NGINX reloads during the roll', '', reloads, 0, 'none', { on: 'value', op: '==', target: 0 }),
        metric('latency p99 during vs before the roll', 'ms', latencyAt(wrk, 99), latencyAt(before, 99), 'before', { on: 'ratio', op: '<', target: 1.5 }),
        metric('requests/s during vs before the roll', 'req/s', wrk.requestsPerSecond, before.requestsPerSecond, 'before'),
        metric('time for every rollout to finish', 's', rollMs / 1000, null, '—'),
      ],
      notes: [`failed requests by kind: ${JSON.stringify(wrk.errors)}`, `${params.replicas} replicas per app (maxSurge 1, maxUnavailable 0), simulator pods = node echo servers in one separate process (not the bench process); wrk ${params.seconds} s, 20 connections over ${params.apps} hosts`],
      distributions: [toDistribution('before the roll', before), toDistribution('during the roll', wrk)],
      raw: { before, during: wrk, reloads, rollMs },
    };
  } finally {
    await controller?.stop();
    await simulator?.stop();
    await echoHost.stop();
    await cluster.stop();
  }
}

export const rollingDeploysBenchmark: Benchmark = { id: 'rolling', title: 'Rolling deploys', run: runRolling };
