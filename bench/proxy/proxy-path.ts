// Benchmark 1, the proxy path: our rendered NGINX (Lua balancer with the
// ssl-redirect check, metrics log, annotations) against the same NGINX with
// a native `upstream {}` to the same backends, no Lua and no metrics log.
// Two ablations of ours price one piece each: without the metrics log, and
// without the redirect check. One worker each, pinned to the server CPU; wrk
// and the backends on the other. Rounds interleave the sides, each side on a
// fresh NGINX every round; CPU per request comes from the worker's
// /proc/<pid>/schedstat over the round ÷ requests. Then the controller's side
// of the metrics: parsing the log ours wrote. A last run with jit.v proves
// (or not) that the hot Lua is compiled.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../controller/src/nginx/dataplane.ts';
import type { Model } from '../../controller/src/model/types.ts';
import { metricsLogPath } from '../../controller/src/render/render-options.ts';
import { loopbackAddresses, startBackends } from '../lib/backends.ts';
import { byProfile, type BenchContext, type Benchmark, type Profile } from '../lib/context.ts';
import type { NginxInstance } from '../lib/nginx-instance.ts';
import { freePort } from '../lib/ports.ts';
import { metric, type BenchResult } from '../lib/report.ts';
import { median } from '../lib/stats.ts';
import { errorCount, latencyAt, runWrk, toDistribution } from '../lib/wrk.ts';
import { describeJit, readJitTrace, REQUEST_PATH_FILES, requestPathPhases } from './jit-trace.ts';
import { measureMetricsParseCost } from './metrics-parse-cost.ts';
import { BENCH_HOST, buildProxyModel } from './proxy-model.ts';
import { measure, startSide, type Round, type StartedSide } from './proxy-side.ts';
import { activeFeatures, nativeReferenceConf, withJitTrace, withoutMetricsLog, withoutRedirectCheck, type Peer } from './reference-conf.ts';

interface ProxyParams {
  readonly rounds: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly jitSeconds: number;
  readonly connections: number;
}

const PARAMS: Record<Profile, ProxyParams> = {
  full: { rounds: 8, seconds: 5, warmupSeconds: 1, jitSeconds: 5, connections: 50 },
  quick: { rounds: 2, seconds: 3, warmupSeconds: 1, jitSeconds: 4, connections: 50 },
  smoke: { rounds: 1, seconds: 1, warmupSeconds: 1, jitSeconds: 1, connections: 8 },
};

const BACKEND_ADDRESSES = 4;
const FIRST_BACKEND = '127.0.91.1';

/** ours, the native reference, and ours minus one piece (to price that piece). */
type SideLabel = 'ours' | 'native' | 'ours-no-metrics' | 'ours-no-redirect-check';

interface SideSpec {
  readonly label: SideLabel;
  readonly transform: (conf: string) => string;
  readonly lua: boolean;
}

function sideSpecs(peers: readonly Peer[]): SideSpec[] {
  return [
    { label: 'ours', transform: (conf) => conf, lua: true },
    { label: 'native', transform: (conf) => nativeReferenceConf(conf, peers), lua: false },
    { label: 'ours-no-metrics', transform: withoutMetricsLog, lua: true },
    { label: 'ours-no-redirect-check', transform: withoutRedirectCheck, lua: true },
  ];
}

async function jitRun(ctx: BenchContext, model: Model, seconds: number, connections: number): Promise<string> {
  const traceFile = join(ctx.workDir, 'jit-v.txt');
  // Workers drop to an unprivileged user when NGINX starts as root: let them write the trace.
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

function requestPathSources(): Record<string, string> {
  return Object.fromEntries(REQUEST_PATH_FILES.map((file) => [file, readFileSync(join(repoRoot(), 'lua/resty_ingress', file), 'utf8')]));
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
    const rounds: Round<SideLabel>[] = [];
    let ours: StartedSide | null = null;
    for (let i = 0; i < params.rounds; i++) {
      for (const spec of sideSpecs(peers)) {
        // A fresh NGINX per side and round: each process's memory layout makes it a few
        // percent faster or slower for its whole life, which one process per side would
        // turn into a bias of the whole run (the ratio swung 0.87-0.91 between runs).
        const side = await startSide(ctx, model, spec.label, spec.transform, spec.lua);
        started.push(side.nginx);
        try {
          await measure(ctx, spec.label, side, params.warmupSeconds, params.connections);
          const round = await measure(ctx, spec.label, side, params.seconds, params.connections);
          ctx.log(`proxy round ${i + 1} ${spec.label}: ${Math.round(round.wrk.requestsPerSecond)} req/s, ${round.cpuUsPerRequest.toFixed(2)} µs CPU/req`);
          rounds.push(round);
        } finally {
          // Stopping flushes what the workers still buffer into the metrics log.
          await side.nginx.stop();
        }
        if (spec.label === 'ours') ours = side;
      }
    }
    const m = (side: SideLabel, pick: (r: Round) => number): number => median(rounds.filter((r) => r.side === side).map(pick));
    if (ours === null) throw new Error('proxy-path: no round of ours ran');
    const parse = measureMetricsParseCost(metricsLogPath(ours.nginx.prefix), m('ours', (r) => r.wrk.requestsPerSecond));
    ctx.log(`metrics log of ours: ${parse.lines} lines, ${parse.cpuUsPerLine.toFixed(3)} µs controller CPU/line`);
    const jitOutput = await jitRun(ctx, model, params.jitSeconds, params.connections);
    const jit = readJitTrace(jitOutput, requestPathSources());
    const phases = requestPathPhases(ours.conf);
    const compiledPhases = phases.filter((p) => jit[p].compiled > 0).length;
    const perCore = (r: Round): number => 1e6 / r.cpuUsPerRequest;
    const cpuOf = (side: SideLabel): number => m(side, (r) => r.cpuUsPerRequest);
    const last = (side: SideLabel): Round | undefined => rounds.filter((r) => r.side === side).at(-1);
    const certificateHosts = model.tls.hosts.map((h) => h.host);
    return {
      id: 'proxy',
      title: 'Proxy path: resty-ingress NGINX vs the same NGINX with a native upstream {}',
      metrics: [
        metric('requests/s', 'req/s', m('ours', (r) => r.wrk.requestsPerSecond), m('native', (r) => r.wrk.requestsPerSecond), 'native'),
        metric('requests per core-second (1 ÷ proxy CPU)', 'req/s', m('ours', perCore), m('native', perCore), 'native', { on: 'ratio', op: '>=', target: 0.9 }),
        metric('proxy CPU per request', 'µs', cpuOf('ours'), cpuOf('native'), 'native'),
        metric('µs/request of request metrics (NGINX metrics log)', 'µs', cpuOf('ours') - cpuOf('ours-no-metrics'), cpuOf('ours') - cpuOf('native'), 'ours − native'),
        metric('µs/request of the ssl-redirect check', 'µs', cpuOf('ours') - cpuOf('ours-no-redirect-check'), cpuOf('ours') - cpuOf('native'), 'ours − native'),
        metric('controller CPU per request to parse metrics lines', 'µs', parse.cpuUsPerLine, cpuOf('ours'), 'NGINX worker µs/request of ours'),
        metric('latency p50', 'ms', m('ours', (r) => latencyAt(r.wrk, 50)), m('native', (r) => latencyAt(r.wrk, 50)), 'native'),
        metric('latency p99', 'ms', m('ours', (r) => latencyAt(r.wrk, 99)), m('native', (r) => latencyAt(r.wrk, 99)), 'native', { on: 'ratio', op: '<=', target: 1.2 }),
        metric('failed requests', 'req', rounds.filter((r) => r.side === 'ours').reduce((n, r) => n + errorCount(r.wrk), 0), 0, 'none', { on: 'value', op: '==', target: 0 }),
        metric('request-path phases JIT-compiled', `of ${phases.length}`, compiledPhases, phases.length, 'all', { on: 'value', op: '==', target: phases.length }),
      ],
      notes: [
        `features active: ${activeFeatures(ours.conf, certificateHosts).join(', ')}`,
        `Lua request-path phases in the conf: ${phases.join(', ')}; compiled traces for ${describeJit(jit, phases)} (jit.v, ${params.jitSeconds} s run)`,
        `metrics log of ours: ${parse.lines} lines (${parse.malformed} malformed), replayed through the controller's parseMetricsLog + ingest in batches of one second of ours' traffic, median of ${parse.repetitions}`,
        `${params.rounds} interleaved rounds × ${params.seconds} s (each side a fresh NGINX per round, ${params.warmupSeconds} s warm-up), ${params.connections} connections, ${BACKEND_ADDRESSES} backends, medians shown; CPU: server ${ctx.serverCpu ?? 'unpinned'}, load+backends ${ctx.loadCpu ?? 'unpinned'}`,
      ],
      distributions: [last('ours'), last('native')].flatMap((r) => (r ? [toDistribution(r.side, r.wrk)] : [])),
      raw: { rounds, parse, jit, jitTrace: jitOutput.split('\n').slice(0, 300) },
    };
  } finally {
    for (const nginx of started.reverse()) await nginx.stop();
  }
}

export const proxyPathBenchmark: Benchmark = { id: 'proxy', title: 'Proxy path', run: runProxyPath };
