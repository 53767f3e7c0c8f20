// What every benchmark returns, how a goal is judged, and the printed table.
// Benchmarks measure; they never fail the run. A missed goal is said plainly.
import { ratioOf, round, type Interval } from './stats.ts';

/** A goal on a metric: on its own value, or on the ratio to its reference. */
export interface Goal {
  readonly on: 'value' | 'ratio';
  readonly op: '<' | '<=' | '>=' | '>' | '==';
  readonly target: number;
}

export interface Metric {
  /** What was measured, e.g. "requests/s" or "propagation p99 (1,000 backends, single)". */
  readonly name: string;
  readonly unit: string;
  /** Our value; null when it could not be measured (see the benchmark's notes). */
  readonly value: number | null;
  /** The reference value (native NGINX, the run before, or the goal itself), or null. */
  readonly reference: number | null;
  /** What the reference is, e.g. "native upstream {}" or "goal". */
  readonly referenceLabel: string;
  readonly ratio: number | null;
  readonly goal: Goal | null;
  /** true when a goal exists and was missed (or could not be measured). */
  readonly missed: boolean;
  /**
   * Where the value is a median of noisy rounds: the range its true value lies
   * in (stats.ts medianInterval), or null.
   */
  readonly interval: Interval | null;
  /** The value meets the goal but the interval reaches past it: met or missed is within the noise. */
  readonly onTheLine: boolean;
}

/** A latency distribution for the SVG chart: latency in ms at each percentile. */
export interface Distribution {
  readonly label: string;
  readonly points: readonly { readonly percentile: number; readonly ms: number }[];
}

export interface BenchResult {
  /** Short id used on the command line (--only) and in file names. */
  readonly id: string;
  readonly title: string;
  readonly metrics: readonly Metric[];
  /** Conditions worth knowing when reading the numbers (features active, sizes, caveats). */
  readonly notes: readonly string[];
  readonly distributions: readonly Distribution[];
  /** Raw samples and rounds, for whoever wants to re-analyse. */
  readonly raw: unknown;
}

/** Whether `actual` meets `goal` (its op and target). */
export function meets(actual: number, goal: Goal): boolean {
  switch (goal.op) {
    case '<': return actual < goal.target;
    case '<=': return actual <= goal.target;
    case '>=': return actual >= goal.target;
    case '>': return actual > goal.target;
    case '==': return actual === goal.target;
  }
}

/**
 * Builds a metric; the ratio is value ÷ reference; `missed` follows the goal.
 * `interval`: the value's confidence interval, for a goal on the value only
 * (a ratio's interval would need the reference's too).
 */
export function metric(name: string, unit: string, value: number | null, reference: number | null, referenceLabel: string,
  goal: Goal | null = null, interval: Interval | null = null): Metric {
  if (interval !== null && goal?.on === 'ratio') throw new Error(`metric ${name}: an interval goes with a goal on the value`);
  const ratio = ratioOf(value, reference);
  const judged = goal === null ? null : goal.on === 'value' ? value : ratio;
  const missed = goal !== null && (judged === null || !Number.isFinite(judged) || !meets(judged, goal));
  const onTheLine = goal !== null && !missed && interval !== null && !(meets(interval.low, goal) && meets(interval.high, goal));
  return { name, unit, value, reference, referenceLabel, ratio, goal, missed, interval, onTheLine };
}

/** What the table says of a goal: met, met within the noise, or missed. */
export function verdict(m: Metric): string {
  if (m.goal === null) return '';
  if (m.missed) return 'MISSED GOAL';
  return m.onTheLine ? 'ON THE LINE' : 'ok';
}

function show(value: number | null): string {
  return value === null || !Number.isFinite(value) ? '—' : String(round(value));
}

/** "0.902 × [0.880–0.926 at 99 %]": the value and, where it has one, its interval. */
function showValue(m: Metric): string {
  const value = `${show(m.value)} ${m.unit}`.trim();
  if (m.interval === null) return value;
  return `${value} [${show(m.interval.low)}–${show(m.interval.high)} at ${Math.floor(m.interval.confidence * 100)} %]`;
}

function showGoal(goal: Goal | null): string {
  if (goal === null) return '';
  return `${goal.on === 'ratio' ? 'ratio ' : ''}${goal.op} ${goal.target}`;
}

/** Rows of the printed table (also used for the README's Performance section). */
export function tableRows(results: readonly BenchResult[]): string[][] {
  const rows: string[][] = [];
  for (const result of results) {
    for (const m of result.metrics) {
      rows.push([
        result.id, m.name, showValue(m), `${show(m.reference)} (${m.referenceLabel})`,
        m.ratio === null ? '—' : `${round(m.ratio)}×`, showGoal(m.goal), verdict(m),
      ]);
    }
  }
  return rows;
}

export const TABLE_HEADER = ['bench', 'measured', 'ours', 'reference', 'ratio', 'goal', 'verdict'] as const;

/** A fixed-width text table. */
export function formatTable(results: readonly BenchResult[]): string {
  const rows = [[...TABLE_HEADER], ...tableRows(results)];
  const widths = TABLE_HEADER.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length)));
  return rows.map((row) => row.map((cell, col) => cell.padEnd(widths[col] ?? 0)).join('  ').trimEnd()).join('\n');
}

/** A Markdown table of the same rows. */
export function formatMarkdownTable(results: readonly BenchResult[]): string {
  const rows = tableRows(results);
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(TABLE_HEADER), line(TABLE_HEADER.map(() => '---')), ...rows.map(line)].join('\n');
}

/** One benchmark's block as printed when it finishes. */
export function formatResult(result: BenchResult): string {
  const notes = result.notes.map((note) => `  note: ${note}`);
  const judged = result.metrics.filter((m) => m.missed || m.onTheLine)
    .map((m) => `  ${verdict(m)}: ${m.name} = ${showValue(m)} (goal ${showGoal(m.goal)}${m.onTheLine ? '; the interval reaches past the goal: the noise decides' : ''})`);
  return [`== ${result.title}`, formatTable([result]), ...notes, ...judged].join('\n');
}
