// Operating the controller: the healthz server (/healthz, /readyz, /metrics)
// and everything that feeds it — controller metrics from the sync hooks,
// per-request metrics tailed from NGINX's metrics log (unless
// --enable-metrics=false), stub_status connections, the NGINX processes'
// CPU and memory from /proc. main creates the
// Registry and hands it in; controller.ts only connects this to the sync,
// the store and NGINX through the functions below.

import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  createAdmissionMetrics, createControllerMetrics, createRequestMetrics, currentBuildInfo, fetchStubStatus, readProcessGroup, registerBuildInfo,
  registerNginxProcessMetrics, registerNginxStatusMetrics, startMetricsLogTail, requestBuckets, socketMetricName,
  LENGTH_BUCKETS, SIZE_BUCKETS, SOCKET_METRIC_NAMES, TIME_BUCKETS,
  type AdmissionOutcome, type ControllerMetrics, type LocationLabels, type MetricsLogTail, type RequestMetrics,
} from '../metrics/index.ts';
import { registerStreamCounters, type StreamTotals } from '../metrics/stream-counters.ts';
import type { ControllerOptions } from '../cli/index.ts';
import type { BuildResult, IngressRef, Model } from '../model/types.ts';
import type { SyncDetail, SyncHooks, SyncResult } from '../sync/sync.ts';
import { createHealthChecks } from './health-checks.ts';
import { startHealthServer } from './health-server.ts';

export interface ObservabilityOptions {
  readonly registry: Registry;
  readonly logger: Logger;
  /** Address and port of the healthz server (0 = any free port). */
  readonly host: string;
  readonly port: number;
  /** --health-check-path: another path liveness answers on, besides /healthz. */
  readonly healthPath?: string;
  /** NGINX's loopback status server, e.g. http://127.0.0.1:10246. */
  readonly statusUrl: string;
  /**
   * --enable-metrics: per-request metrics (nginx_ingress_controller_requests, the request/response
   * duration and size histograms, resty_ingress_monitor_rejected_total) and the tail of
   * metricsLogPath that feeds them. false = neither, and /metrics serves none of ingress-nginx's
   * metrics (as its dummy collector), only resty_ingress_*: NGINX then writes no metrics log (render).
   */
  readonly requestMetrics: boolean;
  /** The per-request metrics log NGINX writes (metricsLogPath(prefix)). */
  readonly metricsLogPath: string;
  readonly electionId: string;
  /** --ingress-class: the `class` label of ssl_expire_time_seconds. */
  readonly ingressClass: string;
  readonly reportStatusClasses: boolean;
  readonly metricsPerHost: boolean;
  /** --metrics-per-undefined-host, --*-buckets (null: ingress-nginx's default), --exclude-socket-metrics: see requestMetricsOptions. */
  readonly metricsPerUndefinedHost?: boolean;
  readonly buckets?: { readonly time: readonly number[] | null; readonly length: readonly number[] | null; readonly size: readonly number[] | null };
  readonly excludeSocketMetrics?: readonly string[];
  /** What the health checks read from the running parts; also the master that reopens the metrics log. */
  readonly nginxPid: () => number | null;
  readonly liveVersion: () => string | null;
  readonly luaVersion: () => Promise<number | null>;
  /** The TCP/UDP counters njs holds (nginx/stream-feed.ts readStreamStats); absent: no resty_ingress_stream_*_total. */
  readonly streamTotals?: () => Promise<readonly StreamTotals[] | null>;
  /** --validating-webhook is set: readiness also waits for markWebhookServing(). */
  readonly admissionWebhook?: boolean;
}

/** The command line's metrics flags. */
export type MetricsFlags = Pick<ControllerOptions,
  'enableMetrics' | 'reportStatusClasses' | 'metricsPerHost' | 'metricsPerUndefinedHost' | 'timeBuckets' | 'lengthBuckets' | 'sizeBuckets' | 'excludeSocketMetrics'>;

/** What the metrics flags set in ObservabilityOptions (controller.ts passes them through here, as the tests do). */
export function requestMetricsOptions(flags: MetricsFlags): Pick<ObservabilityOptions,
  'requestMetrics' | 'reportStatusClasses' | 'metricsPerHost' | 'metricsPerUndefinedHost' | 'buckets' | 'excludeSocketMetrics'> {
  return {
    requestMetrics: flags.enableMetrics,
    reportStatusClasses: flags.reportStatusClasses,
    metricsPerHost: flags.metricsPerHost,
    metricsPerUndefinedHost: flags.metricsPerUndefinedHost,
    buckets: { time: flags.timeBuckets, length: flags.lengthBuckets, size: flags.sizeBuckets },
    excludeSocketMetrics: flags.excludeSocketMetrics,
  };
}

export interface Observability {
  readonly metrics: ControllerMetrics;
  /** The port the healthz server bound. */
  readonly port: number;
  /** Sync hooks to merge into the sync's (see mergeHooks). */
  readonly syncHooks: SyncHooks;
  /** Wraps the sync's snapshot step (sync start, propagation clock). */
  snapshotTaken(): void;
  /** Wraps the build step (orphan Ingresses). */
  modelBuilt(result: BuildResult): void;
  /** The store's onChange. */
  objectChanged(kind: string): void;
  /** The validating webhook's onReviewed (check_success / check_errors / admission_roundtrip_duration). */
  admissionReviewed(outcome: AdmissionOutcome, ms: number, ingress: IngressRef | null): void;
  /** The first full configuration is live: readiness may pass. */
  markFirstConfigLive(): void;
  /** The admission webhook listens with its certificate: readiness may pass (when the webhook is on). */
  markWebhookServing(): void;
  /** SIGTERM: /healthz and /readyz fail from now on. */
  beginShutdown(): void;
  close(): Promise<void>;
}

const INGRESS_NGINX_PREFIX = 'nginx_ingress_controller_';

/** Calls every hook of every set in order; a set may leave any hook out. */
export function mergeHooks(...sets: readonly SyncHooks[]): SyncHooks {
  const all = <K extends keyof SyncHooks>(key: K) => (...args: Parameters<NonNullable<SyncHooks[K]>>): void => {
    for (const set of sets) (set[key] as ((...a: typeof args) => void) | undefined)?.(...args);
  };
  return {
    onBuilt: all('onBuilt'),
    onFailures: all('onFailures'),
    onSynced: all('onSynced'),
    onSyncFailed: all('onSyncFailed'),
    onReloadFailed: all('onReloadFailed'),
    onReloaded: all('onReloaded'),
  };
}

/** The label sets a model renders (host "" for the catch-all), to prune metrics of deleted locations. */
function locationKeys(model: Model): Set<string> {
  const keys = new Set<string>();
  for (const server of model.servers) {
    for (const location of server.locations) {
      if (location.route.kind !== 'backend') continue;
      keys.add(`${server.hostname === '_' ? '' : server.hostname} ${location.ingress?.name ?? ''} ${location.path}`);
    }
  }
  return keys;
}

/** The per-request metrics in the registry and the tail of NGINX's metrics log that feeds them. */
function startRequestMetrics(options: ObservabilityOptions): { readonly metrics: RequestMetrics; readonly tail: MetricsLogTail } {
  const exclude = options.excludeSocketMetrics ?? [];
  const unknown = exclude.filter((entry) => !SOCKET_METRIC_NAMES.includes(socketMetricName(entry)));
  // ingress-nginx ignores such names without a word; one line tells the user why nothing changed.
  if (unknown.length > 0) options.logger.warn({ names: unknown, socketMetrics: SOCKET_METRIC_NAMES }, '--exclude-socket-metrics names metrics that are not per-request metrics: they exclude nothing');
  const metrics = createRequestMetrics(options.registry, {
    statusClasses: options.reportStatusClasses,
    perHost: options.metricsPerHost,
    perUndefinedHost: options.metricsPerUndefinedHost,
    buckets: requestBuckets({
      time: options.buckets?.time ?? TIME_BUCKETS,
      length: options.buckets?.length ?? LENGTH_BUCKETS,
      size: options.buckets?.size ?? SIZE_BUCKETS,
    }),
    exclude,
  });
  const tail = startMetricsLogTail({
    path: options.metricsLogPath, metrics, logger: options.logger,
    // SIGUSR1: the master reopens its log files and has the workers flush and reopen theirs.
    reopenLogs: () => {
      const pid = options.nginxPid();
      if (pid === null) throw new Error('NGINX is not running');
      process.kill(pid, 'SIGUSR1');
    },
  });
  return { metrics, tail };
}

/**
 * Takes ingress-nginx's metrics (the controller and admission ones: the sync
 * hooks still update them) out of what /metrics serves.
 */
function unserveIngressNginxMetrics(registry: Registry): void {
  for (const metric of registry.getMetricsAsArray()) {
    if (metric.name.startsWith(INGRESS_NGINX_PREFIX)) registry.removeSingleMetric(metric.name);
  }
}

export async function startObservability(options: ObservabilityOptions): Promise<Observability> {
  const { registry, logger } = options;
  const metrics = createControllerMetrics({ registry, electionId: options.electionId, ingressClass: options.ingressClass });
  const admission = createAdmissionMetrics({ registry });
  // Off: no file to watch, and none of ingress-nginx's metrics, as its dummy collector
  // (its /metrics then keeps only the Go runtime's and the process's; ours keeps resty_ingress_*).
  const requests = options.requestMetrics ? startRequestMetrics(options) : null;
  if (options.requestMetrics) {
    registerBuildInfo(registry, currentBuildInfo());
    registerNginxStatusMetrics(registry, () => fetchStubStatus(`${options.statusUrl}/nginx_status`));
    registerNginxProcessMetrics(registry, () => {
      const pid = options.nginxPid();
      return pid === null ? null : readProcessGroup(pid);
    });
  } else {
    unserveIngressNginxMetrics(registry);
  }
  let firstConfigLive = false;
  let webhookServing = false;
  // A sync that returns has pushed its model's certificates (or found them unchanged): they are the served ones.
  let lastBuilt: Model | null = null;
  const { streamTotals } = options;
  if (streamTotals !== undefined) registerStreamCounters(registry, { read: streamTotals, streams: () => lastBuilt?.streams ?? [] });
  const checks = createHealthChecks({
    nginxPid: options.nginxPid,
    luaVersion: options.luaVersion,
    firstConfigLive: () => firstConfigLive,
    ...(options.admissionWebhook === true ? { webhookServing: () => webhookServing } : {}),
  });
  const server = await startHealthServer({
    host: options.host, port: options.port, healthPath: options.healthPath, registry, checks, logger,
    beforeScrape: requests === null ? undefined : () => requests.tail.drain(),
  });

  const syncHooks: SyncHooks = {
    onSynced(result: SyncResult, ms: number, _detail: SyncDetail): void {
      checks.syncFinished();
      metrics.syncFinished(result, ms);
      if (lastBuilt !== null) metrics.certificatesServed(lastBuilt.tls);
    },
    onSyncFailed(): void {
      checks.syncFinished();
      metrics.syncFinished('error', 0);
    },
    onReloaded(model: Model): void {
      metrics.reloadSucceeded(options.liveVersion());
      if (requests === null) return;
      const live = locationKeys(model);
      requests.metrics.prune((l: LocationLabels) => live.has(`${l.host} ${l.ingress} ${l.path}`));
    },
    onReloadFailed(): void {
      metrics.reloadFailed();
    },
  };

  return {
    metrics,
    port: server.port,
    syncHooks,
    snapshotTaken(): void {
      checks.syncStarted();
      metrics.snapshotTaken();
    },
    modelBuilt(result: BuildResult): void {
      lastBuilt = result.model;
      metrics.modelBuilt(result);
    },
    objectChanged: (kind) => metrics.objectChanged(kind),
    admissionReviewed: (outcome, ms, ingress) => admission.reviewed(outcome, ms, ingress),
    markFirstConfigLive(): void {
      firstConfigLive = true;
    },
    markWebhookServing(): void {
      webhookServing = true;
    },
    beginShutdown: () => checks.beginShutdown(),
    async close(): Promise<void> {
      requests?.tail.stop();
      await server.close();
    },
  };
}
