// Benchmark 1, the proxy path: our rendered NGINX (Lua balancer with the
// ssl-redirect check, metrics log, annotations) against the same NGINX with
// a native `upstream {}` to the same backends, no Lua and no metrics log.
// CPU time: one worker each, pinned to the server CPU; wrk and the backends
// on the other. Rounds interleave the two sides, each on a fresh NGINX every
// round; CPU per request comes from the worker's /proc/<pid>/schedstat over
// the round ÷ requests. Those rounds give requests/s and latency; the
// per-core and p99 goals are judged on rounds that serve both sides at once
// (cpu-at-once.ts), the only measure here steadier than the machine.
// Instructions: callgrind counts each side's user-space instructions per
// request, which do not move with the machine's noise, on the plain route and
// with a canary (by header, by weight) on it, and prices pieces of ours by
// ablation (without the metrics log, without the redirect check, with a
// minimal balancer in place of ours).
// Then the controller's side of the metrics:
// parsing the log ours wrote. A last run with jit.v proves (or not) that the
// hot Lua is compiled.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../controller/src/nginx/dataplane.ts';
import type { Model } from '../../controller/src/model/types.ts';
import { metricsLogPath } from '../../controller/src/render/render-options.ts';
import { byProfile, type BenchContext, type Benchmark, type Profile } from '../lib/context.ts';
import type { NginxInstance } from '../lib/nginx-instance.ts';
import { metric, type BenchResult } from '../lib/report.ts';
import { roundsMetric } from '../lib/rounds-goal.ts';
import { median, medianInterval, pairedRatios } from '../lib/stats.ts';
import { errorCount, latencyAt, runWrk, toDistribution } from '../lib/wrk.ts';
import { atOnceLatency, atOnceRounds, P99_AT_ONCE, PER_CORE_AT_ONCE, type AtOnceRound } from './cpu-at-once.ts';
import { hasCallgrind, type InstructionCount, type InstructionWindows } from './instruction-count.ts';
import { accessRows, canaryRows, countRuns, instructionRuns } from './instruction-rows.ts';
import { describeJit, readJitTrace, REQUEST_PATH_FILES, requestPathPhases } from './jit-trace.ts';
import { measureMetricsParseCost } from './metrics-parse-cost.ts';
import { BENCH_HOST, BENCH_ROUTES, buildProxyModel, type BenchRoute } from './proxy-model.ts';
import { BACKEND_ADDRESSES, measure, startProxyBackends, startSide, type Round, type StartedSide } from './proxy-side.ts';
import { activeFeatures, sideSpecs, withJitTrace, type Peer, type SideLabel, type SideSpec } from './reference-conf.ts';

interface ProxyParams {
  readonly rounds: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly jitSeconds: number;
  readonly connections: number;
  /** Rounds of ours and native served at once (the per-core goal), and of native with itself (the control). */
  readonly atOnce: { readonly rounds: number; readonly controlRounds: number; readonly seconds: number };
  /** The callgrind runs: which sides get one on the plain route (ours and native always), and the routes ours and native get one on. */
  readonly instructions: InstructionWindows & { readonly sides: readonly SideLabel[]; readonly routes: readonly BenchRoute[] };
}

const ALL_SIDES: readonly SideLabel[] = ['ours', 'native', 'ours-no-metrics', 'ours-no-redirect-check', 'ours-minimal-balancer'];
const SMOKE_ROUTES: readonly BenchRoute[] = ['plain', 'canary-by-header'];
const PARAMS: Record<Profile, ProxyParams> = {
  full: {
    rounds: 12, seconds: 5, warmupSeconds: 1, jitSeconds: 5, connections: 50,
    // 12 rounds: the median's 96 % interval drops the two outermost rounds each side (8: min–max).
    atOnce: { rounds: 12, controlRounds: 3, seconds: 5 },
    instructions: { sides: ALL_SIDES, routes: BENCH_ROUTES, warmupSeconds: 2, idleSeconds: 2, seconds: 8, connections: 4 },
  },
  quick: {
    rounds: 2, seconds: 3, warmupSeconds: 1, jitSeconds: 4, connections: 50,
    atOnce: { rounds: 3, controlRounds: 0, seconds: 3 },
    // The ablations are the full profile's: each callgrind side costs ~10 s.
    instructions: { sides: ['ours', 'native'], routes: BENCH_ROUTES, warmupSeconds: 1, idleSeconds: 1, seconds: 3, connections: 4 },
  },
  smoke: {
    rounds: 1, seconds: 1, warmupSeconds: 1, jitSeconds: 1, connections: 8,
    atOnce: { rounds: 1, controlRounds: 1, seconds: 1 },
    // The plain route and one canary split, not every route: each callgrind run costs ~10 s idle and
    // ~20 s on a loaded machine; the other rows' logic has unit tests, and quick/full measure them.
    instructions: { sides: ['ours', 'native'], routes: SMOKE_ROUTES, warmupSeconds: 1, idleSeconds: 1, seconds: 1, connections: 2 },
  },
};

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

/** Interleaved CPU-time rounds of ours and native; returns them and the last started side of ours. */
async function cpuRounds(ctx: BenchContext, params: ProxyParams, model: Model, peers: readonly Peer[], started: NginxInstance[]): Promise<{ rounds: Round<SideLabel>[]; ours: StartedSide }> {
  const rounds: Round<SideLabel>[] = [];
  let ours: StartedSide | null = null;
  const specs = sideSpecs(peers).filter((spec) => spec.label === 'ours' || spec.label === 'native');
  for (let i = 0; i < params.rounds; i++) {
    for (const spec of specs) {
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
  if (ours === null) throw new Error('proxy-path: no round of ours ran');
  return { rounds, ours };
}

/** Callgrind counts of the profile's runs, by run name (instruction-rows.ts); empty without valgrind. */
async function instructionCounts(ctx: BenchContext, params: ProxyParams, modelOf: (route: BenchRoute) => Model, peers: readonly Peer[]): Promise<Map<string, InstructionCount>> {
  if (!hasCallgrind()) return new Map();
  const specs = sideSpecs(peers);
  return countRuns(ctx, params.instructions, instructionRuns(params.instructions.sides, params.instructions.routes),
    (side) => specs.find((s) => s.label === side) as SideSpec, modelOf);
}

async function runProxyPath(ctx: BenchContext): Promise<BenchResult> {
  const params = byProfile(ctx, PARAMS);
  const { peers, model, backends } = await startProxyBackends(ctx);
  const started: NginxInstance[] = [backends.nginx];
  try {
    const { rounds, ours } = await cpuRounds(ctx, params, model, peers, started);
    const specs = sideSpecs(peers);
    const spec = (label: SideLabel): SideSpec => specs.find((s) => s.label === label) as SideSpec;
    const atOnce = { ...params.atOnce, warmupSeconds: params.warmupSeconds, connections: params.connections };
    const together = await atOnceRounds(ctx, model, spec('ours'), spec('native'), atOnce, params.atOnce.rounds);
    const control = await atOnceRounds(ctx, model, spec('native'), spec('native'), atOnce, params.atOnce.controlRounds);
    const ratiosOf = (list: readonly AtOnceRound[]): number[] => PER_CORE_AT_ONCE.rounds({ atOnce: list });
    const spread = (list: readonly AtOnceRound[]): string => `${ratiosOf(list).map((r) => r.toFixed(3)).join(', ')} (median ${median(ratiosOf(list)).toFixed(3)}, range ${Math.min(...ratiosOf(list)).toFixed(3)}–${Math.max(...ratiosOf(list)).toFixed(3)})`;
    const atOnceP99 = P99_AT_ONCE.rounds({ atOnce: together });
    const m = (side: SideLabel, pick: (r: Round) => number): number => median(rounds.filter((r) => r.side === side).map(pick));
    const parse = measureMetricsParseCost(metricsLogPath(ours.nginx.prefix), m('ours', (r) => r.wrk.requestsPerSecond));
    ctx.log(`metrics log of ours: ${parse.lines} lines, ${parse.cpuUsPerLine.toFixed(3)} µs controller CPU/line`);
    // The plain route's model, or the same with one of the fixture's canaries on wrk's location.
    const models = Object.fromEntries(BENCH_ROUTES.map((route) => [route, route === 'plain' ? model : buildProxyModel(peers, route).model])) as Record<BenchRoute, Model>;
    const modelOf = (route: BenchRoute): Model => models[route];
    const instructions = await instructionCounts(ctx, params, modelOf, peers);
    const jitOutput = await jitRun(ctx, model, params.jitSeconds, params.connections);
    const jit = readJitTrace(jitOutput, requestPathSources());
    const phases = requestPathPhases(ours.conf);
    const compiledPhases = phases.filter((p) => jit[p].compiled > 0).length;
    const perCore = (r: Round): number => 1e6 / r.cpuUsPerRequest;
    const cpuOf = (side: SideLabel): number => m(side, (r) => r.cpuUsPerRequest);
    const ins = (side: SideLabel): number | null => instructions.get(side)?.perRequest ?? null;
    const canary = canaryRows(instructions, modelOf);
    const access = accessRows(instructions);
    const minus = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a - b);
    // Per round, native CPU ÷ ours: the two sides ran back to back.
    const cpuRoundsOf = (side: SideLabel): number[] => rounds.filter((r) => r.side === side).map((r) => r.cpuUsPerRequest);
    const pairs = pairedRatios(cpuRoundsOf('native'), cpuRoundsOf('ours'));
    // A round's p99 is where this machine's stalls land (3-19 ms in one run): ours ÷ native of
    // each back-to-back pair cancels the slow drift that a ratio of the two sides' medians keeps.
    const p99Of = (side: SideLabel): number[] => rounds.filter((r) => r.side === side).map((r) => latencyAt(r.wrk, 99));
    const p99Pairs = pairedRatios(p99Of('ours'), p99Of('native'));
    const last = (side: SideLabel): Round | undefined => rounds.filter((r) => r.side === side).at(-1);
    const certificateHosts = model.tls.hosts.map((h) => h.host);
    return {
      id: 'proxy',
      title: 'Proxy path: resty-ingress NGINX vs the same NGINX with a native upstream {}',
      metrics: [
        metric('requests/s', 'req/s', m('ours', (r) => r.wrk.requestsPerSecond), m('native', (r) => r.wrk.requestsPerSecond), 'native'),
        roundsMetric(PER_CORE_AT_ONCE, { atOnce: together }),
        ...(control.length === 0 ? [] : [metric('the same, native served at once with native (the instrument\'s error)', '×', median(ratiosOf(control)), 1, 'native')]),
        metric('requests per core-second, one side at a time (1 ÷ proxy CPU)', 'req/s', m('ours', perCore), m('native', perCore), 'native'),
        metric('proxy CPU per request', 'µs', cpuOf('ours'), cpuOf('native'), 'native'),
        metric('user-space instructions per request (callgrind)', 'instr', ins('ours'), ins('native'), 'native'),
        ...canary.metrics,
        ...access.metrics,
        metric('instructions/request of request metrics (NGINX metrics log)', 'instr', minus(ins('ours'), ins('ours-no-metrics')), minus(ins('ours'), ins('native')), 'ours − native'),
        metric('instructions/request of the ssl-redirect check', 'instr', minus(ins('ours'), ins('ours-no-redirect-check')), minus(ins('ours'), ins('native')), 'ours − native'),
        metric('instructions/request of our balancer above a minimal balancer_by_lua', 'instr', minus(ins('ours'), ins('ours-minimal-balancer')), minus(ins('ours'), ins('native')), 'ours − native'),
        metric('instructions/request of the rest (entering Lua, set_current_peer, the route\'s set)', 'instr',
          minus(minus(ins('ours-minimal-balancer'), ins('native')), minus(ins('ours'), ins('ours-no-metrics'))), minus(ins('ours'), ins('native')), 'ours − native'),
        metric('controller CPU per request to parse metrics lines', 'µs', parse.cpuUsPerLine, cpuOf('ours'), 'NGINX worker µs/request of ours'),
        metric('latency p50', 'ms', m('ours', (r) => latencyAt(r.wrk, 50)), m('native', (r) => latencyAt(r.wrk, 50)), 'native'),
        metric('latency p99', 'ms', m('ours', (r) => latencyAt(r.wrk, 99)), m('native', (r) => latencyAt(r.wrk, 99)), 'native'),
        roundsMetric(P99_AT_ONCE, { atOnce: together }),
        ...(control.length === 0 ? [] : [metric('latency p99, native served at once with native (the instrument\'s error)', '×', median(atOnceLatency(control, 99)), 1, 'native')]),
        metric('latency p50, served at once: ours ÷ native per round (median of rounds)', '×', median(atOnceLatency(together, 50)), 1, 'native'),
        metric('latency p99, ours ÷ native of each pair of back-to-back rounds (median)', '×', median(p99Pairs), 1, 'native', null, medianInterval(p99Pairs)),
        metric('failed requests', 'req', rounds.filter((r) => r.side === 'ours').reduce((n, r) => n + errorCount(r.wrk), 0), 0, 'none', { on: 'value', op: '==', target: 0 }),
        metric('request-path phases JIT-compiled', `of ${phases.length}`, compiledPhases, phases.length, 'all', { on: 'value', op: '==', target: phases.length }),
      ],
      notes: [
        `features active: ${activeFeatures(ours.conf, certificateHosts).join(', ')}`,
        `Lua request-path phases in the conf: ${phases.join(', ')}; compiled traces for ${describeJit(jit, phases)} (jit.v, ${params.jitSeconds} s run)`,
        `metrics log of ours: ${parse.lines} lines (${parse.malformed} malformed), replayed through the controller's parseMetricsLog + ingest in batches of one second of ours' traffic, median of ${parse.repetitions}`,
        `per-core ratio of each round served at once (${params.atOnce.seconds} s after ${params.warmupSeconds} s, ${params.connections / 2} connections each, both workers on the server CPU): ${spread(together)}${control.length === 0 ? '' : `; native with native: ${spread(control)}`}`,
        `${params.rounds} interleaved rounds × ${params.seconds} s (each side a fresh NGINX per round, ${params.warmupSeconds} s warm-up), ${params.connections} connections, ${BACKEND_ADDRESSES} backends, medians shown; CPU: server ${ctx.serverCpu ?? 'unpinned'}, load+backends ${ctx.loadCpu ?? 'unpinned'}`,
        `one side at a time, per-core ratio of each round's pair (native CPU ÷ ours): ${pairs.map((r) => r.toFixed(3)).join(', ')}; median ${median(pairs).toFixed(3)}, range ${Math.min(...pairs).toFixed(3)}–${Math.max(...pairs).toFixed(3)}: how far the machine's noise moves a measurement of one side at a time`,
        `latency p99 of each round served at once, ours/native ms: ${together.map((r) => `${latencyAt(r.measured.wrk, 99).toFixed(2)}/${latencyAt(r.reference.wrk, 99).toFixed(2)}`).join(', ')}; ratios ${atOnceP99.map((r) => r.toFixed(2)).join(', ')}${control.length === 0 ? '' : `; native with native: ${atOnceLatency(control, 99).map((r) => r.toFixed(2)).join(', ')}`}`,
        `latency p99 of each round's pair, ours/native ms: ${p99Of('ours').map((v, i) => `${v.toFixed(2)}/${(p99Of('native')[i] ?? Number.NaN).toFixed(2)}`).join(', ')}; ratios ${p99Pairs.map((r) => r.toFixed(2)).join(', ')}`,
        instructions.size === 0
          ? 'instruction rows: valgrind (callgrind) is not installed; `npm run setup` installs it'
          : `instructions: callgrind, one NGINX process per side, ${params.instructions.seconds} s of wrk (${params.instructions.connections} connections) after ${params.instructions.warmupSeconds} s warm-up, without expired timers (time-driven work) and minus the rest of the background rate of a ${params.instructions.idleSeconds} s idle window; user space only, the kernel is left out: ${[...instructions.entries()].map(([name, c]) => `${name} ${Math.round(c.perRequest)}`).join('; ')}`,
        ...canary.notes.map((note) => `canary split (metrics log of ours) ${note}`),
        ...access.notes.map((note) => `access rows: ${note}`),
      ],
      distributions: [last('ours'), last('native')].flatMap((r) => (r ? [toDistribution(r.side, r.wrk)] : [])),
      raw: { rounds, pairedRatios: pairs, p99PairedRatios: p99Pairs, atOnceP99Ratios: atOnceP99, atOnce: together, atOnceControl: control, instructions: [...instructions].map(([name, count]) => ({ name, ...count })), parse, jit, jitTrace: jitOutput.split('\n').slice(0, 300) },
    };
  } finally {
    for (const nginx of started.reverse()) await nginx.stop();
  }
}

export const proxyPathBenchmark: Benchmark = { id: 'proxy', title: 'Proxy path', run: runProxyPath };
