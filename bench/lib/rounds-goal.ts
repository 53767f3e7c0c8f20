// Goals judged on the median of a benchmark's rounds: the proxy path's
// per-core and p99 rows, rolling's p99 rise. One run's 8-12 rounds leave an
// interval that can straddle the goal on this noisy machine; the rounds of
// many saved runs, pooled, narrow it. The benchmark builds its row with
// roundsMetric() and bench/tools/pool-rounds.ts pools saved results with
// poolRuns(), both reading the rounds through the same RoundsGoal, so a
// pooled row is the benchmark's row over more rounds, never a second opinion.
import { meets, metric, type BenchResult, type Goal, type Metric } from './report.ts';
import { median, medianInterval } from './stats.ts';

export interface RoundsGoal<Raw> {
  /** The benchmark's id: its result is saved as <id>.json in a results folder. */
  readonly benchmark: string;
  /** The row's name in the benchmark's table. */
  readonly name: string;
  readonly unit: string;
  /** What each round's value is a ratio to (the reference's value is 1). */
  readonly referenceLabel: string;
  readonly goal: Goal;
  /** Each round's value, read from the `raw` the benchmark returns (and saves). */
  readonly rounds: (raw: Raw) => number[];
}

/** The goal's row named `name`: the median of `values`, with its interval, against the reference's 1. */
function goalMetric(spec: RoundsGoal<never>, values: readonly number[], name: string): Metric {
  return metric(name, spec.unit, median(values), 1, spec.referenceLabel, spec.goal, medianInterval(values));
}

/** The goal's row over the rounds of one run. */
export function roundsMetric<Raw>(spec: RoundsGoal<Raw>, raw: Raw): Metric {
  return goalMetric(spec, spec.rounds(raw), spec.name);
}

/** A saved run: its results folder and the `raw` of each benchmark found there, by id. */
export interface SavedRun {
  readonly folder: string;
  readonly raws: ReadonlyMap<string, unknown>;
}

interface RunRounds {
  readonly folder: string;
  readonly values: readonly number[];
}

/** The rounds of `goal` in one saved run; a string says why the run was left out. */
function roundsOf(goal: RoundsGoal<never>, run: SavedRun): RunRounds | string | null {
  if (!run.raws.has(goal.benchmark)) return null;
  let values: number[];
  try {
    // A folder from an older version may hold another shape: the reader's TypeError says so.
    values = goal.rounds(run.raws.get(goal.benchmark) as never);
  } catch (error) {
    return `${run.folder}: ${(error as Error).message}`;
  }
  if (values.length === 0) return `${run.folder}: no rounds`;
  if (!values.every(Number.isFinite)) return `${run.folder}: a round without a value`;
  return { folder: run.folder, values };
}

/**
 * One row per goal over the rounds of every run that has them, judged as the
 * benchmark judges one run (the verdict, ON THE LINE included); the notes
 * give each run's median, how many rounds fall short of the goal, and the
 * runs left out and why.
 */
export function poolRuns(goals: readonly RoundsGoal<never>[], runs: readonly SavedRun[]): BenchResult {
  const metrics: Metric[] = [];
  const notes: string[] = [];
  for (const goal of goals) {
    const found = runs.map((run) => roundsOf(goal, run));
    const pooled = found.filter((r): r is RunRounds => typeof r === 'object' && r !== null);
    const skipped = found.filter((r): r is string => typeof r === 'string');
    const values = pooled.flatMap((r) => r.values);
    const name = `${goal.benchmark}: ${goal.name}, ${values.length} rounds of ${pooled.length} runs pooled`;
    metrics.push(goalMetric(goal, values, name));
    const short = values.filter((v) => !meets(v, goal.goal)).length;
    notes.push(`${goal.benchmark}: ${goal.name}: ${short} of ${values.length} rounds short of the goal; each run's median: `
      + `${pooled.map((r) => `${r.folder} ${median(r.values).toFixed(3)} (${r.values.length})`).join(', ') || 'none'}`
      + (skipped.length === 0 ? '' : `; left out: ${skipped.join('; ')}`));
  }
  return { id: 'pooled', title: `Goals judged on rounds, pooled over ${runs.length} saved runs`, metrics, notes, distributions: [], raw: null };
}
