// Where the per-request metrics cost moved: NGINX only appends a line per
// request to the metrics log; the controller decodes, parses and aggregates
// those lines and adds the aggregates to its registry. This replays a log
// NGINX wrote through the same functions the controller's tail calls
// (metrics-log-tail.ts: latin1 decode, parseMetricsLog, ingest), in batches
// of one second of traffic as the tail reads them, and reports the
// controller's CPU per line. File reading is left out: it is the kernel's
// copy, the same for any reader.
import { readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import { parseMetricsLog } from '../../controller/src/metrics/metrics-log-lines.ts';
import { createRequestMetrics } from '../../controller/src/metrics/request-metrics.ts';
import { median } from '../lib/stats.ts';

export interface MetricsParseCost {
  /** Lines in the log (one per proxied request). */
  readonly lines: number;
  /** Lines parseMetricsLog refused: anything but 0 means the log and the parser disagree. */
  readonly malformed: number;
  /** Controller CPU (user + system) per line, median over the repetitions. */
  readonly cpuUsPerLine: number;
  readonly repetitions: number;
}

/** Splits `log` after every `linesPerBatch`-th "\n" (whole lines, as the tail hands them over). */
export function batchesOf(log: Buffer, linesPerBatch: number): Buffer[] {
  const batches: Buffer[] = [];
  let start = 0;
  let lines = 0;
  for (let i = log.indexOf(10); i >= 0; i = log.indexOf(10, i + 1)) {
    if (++lines < linesPerBatch) continue;
    batches.push(log.subarray(start, i + 1));
    start = i + 1;
    lines = 0;
  }
  if (start < log.length) batches.push(log.subarray(start));
  return batches;
}

function cpuUs(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * Times the controller's work on the metrics log at `path`. `linesPerBatch`:
 * what one tail read holds (one second of the measured request rate). One
 * untimed pass first: the controller runs warm.
 */
export function measureMetricsParseCost(path: string, linesPerBatch: number, repetitions = 5): MetricsParseCost {
  const batches = batchesOf(readFileSync(path), Math.max(1, Math.round(linesPerBatch)));
  const metrics = createRequestMetrics(new Registry(), { statusClasses: false, perHost: false });
  const pass = (): { lines: number; malformed: number } => {
    let lines = 0;
    let malformed = 0;
    for (const batch of batches) {
      const parsed = parseMetricsLog(batch.toString('latin1'));
      metrics.ingest(parsed);
      malformed += parsed.rejected.malformed;
      lines += parsed.aggregates.reduce((n, a) => n + a.histograms.requestDuration.count, 0) + parsed.rejected.malformed;
    }
    return { lines, malformed };
  };
  const { lines, malformed } = pass();
  const samples: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const before = cpuUs();
    pass();
    samples.push(cpuUs() - before);
  }
  return { lines, malformed, cpuUsPerLine: lines > 0 ? median(samples) / lines : Number.NaN, repetitions };
}
