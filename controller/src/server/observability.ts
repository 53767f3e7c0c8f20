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
  registerNginxProcessMetrics, registerNginxStatusMetrics, startMetricsLogTail,
  type AdmissionOutcome, type ControllerMetrics, type LocationLabels, type MetricsLogTail, type RequestMetrics,
} from '../metrics/index.ts';
import { registerStreamCounters, type StreamTotals } from '../metrics/stream-counters.ts';
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
   * metricsLogPath that feeds them. false = neither: NGINX then writes no metrics log (render).
   */
  readonly requestMetrics: boolean;
  /** The per-request metrics log NGINX writes (metricsLogPath(prefix)). */
  readonly metricsLogPath: string;
  readonly electionId: string;
  /** --ingress-class: the `class` label of ssl_expire_time_seconds. */
  readonly ingressClass: string;
  readonly reportStatusClasses: boolean;
  readonly metricsPerHost: boolean;
  /** What the health checks read from the running parts; also the master that reopens the metrics log. */
  readonly nginxPid: () => number | null;
  readonly liveVersion: () => string | null;
  readonly luaVersion: () => Promise<number | null>;
  /** The TCP/UDP counters njs holds (nginx/stream-feed.ts readStreamStats); absent: no resty_ingress_stream_*_total. */
  readonly streamTotals?: () => Promise<readonly StreamTotals[] | null>;
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
  /** SIGTERM: /healthz and /readyz fail from now on. */
  beginShutdown(): void;
  close(): Promise<void>;
}

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
  const metrics = createRequestMetrics(options.registry, { statusClasses: options.reportStatusClasses, perHost: options.metricsPerHost });
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

export async function startObservability(options: ObservabilityOptions): Promise<Observability> {
  const { registry, logger } = options;
  const metrics = createControllerMetrics({ registry, electionId: options.electionId, ingressClass: options.ingressClass });
  const admission = createAdmissionMetrics({ registry });
  registerBuildInfo(registry, currentBuildInfo());
  // Off: no metric that would stay empty (ingress-nginx registers none either), no file to watch.
  const requests = options.requestMetrics ? startRequestMetrics(options) : null;
  registerNginxStatusMetrics(registry, () => fetchStubStatus(`${options.statusUrl}/nginx_status`));
  registerNginxProcessMetrics(registry, () => {
    const pid = options.nginxPid();
    return pid === null ? null : readProcessGroup(pid);
  });
  let firstConfigLive = false;
  // A sync that returns has pushed its model's certificates (or found them unchanged): they are the served ones.
  let lastBuilt: Model | null = null;
  const { streamTotals } = options;
  if (streamTotals !== undefined) registerStreamCounters(registry, { read: streamTotals, streams: () => lastBuilt?.streams ?? [] });
  const checks = createHealthChecks({
    nginxPid: options.nginxPid,
    luaVersion: options.luaVersion,
    firstConfigLive: () => firstConfigLive,
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
    beginShutdown: () => checks.beginShutdown(),
    async close(): Promise<void> {
      requests?.tail.stop();
      await server.close();
    },
  };
}
