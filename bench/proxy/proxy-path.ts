// Benchmark 1, the proxy path: our rendered NGINX (Lua balancer, annotations)
// against the same NGINX with a native `upstream {}` to the same backends.
// One worker each, pinned to the server CPU; wrk and the backends on the
// other. Rounds interleave ours / native; CPU per request comes from the
// worker's /proc/<pid>/schedstat over the round ÷ requests. A last run with
// jit.v proves (or not) that the hot Lua is compiled.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dynamicBackends } from '../../controller/src/diff/decide.ts';
import { postBackends, getStatus } from '../../controller/src/nginx/lua-client.ts';
import { repoRoot } from '../../controller/src/nginx/dataplane.ts';
import type { Model } from '../../controller/src/model/types.ts';
import { createConfigRenderer, defaultCertificatePaths } from '../../controller/src/render/index.ts';
import { writeSelfSignedDefault } from '../../controller/src/tls/default-certificate.ts';
import { loopbackAddresses, startBackends } from '../lib/backends.ts';
import { byProfile, type BenchContext, type Benchmark, type Profile } from '../lib/context.ts';
import { cpuTimeNs, startNginxInstance, type NginxInstance } from '../lib/nginx-instance.ts';
import { freePort, waitUntil } from '../lib/ports.ts';
import { metric, type BenchResult } from '../lib/report.ts';
import { median } from '../lib/stats.ts';
import { errorCount, latencyAt, runWrk, toDistribution, type WrkResult } from '../lib/wrk.ts';
import { describeJit, PHASES, readJitTrace } from './jit-trace.ts';
import { BENCH_HOST, buildProxyModel } from './proxy-model.ts';
import { activeFeatures, nativeReferenceConf, withJitTrace, withoutLuaPhase, type Peer } from './reference-conf.ts';

interface ProxyParams {
  readonly rounds: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly jitSeconds: number;
  readonly connections: number;
}

const PARAMS: Record<Profile, ProxyParams> = {
  full: { rounds: 4, seconds: 6, warmupSeconds: 2, jitSeconds: 5, connections: 50 },
  quick: { rounds: 2, seconds: 3, warmupSeconds: 1, jitSeconds: 4, connections: 50 },
  smoke: { rounds: 1, seconds: 1, warmupSeconds: 1, jitSeconds: 1, connections: 8 },
};

const BACKEND_ADDRESSES = 4;
const FIRST_BACKEND = '127.0.91.1';

/** ours, the native reference, and ours minus one Lua phase (to price each phase). */
type SideLabel = 'ours' | 'native' | 'ours-no-log' | 'ours-no-rewrite';

interface Side {
  readonly label: SideLabel;
  readonly nginx: NginxInstance;
  readonly port: number;
}

interface Round {
  readonly side: SideLabel;
  readonly wrk: WrkResult;
  readonly cpuUsPerRequest: number;
}

type Transform = (conf: string, prefix: string) => string;

async function startSide(ctx: BenchContext, model: Model, name: string, transform: Transform, lua: boolean): Promise<{ nginx: NginxInstance; port: number; conf: string }> {
  const prefix = join(ctx.workDir, name);
  const [port, httpsPort, statusPort] = [await freePort(), await freePort(), await freePort()];
  // As users run it: an HTTPS listener, so every plain-HTTP request goes through the ssl-redirect check.
  writeSelfSignedDefault(defaultCertificatePaths(prefix));
  const renderer = createConfigRenderer({
    templateDir: join(repoRoot(), 'rootfs/etc/nginx/template'),
    prefix, listenAddress: '127.0.0.1', httpPort: port, httpsPort, statusPort, workerProcesses: 1, dataplane: ctx.dataplane,
  });
  const conf = transform(renderer.render(model).conf, prefix);
  const statusUrl = `http://127.0.0.1:${statusPort}`;
  const nginx = await startNginxInstance({ dataplane: ctx.dataplane, prefix, conf, readyUrl: `${statusUrl}/healthz`, cpu: ctx.serverCpu });
  if (lua) {
    const version = await postBackends(statusUrl, dynamicBackends(model));
    await waitUntil('workers to apply the backends', async () => {
      const status = await getStatus(statusUrl);
      const applied = Object.values(status.workers);
      return applied.length > 0 && applied.every((v) => v >= version) ? true : undefined;
    }, 5000, 5).catch(async (err: unknown) => {
      const log = nginx.errorLog().slice(-1000);
      await nginx.stop();
      throw new Error(`${(err as Error).message}; error.log: ${log}`);
    });
  }
  return { nginx, port, conf };
}

async function measure(ctx: BenchContext, side: Side, seconds: number, connections: number): Promise<Round> {
  const workers = side.nginx.workerPids();
  const cpu = (): number => workers.reduce((sum, pid) => sum + cpuTimeNs(pid), 0);
  const before = cpu();
  const wrk = await runWrk({ url: `http://127.0.0.1:${side.port}/`, hosts: [BENCH_HOST], durationSeconds: seconds, connections, cpu: ctx.loadCpu });
  const usedNs = cpu() - before;
  return { side: side.label, wrk, cpuUsPerRequest: wrk.requests > 0 ? usedNs / 1000 / wrk.requests : Number.NaN };
}

async function jitRun(ctx: BenchContext, model: Model, seconds: number, connections: number): Promise<string> {
  const traceFile = join(ctx.workDir, 'jit-v.txt');
  // Workers drop to an unprivileged user when NGINX starts as root: let them write the trace.
  chmodSync(ctx.workDir, 0o755);
  writeFileSync(traceFile, '');
  chmodSync(traceFile, 0o666);
  const luajitShare = ctx.dataplane.luaPackagePath.split(';').find((p) => p.includes('/usr/share/lua/5.1/'))
    ?.replace(/\/usr\/share\/lua\/5\.1\/.*$/, '/usr/share/luajit-2.1') ?? '/usr/share/luajit-2.1';
  const side = await startSide(ctx, model, 'jit', (conf) => withJitTrace(conf, luajitShare, traceFile), true);
  try {
    await runWrk({ url: `http://127.0.0.1:${side.port}/`, hosts: [BENCH_HOST], durationSeconds: seconds, connections, cpu: ctx.loadCpu });
  } finally {
    await side.nginx.stop();
  }
  return readFileSync(traceFile, 'utf8');
}

function medianOf(rounds: readonly Round[], side: SideLabel, pick: (r: Round) => number): number {
  return median(rounds.filter((r) => r.side === side).map(pick));
}

async function runProxyPath(ctx: BenchContext): Promise<BenchResult> {
  const params = byProfile(ctx, PARAMS);
  const backendPort = await freePort();
  const addresses = loopbackAddresses(FIRST_BACKEND, BACKEND_ADDRESSES);
  const peers: Peer[] = addresses.map((address) => ({ address, port: backendPort }));
  const { model } = buildProxyModel(peers);
  const backends = await startBackends(ctx.dataplane, ctx.workDir, addresses, backendPort, ctx.loadCpu);
  const started: NginxInstance[] = [backends.nginx];
  try {
    const ours = await startSide(ctx, model, 'ours', (conf) => conf, true);
    started.push(ours.nginx);
    const native = await startSide(ctx, model, 'native', (conf) => nativeReferenceConf(conf, peers), false);
    started.push(native.nginx);
    const noLog = await startSide(ctx, model, 'ours-no-log', (conf) => withoutLuaPhase(conf, 'log'), true);
    started.push(noLog.nginx);
    const noRewrite = await startSide(ctx, model, 'ours-no-rewrite', (conf) => withoutLuaPhase(conf, 'rewrite'), true);
    started.push(noRewrite.nginx);
    const sides: Side[] = [
      { label: 'ours', ...ours }, { label: 'native', ...native },
      { label: 'ours-no-log', ...noLog }, { label: 'ours-no-rewrite', ...noRewrite },
    ];
    for (const side of sides) await measure(ctx, side, params.warmupSeconds, params.connections);
    const rounds: Round[] = [];
    for (let i = 0; i < params.rounds; i++) {
      for (const side of sides) {
        const round = await measure(ctx, side, params.seconds, params.connections);
        ctx.log(`proxy round ${i + 1} ${side.label}: ${Math.round(round.wrk.requestsPerSecond)} req/s, ${round.cpuUsPerRequest.toFixed(2)} µs CPU/req`);
        rounds.push(round);
      }
    }
    for (const side of sides) await side.nginx.stop();
    const jitOutput = await jitRun(ctx, model, params.jitSeconds, params.connections);
    const jit = readJitTrace(jitOutput, readFileSync(join(repoRoot(), 'lua/resty_ingress/balancer.lua'), 'utf8'));
    const compiledPhases = PHASES.filter((p) => jit[p].compiled > 0).length;
    const m = (side: SideLabel, pick: (r: Round) => number): number => medianOf(rounds, side, pick);
    const perCore = (r: Round): number => 1e6 / r.cpuUsPerRequest;
    const cpuOf = (side: SideLabel): number => m(side, (r) => r.cpuUsPerRequest);
    const last = (side: SideLabel): Round | undefined => rounds.filter((r) => r.side === side).at(-1);
    return {
      id: 'proxy',
      title: 'Proxy path: resty-ingress NGINX vs the same NGINX with a native upstream {}',
      metrics: [
        metric('requests/s', 'req/s', m('ours', (r) => r.wrk.requestsPerSecond), m('native', (r) => r.wrk.requestsPerSecond), 'native'),
        metric('requests per core-second (1 ÷ proxy CPU)', 'req/s', m('ours', perCore), m('native', perCore), 'native', { on: 'ratio', op: '>=', target: 0.9 }),
        metric('proxy CPU per request', 'µs', m('ours', (r) => r.cpuUsPerRequest), m('native', (r) => r.cpuUsPerRequest), 'native'),
        metric('µs/request of the Lua log phase (metrics)', 'µs', cpuOf('ours') - cpuOf('ours-no-log'), cpuOf('ours') - cpuOf('native'), 'all Lua'),
        metric('µs/request of the Lua rewrite phase', 'µs', cpuOf('ours') - cpuOf('ours-no-rewrite'), cpuOf('ours') - cpuOf('native'), 'all Lua'),
        metric('latency p50', 'ms', m('ours', (r) => latencyAt(r.wrk, 50)), m('native', (r) => latencyAt(r.wrk, 50)), 'native'),
        metric('latency p99', 'ms', m('ours', (r) => latencyAt(r.wrk, 99)), m('native', (r) => latencyAt(r.wrk, 99)), 'native', { on: 'ratio', op: '<=', target: 1.2 }),
        metric('failed requests', 'req', rounds.filter((r) => r.side === 'ours').reduce((n, r) => n + errorCount(r.wrk), 0), 0, 'none', { on: 'value', op: '==', target: 0 }),
        metric('request-path phases JIT-compiled', 'of 3', compiledPhases, PHASES.length, 'all', { on: 'value', op: '==', target: PHASES.length }),
      ],
      notes: [
        `features active: ${activeFeatures(ours.conf).join(', ')}`,
        `compiled traces for ${describeJit(jit)} (jit.v, ${params.jitSeconds} s run)`,
        `${params.rounds} interleaved rounds × ${params.seconds} s, ${params.connections} connections, ${BACKEND_ADDRESSES} backends, medians shown; CPU: server ${ctx.serverCpu ?? 'unpinned'}, load+backends ${ctx.loadCpu ?? 'unpinned'}`,
      ],
      distributions: [last('ours'), last('native')].flatMap((r) => (r ? [toDistribution(r.side, r.wrk)] : [])),
      raw: { rounds, jit, jitTrace: jitOutput.split('\n').slice(0, 300) },
    };
  } finally {
    for (const nginx of started.reverse()) await nginx.stop();
  }
}

export const proxyPathBenchmark: Benchmark = { id: 'proxy', title: 'Proxy path', run: runProxyPath };
