// What per-request data looks like once it reaches the controller: requests
// of one location, method and status, aggregated into the histograms.
// The reader of NGINX's metrics log (metrics-log-lines.ts) produces it,
// request-metrics.ts feeds it into the registry; neither knows the other.

/** The per-request histograms (ingress-nginx's socket collector has the same seven). */
export const HISTOGRAMS = ['requestDuration', 'responseDuration', 'connectDuration', 'headerDuration', 'requestSize', 'responseSize', 'bytesSent'] as const;
export type HistogramKey = (typeof HISTOGRAMS)[number];

/** ingress-nginx's --time-buckets default (Prometheus' DefBuckets). */
export const TIME_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/**
 * ingress-nginx's --length-buckets default, LinearBuckets(10, 10, 10): most
 * requests land in +Inf, but dashboards and recording rules name these `le`s.
 */
export const LENGTH_BUCKETS: readonly number[] = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
/** ingress-nginx's --size-buckets default, ExponentialBuckets(10, 10, 7). */
export const SIZE_BUCKETS: readonly number[] = [10, 100, 1000, 10000, 100000, 1000000, 10000000];

/** Each histogram's bucket bounds, increasing, +Inf implicit. */
export type RequestBuckets = Readonly<Record<HistogramKey, readonly number[]>>;

/** What --time-buckets, --length-buckets and --size-buckets give (their values are checked by the CLI). */
export interface BucketFlags {
  readonly time: readonly number[];
  readonly length: readonly number[];
  readonly size: readonly number[];
}

/** The histograms' bounds from the three flags, as ingress-nginx's socket collector assigns them. */
export function requestBuckets(flags: BucketFlags): RequestBuckets {
  return Object.freeze({
    requestDuration: flags.time,
    responseDuration: flags.time,
    connectDuration: flags.time,
    headerDuration: flags.time,
    requestSize: flags.length,
    responseSize: flags.length,
    bytesSent: flags.size,
  });
}

/** Bucket bounds with ingress-nginx's default flags. */
export const REQUEST_BUCKETS: RequestBuckets = requestBuckets({ time: TIME_BUCKETS, length: LENGTH_BUCKETS, size: SIZE_BUCKETS });

/** The static labels a proxied location renders into `$resty_route` (after its flags and backend). */
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

/** One aggregated label set: every request of one location, canary, method and status. */
export interface RequestAggregate {
  readonly location: LocationLabels;
  /** The canary backend the balancer sent these requests to; "" = the location's own backend. */
  readonly canary: string;
  readonly method: string;
  readonly status: string;
  readonly histograms: Readonly<Record<HistogramKey, HistogramData>>;
}

export interface ParsedPayload {
  readonly aggregates: RequestAggregate[];
  /** Entries that did not fit the shape, by reason. */
  readonly rejected: { malformed: number; bucketMismatch: number };
  /** Entries NGINX itself dropped (its buffer was full). */
  readonly droppedInNginx: number;
}

/** "-" and the catch-all "_" mean "none" in the rendered key. */
const field = (text: string): string => (text === '-' || text === '_' ? '' : text);

/** A route as the metrics log carries it: the location's labels and the canary that answered ("" = none). */
export interface RouteLabels {
  readonly location: LocationLabels;
  readonly canary: string;
}

/**
 * `$resty_route` as NGINX logged it → labels, or null when it does not fit:
 * `flags backend host namespace ingress service path`, plus ` canary` when
 * the balancer sent the request to a canary backend. Flags and backend are
 * the balancer's, not labels: the metrics carry the service instead.
 */
export function parseRoute(route: string): RouteLabels | null {
  const parts = route.split(' ');
  if ((parts.length !== 7 && parts.length !== 8) || !parts[6].startsWith('/')) return null;
  const [, , host, namespace, ingress, service, path, canary = ''] = parts;
  if (parts.length === 8 && canary === '') return null;
  // render writes a regex path's `$` as a backtick (NGINX would expand `$`).
  return {
    location: { host: field(host), namespace: field(namespace), ingress: field(ingress), service: field(service), path: path.replaceAll('`', '$') },
    canary,
  };
}
