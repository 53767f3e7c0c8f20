// Lines of NGINX's metrics log (<prefix>/metrics.log, see metricsLogPath) →
// the aggregates request-metrics.ts ingests. NGINX writes one line per
// proxied request, TAB-separated:
//   <labels> <method> <status> <request_time> <upstream_response_time> <request_length> <bytes_sent>
//   <upstream_connect_time> <upstream_header_time>
// where <labels> is the location's $resty_route as the balancer left it:
// "<flags> <backend> <host> <namespace> <ingress> <service> <path>", plus
// " <canary backend>" when it sent the request to a canary (parseRoute).
// Aggregating here, per route+method+status, keeps the registry's work
// per batch proportional to the label sets, not to the requests. A line that
// does not fit is counted as malformed and skipped, never thrown: one bad
// line must not cost the others.
// Every proxied request passes through here (tens of thousands a second), so
// lines are scanned char by char in place: no split, no regex, and no
// allocation per line but the key that finds its aggregate.

import {
  HISTOGRAMS, REQUEST_BUCKETS, parseRoute, type HistogramKey, type ParsedPayload, type RequestAggregate, type RequestBuckets, type RouteLabels,
} from './request-aggregate.ts';

/** Methods kept as label values; anything else is "OTHER", so a client cannot mint label values. */
export const METRIC_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE']);

const STATUS = /^\d{3}$/u;
const [TAB, SPACE, COMMA, DASH, DOT, ZERO, NINE, COLON] = [...'\t ,-.09:'].map((c) => c.charCodeAt(0));
/** 10^0…10^22 as parsed from text: every one is an exact double. */
const EXACT_POWERS_OF_TEN = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

interface Accumulator {
  count: number;
  sum: number;
  readonly buckets: number[];
}

type Aggregate = RequestAggregate & { readonly histograms: Record<HistogramKey, Accumulator> };

/** Where the scan of a line stands and what it read. One per parse, reused for every line. */
interface LineScan {
  /** Index of the next char to read. */
  at: number;
  /** See tabFrom. */
  tab: number;
  /** The number the last read produced. */
  number: number;
  requestTime: number;
  /** NaN = no upstream answered ("-"): no response observation. */
  upstreamTime: number;
  requestLength: number;
  bytesSent: number;
  /** NaN = no upstream connection / header ("-"): no observation. */
  connectTime: number;
  headerTime: number;
}

/** Index of the bucket holding `value`: the first bound >= value (Prometheus `le`), else the overflow slot. */
export function bucketIndex(bounds: readonly number[], value: number): number {
  for (let i = 0; i < bounds.length; i++) if (value <= bounds[i]) return i;
  return bounds.length;
}

/**
 * The labels as NGINX wrote them (the metrics log_format has escape=none:
 * render allows no quote, backslash or control character in them). `text` is
 * read one char per byte (latin1), so its chars are the original bytes, which
 * decode as UTF-8.
 */
function decodeLabels(text: string): string {
  return Buffer.from(text, 'latin1').toString('utf8');
}

/**
 * Index of the first TAB at or after `from` (text.length when none). Lines
 * are scanned in order, so the TAB found last is remembered: lines without a
 * TAB must not each send a search to the far end of the text. That holds
 * only while `from` never moves back, see keyEnd.
 */
function tabFrom(text: string, from: number, scan: LineScan): number {
  if (scan.tab < from) {
    const tab = text.indexOf('\t', from);
    scan.tab = tab < 0 ? text.length : tab;
  }
  return scan.tab;
}

/**
 * Index of the line's third TAB (the end of "labels\tmethod\tstatus"), or -1
 * when the line (ending at `end`) has fewer. It stops at the first TAB past
 * the line, so the next line's search starts after every search before it.
 */
function keyEnd(text: string, start: number, end: number, scan: LineScan): number {
  let tab = start - 1;
  for (let field = 0; field < 3; field++) {
    tab = tabFrom(text, tab + 1, scan);
    if (tab >= end) return -1;
  }
  return tab;
}

/**
 * Reads `\d+` (or `\d+(\.\d+)?` with `fraction`) at scan.at into scan.number;
 * false when no digits are there. Whatever follows is the caller's to check.
 */
function readNumber(text: string, scan: LineScan, fraction: boolean): boolean {
  const start = scan.at;
  let at = start;
  let mantissa = 0;
  let c = text.charCodeAt(at);
  for (; c >= ZERO && c <= NINE; c = text.charCodeAt(++at)) mantissa = mantissa * 10 + (c - ZERO);
  if (at === start) return false;
  let decimals = 0;
  if (fraction && c === DOT) {
    const dot = at;
    for (c = text.charCodeAt(++at); c >= ZERO && c <= NINE; c = text.charCodeAt(++at)) mantissa = mantissa * 10 + (c - ZERO);
    decimals = at - dot - 1;
    if (decimals === 0) return false;
  }
  scan.at = at;
  // An exact mantissa divided by an exact power of ten is rounded once, so it
  // equals Number(text) (the fast path of decimal parsing); beyond that, ask Number.
  scan.number = mantissa <= Number.MAX_SAFE_INTEGER && decimals < EXACT_POWERS_OF_TEN.length
    ? mantissa / EXACT_POWERS_OF_TEN[decimals]
    : Number(text.slice(start, at));
  return true;
}

/**
 * `$upstream_response_time` (and the connect and header times): one time or
 * "-" per try, separated by ", " or " : " (internal redirect). The last try
 * is the one that answered; its value lands in scan.number, NaN for "-".
 */
function readUpstreamTime(text: string, scan: LineScan): boolean {
  for (;;) {
    if (text.charCodeAt(scan.at) === DASH) {
      scan.at++;
      scan.number = Number.NaN;
    } else if (!readNumber(text, scan, true)) {
      return false;
    }
    const at = scan.at;
    const c = text.charCodeAt(at);
    if (c === COMMA && text.charCodeAt(at + 1) === SPACE) scan.at = at + 2;
    else if (c === SPACE && text.charCodeAt(at + 1) === COLON && text.charCodeAt(at + 2) === SPACE) scan.at = at + 3;
    else return true;
  }
}

/** Steps over the TAB that must end a field. */
function skipTab(text: string, scan: LineScan): boolean {
  return text.charCodeAt(scan.at++) === TAB;
}

/** Reads the six values after the key; true when they fit and end at `end` (the line's). */
function readValues(text: string, end: number, scan: LineScan): boolean {
  if (!readNumber(text, scan, true) || !skipTab(text, scan)) return false;
  scan.requestTime = scan.number;
  if (!readUpstreamTime(text, scan) || !skipTab(text, scan)) return false;
  scan.upstreamTime = scan.number;
  if (!readNumber(text, scan, false) || !skipTab(text, scan)) return false;
  scan.requestLength = scan.number;
  if (!readNumber(text, scan, false) || !skipTab(text, scan)) return false;
  scan.bytesSent = scan.number;
  if (!readUpstreamTime(text, scan) || !skipTab(text, scan)) return false;
  scan.connectTime = scan.number;
  if (!readUpstreamTime(text, scan)) return false;
  scan.headerTime = scan.number;
  return scan.at === end;
}

function emptyHistograms(bounds: RequestBuckets): Record<HistogramKey, Accumulator> {
  const result = {} as Record<HistogramKey, Accumulator>;
  for (const key of HISTOGRAMS) result[key] = { count: 0, sum: 0, buckets: new Array<number>(bounds[key].length + 1).fill(0) };
  return result;
}

function observe(accumulator: Accumulator, bounds: readonly number[], value: number): void {
  accumulator.count++;
  accumulator.sum += value;
  accumulator.buckets[bucketIndex(bounds, value)]++;
}

function observeLine(aggregate: Aggregate, scan: LineScan, bounds: RequestBuckets): void {
  const { histograms } = aggregate;
  observe(histograms.requestDuration, bounds.requestDuration, scan.requestTime);
  if (!Number.isNaN(scan.upstreamTime)) observe(histograms.responseDuration, bounds.responseDuration, scan.upstreamTime);
  if (!Number.isNaN(scan.connectTime)) observe(histograms.connectDuration, bounds.connectDuration, scan.connectTime);
  if (!Number.isNaN(scan.headerTime)) observe(histograms.headerDuration, bounds.headerDuration, scan.headerTime);
  observe(histograms.requestSize, bounds.requestSize, scan.requestLength);
  observe(histograms.responseSize, bounds.responseSize, scan.bytesSent);
  // ingress-nginx's deprecated bytes_sent: the same value as response_size, in its own buckets.
  observe(histograms.bytesSent, bounds.bytesSent, scan.bytesSent);
}

/**
 * The aggregates of one parse, found by the raw "labels\tmethod\tstatus" of
 * a line. Raw keys that differ only in an unknown method share the "OTHER"
 * aggregate; a raw key that does not fit maps to null (the line is malformed).
 */
class AggregateTable {
  readonly aggregates: Aggregate[] = [];
  readonly #byRawKey = new Map<string, Aggregate | null>();
  readonly #byLabels = new Map<string, Aggregate>();
  readonly #routes = new Map<string, RouteLabels | null>();
  readonly #bounds: RequestBuckets;

  constructor(bounds: RequestBuckets) {
    this.#bounds = bounds;
  }

  /** undefined = this raw key was not seen yet: call add(). */
  find(rawKey: string): Aggregate | null | undefined {
    return this.#byRawKey.get(rawKey);
  }

  add(rawKey: string): Aggregate | null {
    const aggregate = this.#create(rawKey);
    this.#byRawKey.set(rawKey, aggregate);
    return aggregate;
  }

  #create(rawKey: string): Aggregate | null {
    const [labels, rawMethod, status] = rawKey.split('\t');
    const route = STATUS.test(status) ? this.#route(labels) : null;
    if (!route) return null;
    const method = METRIC_METHODS.has(rawMethod) ? rawMethod : 'OTHER';
    const key = `${labels}\t${method}\t${status}`;
    let aggregate = this.#byLabels.get(key);
    if (!aggregate) {
      aggregate = { location: route.location, canary: route.canary, method, status, histograms: emptyHistograms(this.#bounds) };
      this.#byLabels.set(key, aggregate);
      this.aggregates.push(aggregate);
    }
    return aggregate;
  }

  /** Decodes and parses each raw label set once. */
  #route(labels: string): RouteLabels | null {
    let route = this.#routes.get(labels);
    if (route === undefined) {
      route = parseRoute(decodeLabels(labels));
      this.#routes.set(labels, route);
    }
    return route;
  }
}

/**
 * Parses complete metrics-log lines (decoded one char per byte, "\n"-separated;
 * a final "\n" ends the last line) into one aggregate per location, canary,
 * method and status, counted in `bounds` (the --*-buckets flags; the
 * RequestMetrics that ingests the result must have the same). Never throws.
 */
export function parseMetricsLog(text: string, bounds: RequestBuckets = REQUEST_BUCKETS): ParsedPayload {
  const table = new AggregateTable(bounds);
  const scan: LineScan = { at: 0, tab: -1, number: 0, requestTime: 0, upstreamTime: 0, requestLength: 0, bytesSent: 0, connectTime: 0, headerTime: 0 };
  let malformed = 0;
  for (let start = 0; start < text.length;) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const keyEnds = keyEnd(text, start, end, scan);
    const rawKey = keyEnds < 0 ? '' : text.slice(start, keyEnds);
    let aggregate = keyEnds < 0 ? null : table.find(rawKey);
    scan.at = keyEnds + 1;
    // An aggregate is created only for a line that fits, as it is first seen.
    if (aggregate !== null && readValues(text, end, scan)) aggregate ??= table.add(rawKey);
    else aggregate = null;
    if (aggregate) observeLine(aggregate, scan, bounds);
    else malformed++;
    start = end + 1;
  }
  return { aggregates: table.aggregates, rejected: { malformed, bucketMismatch: 0 }, droppedInNginx: 0 };
}
