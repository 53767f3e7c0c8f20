// Lines of NGINX's metrics log (<prefix>/metrics.log, see metricsLogPath) →
// the aggregates request-metrics.ts ingests. NGINX writes one line per
// proxied request, TAB-separated:
//   <labels> <method> <status> <request_time> <upstream_response_time> <request_length> <bytes_sent>
// Aggregating here, per location+method+status, keeps the registry's work
// per batch proportional to the label sets, not to the requests. A line that
// does not fit is counted as malformed and skipped, never thrown: one bad
// line must not cost the others.

import {
  HISTOGRAMS, REQUEST_BUCKETS, parseLocationKey, type HistogramKey, type LocationLabels, type ParsedPayload, type RequestAggregate,
} from './request-aggregate.ts';

/** Methods kept as label values; anything else is "OTHER", so a client cannot mint label values. */
export const METRIC_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE']);

const FIELD_COUNT = 7;
const STATUS = /^\d{3}$/u;
const SECONDS = /^\d+(?:\.\d+)?$/u;
const INTEGER = /^\d+$/u;
/** `$upstream_response_time` separates tries with ", " and internal redirects with " : ". */
const TRY_SEPARATOR = /, | : /u;

interface Accumulator {
  count: number;
  sum: number;
  readonly buckets: number[];
}

/** Index of the bucket holding `value`: the first bound >= value (Prometheus `le`), else the overflow slot. */
export function bucketIndex(bounds: readonly number[], value: number): number {
  for (let i = 0; i < bounds.length; i++) if (value <= bounds[i]) return i;
  return bounds.length;
}

/**
 * NGINX writes `"`, `\` and bytes outside 0x20–0x7E as `\xHH`. `text` is
 * read one char per byte (latin1), so after replacing the escapes the chars
 * are the original bytes, which decode as UTF-8.
 */
export function unescapeNginx(text: string): string {
  const bytes = text.replace(/\\x([0-9A-Fa-f]{2})/gu, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** The try that answered (the last one); null = no upstream answered; undefined = not a valid value. */
function answeringTryTime(text: string): number | null | undefined {
  if (text === '-') return null;
  const tries = text.split(TRY_SEPARATOR);
  if (!tries.every((t) => t === '-' || SECONDS.test(t))) return undefined;
  const last = tries[tries.length - 1];
  return last === '-' ? null : Number(last);
}

/** The four observations of one line, or null when a field is not a valid value. */
function observations(fields: readonly string[]): Record<HistogramKey, number | null> | null {
  const [, , , requestTime, upstreamTime, requestLength, bytesSent] = fields;
  if (!SECONDS.test(requestTime) || !INTEGER.test(requestLength) || !INTEGER.test(bytesSent)) return null;
  const responseDuration = answeringTryTime(upstreamTime);
  if (responseDuration === undefined) return null;
  return { requestDuration: Number(requestTime), responseDuration, requestSize: Number(requestLength), responseSize: Number(bytesSent) };
}

function emptyHistograms(): Record<HistogramKey, Accumulator> {
  const result = {} as Record<HistogramKey, Accumulator>;
  for (const key of HISTOGRAMS) result[key] = { count: 0, sum: 0, buckets: new Array<number>(REQUEST_BUCKETS[key].length + 1).fill(0) };
  return result;
}

/**
 * Parses complete metrics-log lines (decoded one char per byte, "\n"-separated;
 * a final "\n" ends the last line) into one aggregate per location, method and
 * status. Never throws.
 */
export function parseMetricsLog(text: string): ParsedPayload {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let malformed = 0;
  // Few distinct label sets, many lines: unescape and parse each raw label set once.
  const locations = new Map<string, LocationLabels | null>();
  const aggregates = new Map<string, RequestAggregate & { histograms: Record<HistogramKey, Accumulator> }>();
  for (const line of lines) {
    const fields = line.split('\t');
    const values = fields.length === FIELD_COUNT && STATUS.test(fields[2]) ? observations(fields) : null;
    let location = values ? locations.get(fields[0]) : null;
    if (values && location === undefined) {
      location = parseLocationKey(unescapeNginx(fields[0]));
      locations.set(fields[0], location);
    }
    if (!values || !location) { malformed++; continue; }
    const method = METRIC_METHODS.has(fields[1]) ? fields[1] : 'OTHER';
    const status = fields[2];
    const key = `${fields[0]}\t${method}\t${status}`;
    let aggregate = aggregates.get(key);
    if (!aggregate) {
      aggregate = { location, method, status, histograms: emptyHistograms() };
      aggregates.set(key, aggregate);
    }
    for (const histogram of HISTOGRAMS) {
      const value = values[histogram];
      if (value === null) continue;
      const acc = aggregate.histograms[histogram];
      acc.count++;
      acc.sum += value;
      acc.buckets[bucketIndex(REQUEST_BUCKETS[histogram], value)]++;
    }
  }
  return { aggregates: [...aggregates.values()], rejected: { malformed, bucketMismatch: 0 }, droppedInNginx: 0 };
}
