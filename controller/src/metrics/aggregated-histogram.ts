// A Prometheus histogram fed with bucket counts that were already aggregated
// elsewhere: the metrics-log reader counts requests per bucket
// (metrics-log-lines.ts) and hands over totals, not single observations.
// prom-client's Histogram only takes one observation at a time and has no way
// to add a bucket count, so this class keeps the cumulative state per label
// set and answers the registry's get() itself.

import type { Histogram, Registry } from 'prom-client';

export interface AggregatedHistogramConfig<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  /** Upper bounds, ascending; +Inf is implicit. */
  readonly buckets: readonly number[];
}

type Labels<L extends string> = Readonly<Record<L, string>>;

interface Series<L extends string> {
  readonly labels: Labels<L>;
  /** Non-cumulative counts per bucket; the last slot is the overflow (+Inf only). */
  readonly counts: number[];
  sum: number;
}

/** What the registry reads on every scrape. */
interface HistogramSample {
  readonly metricName: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

export class AggregatedHistogram<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly buckets: readonly number[];
  private readonly labelNames: readonly L[];
  private readonly series = new Map<string, Series<L>>();

  constructor(config: AggregatedHistogramConfig<L>) {
    for (let i = 1; i < config.buckets.length; i++) {
      if (!(config.buckets[i] > config.buckets[i - 1])) throw new Error(`${config.name}: buckets must ascend`);
    }
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    this.buckets = config.buckets;
  }

  /** Registers with `registry` (the registry only reads name, help, type and get()). */
  registerWith(registry: Registry): void {
    registry.registerMetric(this as unknown as Histogram);
  }

  /** Adds `counts` (one per bucket plus the overflow, not cumulative) and their `sum`. */
  add(labels: Labels<L>, counts: readonly number[], sum: number): void {
    if (counts.length !== this.buckets.length + 1) {
      throw new Error(`${this.name}: expected ${this.buckets.length + 1} bucket counts, got ${counts.length}`);
    }
    const key = this.labelNames.map((name) => labels[name]).join('\u0000');
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels: { ...labels }, counts: new Array<number>(counts.length).fill(0), sum: 0 };
      this.series.set(key, entry);
    }
    for (let i = 0; i < counts.length; i++) entry.counts[i] += counts[i];
    entry.sum += sum;
  }

  /** Drops every series `keep` refuses (e.g. an Ingress that no longer exists). */
  prune(keep: (labels: Labels<L>) => boolean): void {
    for (const [key, entry] of this.series) if (!keep(entry.labels)) this.series.delete(key);
  }

  reset(): void {
    this.series.clear();
  }

  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: HistogramSample[] }> {
    const values: HistogramSample[] = [];
    for (const { labels, counts, sum } of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += counts[i];
        values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: String(bound) }, value: cumulative });
      });
      cumulative += counts[this.buckets.length];
      values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: cumulative });
      values.push({ metricName: `${this.name}_sum`, labels: { ...labels }, value: sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...labels }, value: cumulative });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}
