// The per-request data NGINX hands over: GET /configuration/metrics on the
// status server drains what every worker aggregated since the last drain
// (lua/resty_ingress/monitor.lua). Shape:
//   {"buckets":[[...],[...],[...],[...]], "dropped":N,
//    "batches":[{"<host> <namespace> <ingress> <service> <path>":{"GET":{"200":[...]}}}]}
// Each entry holds, per histogram in HISTOGRAMS order: count, sum, then one
// count per bucket plus the overflow. Anything that does not fit is counted
// and skipped, never thrown: a bad batch must not stop the others.

/** The four per-request histograms, in the order of the Lua entry layout. */
export const HISTOGRAMS = ['requestDuration', 'responseDuration', 'requestSize', 'responseSize'] as const;
export type HistogramKey = (typeof HISTOGRAMS)[number];

/** Bucket bounds; monitor.lua has the same list and sends it with every drain, which must match. */
export const REQUEST_BUCKETS: Readonly<Record<HistogramKey, readonly number[]>> = {
  requestDuration: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  responseDuration: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  requestSize: [64, 256, 1024, 4096, 16384, 65536, 262144, 1048576],
  responseSize: [64, 256, 1024, 4096, 16384, 65536, 262144, 1048576],
};

/** The static labels a proxied location renders into `$resty_metrics_labels`. */
export interface LocationLabels {
  /** Server name; "" for the catch-all. */
  readonly host: string;
  readonly namespace: string;
  readonly ingress: string;
  readonly service: string;
  /** The Ingress path as written (not the request URI). */
  readonly path: string;
}

export interface HistogramData {
  readonly count: number;
  readonly sum: number;
  /** Per-bucket counts plus the overflow, not cumulative. */
  readonly buckets: readonly number[];
}

/** One aggregated label set: every request of one location, method and status. */
export interface RequestAggregate {
  readonly location: LocationLabels;
  readonly method: string;
  readonly status: string;
  readonly histograms: Readonly<Record<HistogramKey, HistogramData>>;
}

export interface ParsedPayload {
  readonly aggregates: RequestAggregate[];
  /** Entries that did not fit the shape, by reason. */
  readonly rejected: { malformed: number; bucketMismatch: number };
  /** Batches NGINX itself dropped (its buffer was full). */
  readonly droppedInNginx: number;
}

const METHOD = /^[A-Z]{1,20}$/u;
const STATUS = /^\d{3}$/u;
const ENTRY_LENGTH = HISTOGRAMS.reduce((n, key) => n + 3 + REQUEST_BUCKETS[key].length, 0);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** "-" and the catch-all "_" mean "none" in the rendered key. */
const field = (text: string): string => (text === '-' || text === '_' ? '' : text);

/** `host namespace ingress service path` → labels, or null when it has not five fields. */
export function parseLocationKey(key: string): LocationLabels | null {
  const parts = key.split(' ');
  if (parts.length !== 5 || !parts[4].startsWith('/')) return null;
  const [host, namespace, ingress, service, path] = parts;
  // render writes a regex path's `$` as a backtick (NGINX would expand `$`).
  return { host: field(host), namespace: field(namespace), ingress: field(ingress), service: field(service), path: path.replaceAll('`', '$') };
}

function parseEntry(entry: unknown): Record<HistogramKey, HistogramData> | null {
  if (!Array.isArray(entry) || entry.length !== ENTRY_LENGTH) return null;
  if (!entry.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0)) return null;
  const numbers = entry as number[];
  const result = {} as Record<HistogramKey, HistogramData>;
  let at = 0;
  for (const key of HISTOGRAMS) {
    const width = REQUEST_BUCKETS[key].length + 1;
    result[key] = { count: numbers[at], sum: numbers[at + 1], buckets: numbers.slice(at + 2, at + 2 + width) };
    at += 2 + width;
  }
  return result;
}

function bucketsMatch(sent: unknown): boolean {
  if (!Array.isArray(sent) || sent.length !== HISTOGRAMS.length) return false;
  return HISTOGRAMS.every((key, i) => {
    const bounds: unknown = sent[i];
    return Array.isArray(bounds) && bounds.length === REQUEST_BUCKETS[key].length &&
      bounds.every((b, j) => b === REQUEST_BUCKETS[key][j]);
  });
}

/** Parses a drain response body; never throws. */
export function parseMonitorPayload(body: string): ParsedPayload {
  const rejected = { malformed: 0, bucketMismatch: 0 };
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    payload = null;
  }
  if (!isRecord(payload) || !Array.isArray(payload.batches)) {
    rejected.malformed++;
    return { aggregates: [], rejected, droppedInNginx: 0 };
  }
  const droppedInNginx = typeof payload.dropped === 'number' && payload.dropped > 0 ? payload.dropped : 0;
  if (!bucketsMatch(payload.buckets)) {
    rejected.bucketMismatch += payload.batches.length;
    return { aggregates: [], rejected, droppedInNginx };
  }
  const aggregates: RequestAggregate[] = [];
  for (const batch of payload.batches) {
    if (!isRecord(batch)) { rejected.malformed++; continue; }
    for (const [key, byMethod] of Object.entries(batch)) {
      const location = parseLocationKey(key);
      if (!location || !isRecord(byMethod)) { rejected.malformed++; continue; }
      for (const [method, byStatus] of Object.entries(byMethod)) {
        if (!METHOD.test(method) || !isRecord(byStatus)) { rejected.malformed++; continue; }
        for (const [status, entry] of Object.entries(byStatus)) {
          const histograms = STATUS.test(status) ? parseEntry(entry) : null;
          if (!histograms) { rejected.malformed++; continue; }
          aggregates.push({ location, method, status, histograms });
        }
      }
    }
  }
  return { aggregates, rejected, droppedInNginx };
}
