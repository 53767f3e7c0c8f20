// The proxy benchmark's per-core ratio with both sides served at once. One
// side at a time, back-to-back 5 s rounds of the same two NGINXes gave
// per-core ratios from 0.65 to 1.10 within one run: the other tenants of this
// machine change its speed from one window of seconds to the next. Served at
// once, the two workers share the server CPU over the same seconds, so that
// noise falls on both, and a round's ratio moved 0.86-0.93 over six full
// runs. A control round pairs the reference with itself; its ratio is the
// instrument's own error (0.96-1.03 over the same runs). What sharing a CPU
// costs each worker (its caches refilled after the other ran) falls on both
// sides too. The same rounds judge the p99 goal: a stall of the server CPU
// lands in both sides' tails, so a round's p99 ratio moved 0.93-1.28 where
// back-to-back rounds' moved 0.5-1.9.
import type { Model } from '../../controller/src/model/types.ts';
import type { BenchContext } from '../lib/context.ts';
import type { Goal } from '../lib/report.ts';
import type { RoundsGoal } from '../lib/rounds-goal.ts';
import { latencyAt } from '../lib/wrk.ts';
import { measureAtOnce, startSide, type Round, type StartedSide } from './proxy-side.ts';
import type { SideSpec } from './reference-conf.ts';

export interface AtOnceParams {
  /** Seconds of each round's measured window. */
  readonly seconds: number;
  /** Seconds of load before it (JIT, keepalive connections, caches). */
  readonly warmupSeconds: number;
  /** Connections of both wrk runs together (half each). */
  readonly connections: number;
}

export interface AtOnceRound {
  readonly measured: Round;
  readonly reference: Round;
  /** Reference CPU per request ÷ measured: the measured side's requests per core-second, the reference's = 1. */
  readonly perCoreRatio: number;
}

/** What the goals read from the proxy result's raw: its rounds of ours and native served at once. */
interface AtOnceRaw {
  readonly atOnce: readonly AtOnceRound[];
}

/** Measured ÷ reference at `percentile` in each round. */
export function atOnceLatency(rounds: readonly AtOnceRound[], percentile: number): number[] {
  return rounds.map((r) => latencyAt(r.measured.wrk, percentile) / latencyAt(r.reference.wrk, percentile));
}

/** A proxy goal on the rounds served at once: ours against native, one ratio per round. */
function atOnceGoal(name: string, goal: Goal, rounds: (list: readonly AtOnceRound[]) => number[]): RoundsGoal<AtOnceRaw> {
  return { benchmark: 'proxy', name, unit: '×', referenceLabel: 'native', goal, rounds: (raw) => rounds(raw.atOnce) };
}

/** Goal: ours serves at least 0.9× native's requests per core. */
export const PER_CORE_AT_ONCE = atOnceGoal('requests per core-second, served at once: native CPU ÷ ours per request (median of rounds)',
  { on: 'value', op: '>=', target: 0.9 }, (list) => list.map((r) => r.perCoreRatio));

/** Goal: ours' p99 within 1.2× native's (why judged at once: the header). */
export const P99_AT_ONCE = atOnceGoal('latency p99, served at once: ours ÷ native per round (median of rounds)',
  { on: 'value', op: '<=', target: 1.2 }, (list) => atOnceLatency(list, 99));

/**
 * `count` rounds of `measured` and `reference` served at once, each round on
 * two fresh NGINXes (a process's memory layout makes it a few percent faster
 * or slower for its whole life), stopped before the next round.
 */
export async function atOnceRounds(ctx: BenchContext, model: Model, measured: SideSpec, reference: SideSpec, params: AtOnceParams, count: number): Promise<AtOnceRound[]> {
  const rounds: AtOnceRound[] = [];
  for (let i = 0; i < count; i++) {
    const live: StartedSide[] = [];
    try {
      for (const [name, spec] of [['at-once-measured', measured], ['at-once-reference', reference]] as const) {
        live.push(await startSide(ctx, model, name, spec.transform, spec.lua));
      }
      const [a, b] = live as [StartedSide, StartedSide];
      const sides = [{ label: measured.label, side: a }, { label: reference.label, side: b }] as const;
      await measureAtOnce(ctx, sides, params.warmupSeconds, params.connections);
      const [m, r] = await measureAtOnce(ctx, sides, params.seconds, params.connections);
      const round = { measured: m, reference: r, perCoreRatio: r.cpuUsPerRequest / m.cpuUsPerRequest };
      ctx.log(`at once ${i + 1} ${measured.label} vs ${reference.label}: ${m.cpuUsPerRequest.toFixed(2)} vs ${r.cpuUsPerRequest.toFixed(2)} µs CPU/req, per-core ratio ${round.perCoreRatio.toFixed(3)}`);
      rounds.push(round);
    } finally {
      for (const side of live) await side.nginx.stop();
    }
  }
  return rounds;
}
