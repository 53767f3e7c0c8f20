// Per-request metrics under ingress-nginx's names, so existing dashboards
// keep working: nginx_ingress_controller_requests and the request/response
// duration and size histograms, labelled by the Ingress location (never the
// raw URI: cardinality stays bounded by what is configured). The flags users
// tame cardinality with act as in ingress-nginx's socket collector:
// --exclude-socket-metrics, --metrics-per-undefined-host, --*-buckets.

import { Counter, type Registry } from 'prom-client';
import { AggregatedHistogram } from './aggregated-histogram.ts';
import {
  HISTOGRAMS, REQUEST_BUCKETS, type HistogramKey, type LocationLabels, type ParsedPayload, type RequestBuckets,
} from './request-aggregate.ts';

export interface RequestMetricsOptions {
  /** --report-status-classes: status label `2xx` instead of `200`. */
  readonly statusClasses: boolean;
  /** --metrics-per-host: add the `host` label (the configured server name). */
  readonly perHost: boolean;
  /**
   * --metrics-per-undefined-host: with perHost, also count requests whose host no
   * Ingress defines (served by the catch-all or a wildcard server). Default false:
   * ingress-nginx drops them (they would let clients mint `host` values).
   */
  readonly perUndefinedHost?: boolean;
  /** --time-buckets, --length-buckets, --size-buckets; default ingress-nginx's. */
  readonly buckets?: RequestBuckets;
  /**
   * --exclude-socket-metrics: metric names (with or without the
   * `nginx_ingress_controller_` prefix) neither computed nor exported. A name
   * that is no per-request metric excludes nothing (ingress-nginx ignores it too).
   */
  readonly exclude?: readonly string[];
}

export interface RequestMetrics {
  /** The bounds parseMetricsLog must count in for ingest(). */
  readonly buckets: RequestBuckets;
  /** Adds parsed aggregates to the metrics; counts what was rejected. */
  ingest(payload: ParsedPayload): void;
  /** Forgets label sets of locations that no longer exist (after a reload). */
  prune(exists: (location: LocationLabels) => boolean): void;
}

const PREFIX = 'nginx_ingress_controller_';
const HISTOGRAM_INFO: Readonly<Record<HistogramKey, { name: string; help: string }>> = {
  requestDuration: { name: 'request_duration_seconds', help: 'The request processing time in seconds (NGINX $request_time)' },
  responseDuration: { name: 'response_duration_seconds', help: 'The time spent receiving the response from the upstream in seconds' },
  connectDuration: { name: 'connect_duration_seconds', help: 'The time spent establishing a connection with the upstream in seconds' },
  headerDuration: { name: 'header_duration_seconds', help: 'The time spent receiving the first header from the upstream in seconds' },
  requestSize: { name: 'request_size', help: 'The request length in bytes, including request line, header and body' },
  responseSize: { name: 'response_size', help: 'The response length in bytes, including headers' },
  bytesSent: { name: 'bytes_sent', help: 'DEPRECATED The number of bytes sent to a client (as response_size, in --size-buckets)' },
};

/** The names --exclude-socket-metrics can drop (ingress-nginx's socket collector's), without the prefix. */
export const SOCKET_METRIC_NAMES: readonly string[] = ['requests', ...HISTOGRAMS.map((key) => HISTOGRAM_INFO[key].name)];

/** Whether `exclude` names both metrics the metrics log's upstream connect and header times feed (NGINX may then skip them). */
export function excludesUpstreamTimes(exclude: readonly string[]): boolean {
  const names = new Set(exclude.map(socketMetricName));
  return names.has(HISTOGRAM_INFO.connectDuration.name) && names.has(HISTOGRAM_INFO.headerDuration.name);
}

/** An --exclude-socket-metrics entry as ingress-nginx matches it: the prefix is optional. */
export function socketMetricName(entry: string): string {
  return entry.startsWith(PREFIX) ? entry.slice(PREFIX.length) : entry;
}

/**
 * Whether a request to `host` (the configured server name, "" for the
 * catch-all) is to a host an Ingress defines. NGINX sends a request to the
 * catch-all only when no server name matches, and to a wildcard server for a
 * name no Ingress spells out: ingress-nginx's host set holds neither.
 */
export function isDefinedHost(host: string): boolean {
  return host !== '' && !host.startsWith('*');
}

/** Creates the per-request metrics in `registry`. */
export function createRequestMetrics(registry: Registry, options: RequestMetricsOptions): RequestMetrics {
  const buckets = options.buckets ?? REQUEST_BUCKETS;
  const excluded = new Set((options.exclude ?? []).map(socketMetricName));
  const dropUndefinedHosts = options.perHost && options.perUndefinedHost !== true;
  const base = ['namespace', 'ingress', 'service', 'path', 'method', 'status', 'canary'] as const;
  const labelNames: readonly string[] = options.perHost ? ['host', ...base] : base;
  const requests = excluded.has('requests') ? null : new Counter({
    name: `${PREFIX}requests`,
    help: 'The total number of client requests',
    labelNames,
    registers: [registry],
  });
  const histograms = HISTOGRAMS.filter((key) => !excluded.has(HISTOGRAM_INFO[key].name)).map((key) => {
    const histogram = new AggregatedHistogram({
      name: `${PREFIX}${HISTOGRAM_INFO[key].name}`,
      help: HISTOGRAM_INFO[key].help,
      labelNames,
      buckets: buckets[key],
    });
    histogram.registerWith(registry);
    return { key, histogram };
  });
  const rejected = new Counter({
    name: 'resty_ingress_monitor_rejected_total',
    help: 'Per-request metric entries from NGINX that were dropped, by reason',
    labelNames: ['reason'],
    registers: [registry],
  });
  const seen = new Map<string, { location: LocationLabels; labels: Record<string, string> }>();

  return {
    buckets,
    ingest(payload: ParsedPayload): void {
      if (payload.rejected.malformed) rejected.inc({ reason: 'malformed' }, payload.rejected.malformed);
      if (payload.rejected.bucketMismatch) rejected.inc({ reason: 'bucket-mismatch' }, payload.rejected.bucketMismatch);
      if (payload.droppedInNginx) rejected.inc({ reason: 'nginx-buffer-full' }, payload.droppedInNginx);
      for (const { location, canary, method, status, histograms: data } of payload.aggregates) {
        if (dropUndefinedHosts && !isDefinedHost(location.host)) continue;
        const labels: Record<string, string> = {
          ...(options.perHost ? { host: location.host } : {}),
          namespace: location.namespace,
          ingress: location.ingress,
          service: location.service,
          path: location.path,
          method,
          status: options.statusClasses ? `${status[0]}xx` : status,
          // ingress-nginx's label: the canary backend that answered, "" for the main one.
          canary,
        };
        seen.set(JSON.stringify(labels), { location, labels });
        if (requests !== null && data.requestDuration.count > 0) requests.inc(labels, data.requestDuration.count);
        for (const { key, histogram } of histograms) {
          if (data[key].count > 0) histogram.add(labels, data[key].buckets, data[key].sum);
        }
      }
    },
    prune(exists: (location: LocationLabels) => boolean): void {
      for (const [key, { location, labels }] of seen) {
        if (exists(location)) continue;
        seen.delete(key);
        requests?.remove(labels);
      }
      const live = new Set(seen.keys());
      for (const { histogram } of histograms) histogram.prune((labels) => live.has(JSON.stringify(labels)));
    },
  };
}
