// Small statistics for benchmark samples: percentiles, medians, ratios.
// Benchmarks on a shared, noisy machine report medians of interleaved
// rounds and percentiles of many samples, never a single run.

/** The p-th percentile (0..100) by nearest rank; NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? Number.NaN;
}

/** The median (mean of the two middle values for an even count); NaN for no samples. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] ?? Number.NaN : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** A range the true median lies in with probability `confidence` (at least, given the sample count). */
export interface Interval {
  readonly low: number;
  readonly high: number;
  readonly confidence: number;
}

/**
 * A distribution-free confidence interval of the median: the order
 * statistics x(k) and x(n+1-k), with the largest k whose coverage,
 * 1 − 2·P(Binomial(n, ½) < k), is still at least `wanted` (k = 1 when even
 * min–max covers less: the confidence returned is the one achieved). Makes
 * no assumption about the shape of a noisy machine's rounds; null for no
 * samples.
 */
export function medianInterval(samples: readonly number[], wanted = 0.95): Interval | null {
  const n = samples.length;
  if (n === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  // For the current k: below = P(B < k), pmf = P(B = k).
  let k = 1;
  let below = 0.5 ** n;
  let pmf = n * 0.5 ** n;
  while (2 * k + 1 <= n && 1 - 2 * (below + pmf) >= wanted) {
    below += pmf;
    pmf = (pmf * (n - k)) / (k + 1);
    k += 1;
  }
  return { low: sorted[k - 1] ?? Number.NaN, high: sorted[n - k] ?? Number.NaN, confidence: Math.max(0, 1 - 2 * below) };
}

/** p50, p99 and max of a sample set, the summary every latency metric reports. */
export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  return {
    count: samples.length,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    max: samples.length === 0 ? Number.NaN : Math.max(...samples),
  };
}

/**
 * a[i] ÷ b[i] for every index both have: ratios of measurements taken in
 * pairs, back to back, so that the machine's slow drifts cancel out.
 */
export function pairedRatios(a: readonly number[], b: readonly number[]): number[] {
  return a.slice(0, b.length).map((value, i) => value / (b[i] ?? Number.NaN));
}

/** ours ÷ reference, or null when either side is missing or the reference is zero. */
export function ratioOf(ours: number | null, reference: number | null): number | null {
  if (ours === null || reference === null || !Number.isFinite(ours) || !Number.isFinite(reference) || reference === 0) return null;
  return ours / reference;
}

/** Rounds for display and JSON: 3 significant digits below 100, integers above. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  if (Math.abs(value) >= 100) return Math.round(value);
  return Number(value.toPrecision(3));
}
