// Goals judged on rounds: the benchmark's row and the pooled row read the
// rounds the same way and judge them the same way; pooling takes every
// round, leaves out (and names) runs it cannot read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { P99_AT_ONCE, PER_CORE_AT_ONCE } from '../proxy/cpu-at-once.ts';
import { P99_RISE } from '../rolling/rolling-deploys.ts';
import { verdict } from './report.ts';
import { poolRuns, roundsMetric, type RoundsGoal, type SavedRun } from './rounds-goal.ts';

/** A goal on plain arrays of round values. */
const AT_LEAST_09: RoundsGoal<readonly number[]> = {
  benchmark: 'toy', name: 'ratio', unit: '×', referenceLabel: 'ref', goal: { on: 'value', op: '>=', target: 0.9 }, rounds: (raw) => [...raw],
};

function run(folder: string, raws: Record<string, unknown>): SavedRun {
  return { folder, raws: new Map(Object.entries(raws)) };
}

/** A wrk result with only the percentiles the readers look at. */
function wrk(p50: number, p99: number): { latency: { percentile: number; ms: number }[] } {
  return { latency: [{ percentile: 50, ms: p50 }, { percentile: 99, ms: p99 }] };
}

test('poolRuns: one row per goal over every round of every run', () => {
  const rows = [
    {
      name: 'the median of all rounds, not of the runs\' medians',
      runs: [run('a', { toy: [0.88, 0.88, 0.88] }), run('b', { toy: [0.95] }), run('c', { toy: [0.95] })],
      want: { value: 0.88, verdict: 'MISSED GOAL', name: 'toy: ratio, 5 rounds of 3 runs pooled', short: '3 of 5 rounds short of the goal' },
    },
    {
      name: 'met by every round: ok',
      runs: Array.from({ length: 3 }, (_, i) => run(`r${i}`, { toy: [0.91, 0.92, 0.93, 0.94] })),
      want: { value: 0.925, verdict: 'ok', name: 'toy: ratio, 12 rounds of 3 runs pooled', short: '0 of 12 rounds short of the goal' },
    },
    {
      name: 'median met, interval across the goal: ON THE LINE',
      runs: [run('a', { toy: [0.85, 0.91, 0.92] }), run('b', { toy: [0.89, 0.95] })],
      want: { value: 0.91, verdict: 'ON THE LINE', name: 'toy: ratio, 5 rounds of 2 runs pooled', short: '2 of 5 rounds short of the goal' },
    },
    {
      name: 'a run without the benchmark is not counted, and not named as left out',
      runs: [run('a', { toy: [0.95] }), run('b', { other: [0.1] })],
      want: { value: 0.95, verdict: 'ok', name: 'toy: ratio, 1 rounds of 1 runs pooled', short: '0 of 1 rounds short of the goal' },
    },
  ];
  for (const row of rows) {
    const result = poolRuns([AT_LEAST_09 as RoundsGoal<never>], row.runs);
    const [m] = result.metrics;
    assert.ok(m, row.name);
    assert.equal(m.value, row.want.value, row.name);
    assert.equal(verdict(m), row.want.verdict, row.name);
    assert.equal(m.name, row.want.name, row.name);
    assert.match(result.notes[0] ?? '', new RegExp(row.want.short), row.name);
    assert.doesNotMatch(result.notes[0] ?? '', /left out/, row.name);
  }
});

test('poolRuns: a run it cannot read is left out, and the note says which and why', () => {
  // The raw of a newer version: { rounds: [...] }, where an older one saved a bare list.
  const nested = { ...AT_LEAST_09, rounds: (raw: { rounds: readonly number[] }) => raw.rounds.map((v) => v) } as RoundsGoal<never>;
  const rows = [
    { name: 'another shape (an older version\'s raw)', spec: nested, good: { rounds: [0.95] }, bad: [0.8], why: /b: .*(undefined|not a function)/ },
    { name: 'no rounds', spec: AT_LEAST_09 as RoundsGoal<never>, good: [0.95], bad: [], why: /b: no rounds/ },
    { name: 'a round without a value', spec: AT_LEAST_09 as RoundsGoal<never>, good: [0.95], bad: [0.8, Number.NaN], why: /b: a round without a value/ },
  ];
  for (const row of rows) {
    const result = poolRuns([row.spec], [run('a', { toy: row.good }), run('b', { toy: row.bad })]);
    assert.equal(result.metrics[0]?.value, 0.95, row.name);
    assert.equal(result.metrics[0]?.name, 'toy: ratio, 1 rounds of 1 runs pooled', row.name);
    assert.match(result.notes[0] ?? '', row.why, row.name);
  }
});

test('the benchmarks\' goals: their rounds read from the raw each benchmark saves', () => {
  const atOnce = { atOnce: [
    { perCoreRatio: 0.91, measured: { wrk: wrk(1, 2.4) }, reference: { wrk: wrk(1, 2) } },
    { perCoreRatio: 0.89, measured: { wrk: wrk(1, 3) }, reference: { wrk: wrk(1, 3) } },
  ] };
  const rolling = { rounds: [{ before: wrk(1, 4), during: wrk(1, 8) }, { before: wrk(1, 5), during: wrk(1, 5) }] };
  const rows = [
    { name: 'per core served at once: each round\'s ratio', spec: PER_CORE_AT_ONCE as RoundsGoal<never>, raw: atOnce, want: [0.91, 0.89] },
    { name: 'p99 served at once: ours ÷ native per round', spec: P99_AT_ONCE as RoundsGoal<never>, raw: atOnce, want: [1.2, 1] },
    { name: 'rolling p99 rise: during ÷ before per round', spec: P99_RISE as RoundsGoal<never>, raw: rolling, want: [2, 1] },
  ];
  for (const row of rows) {
    assert.deepEqual(row.spec.rounds(row.raw as never), row.want, row.name);
    // Pooling one run gives the benchmark's own row: same value, interval and verdict.
    const own = roundsMetric(row.spec, row.raw as never);
    const [pooled] = poolRuns([row.spec], [run('only', { [row.spec.benchmark]: row.raw })]).metrics;
    assert.ok(pooled, row.name);
    assert.deepEqual({ value: pooled.value, interval: pooled.interval, verdict: verdict(pooled) },
      { value: own.value, interval: own.interval, verdict: verdict(own) }, row.name);
  }
});
