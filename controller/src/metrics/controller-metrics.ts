// The controller's own metrics: configuration and reloads under ingress-nginx's
// names (dashboards and alerts rely on them), plus resty-ingress's sync
// outcomes and endpoint propagation time. main feeds these from the sync
// hooks; nothing here does I/O.

import { createHash } from 'node:crypto';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { createUnsupportedNameMetrics } from './unsupported-names.ts';
import type { BuildResult, TlsState } from '../model/types.ts';
import { createCertificateExpiryMetric } from './certificate-expiry.ts';
import { createCertificateInfoMetric } from './certificate-info.ts';
import { createStreamMetrics } from './stream-metrics.ts';

/** A sync outcome as the sync reports it ('reload-queued' and 'known-bad' fold into reload / error). */
export type SyncOutcome = 'skip' | 'dynamic' | 'reload' | 'reload-queued' | 'known-bad' | 'error';

export interface ControllerMetrics {
  /** After every sync (its outcome and duration in ms). */
  syncFinished(outcome: SyncOutcome, ms: number): void;
  /** A configuration went live; `version` is the rendered config version. */
  reloadSucceeded(version: string | null): void;
  reloadFailed(): void;
  /** A watched object changed: EndpointSlice changes start the propagation clock. */
  objectChanged(kind: string): void;
  /** The sync took its snapshot: changes seen so far are now being applied. */
  snapshotTaken(): void;
  /** Every build: orphan Ingresses (no Service / no endpoints), Ingresses NGINX refused. */
  modelBuilt(result: BuildResult): void;
  /** Leader election (set by the status writer). */
  setLeader(isLeader: boolean): void;
  /** After a sync: the certificates NGINX serves now (ssl_expire_time_seconds, ssl_certificate_info; gone ones are removed). */
  certificatesServed(tls: TlsState): void;
}

const PREFIX = 'nginx_ingress_controller_';

/** A config version as a number that fits a float exactly (ingress-nginx exposes a hash too). */
export function configHashValue(version: string): number {
  return parseInt(createHash('sha256').update(version).digest('hex').slice(0, 12), 16);
}

export interface ControllerMetricsOptions {
  readonly registry: Registry;
  /** Name of the leader-election Lease (label `name`, as ingress-nginx). */
  readonly electionId: string;
  /** --ingress-class: the `class` label of the certificate metrics. */
  readonly ingressClass: string;
  readonly now?: () => number;
}

export function createControllerMetrics(options: ControllerMetricsOptions): ControllerMetrics {
  const registers = [options.registry];
  const now = options.now ?? Date.now;
  const configHash = new Gauge({ name: `${PREFIX}config_hash`, help: 'Running configuration hash actually set', registers });
  const lastReloadOk = new Gauge({ name: `${PREFIX}config_last_reload_successful`, help: 'Whether the last configuration reload attempt was successful', registers });
  const lastReloadTime = new Gauge({ name: `${PREFIX}config_last_reload_successful_timestamp_seconds`, help: 'Timestamp of the last successful configuration reload', registers });
  const reloads = new Counter({ name: `${PREFIX}success`, help: 'Cumulative number of Ingress controller reload operations', registers });
  const reloadErrors = new Counter({ name: `${PREFIX}errors`, help: 'Cumulative number of Ingress controller errors during reload operations', registers });
  const leader = new Gauge({ name: `${PREFIX}leader_election_status`, help: 'Gauge reporting status of the leader election, 0 indicates follower, 1 indicates leader', labelNames: ['name'], registers });
  const sslExpiry = createCertificateExpiryMetric({ registry: options.registry, ingressClass: options.ingressClass });
  const sslInfo = createCertificateInfoMetric({ registry: options.registry, ingressClass: options.ingressClass });
  const orphans = new Gauge({ name: `${PREFIX}orphan_ingress`, help: 'Gauge reporting status of orphaned ingress, 1 indicates orphaned ingress', labelNames: ['namespace', 'ingress', 'type'], registers });
  // Failures of reason RejectedByNginx (sync/ingress-isolation.ts): left out, the others applied.
  const rejected = new Gauge({ name: 'resty_ingress_rejected_ingress', help: 'Ingresses left out of the configuration because NGINX refused it (1), until they change', labelNames: ['namespace', 'ingress'], registers });
  const syncs = new Counter({ name: 'resty_ingress_sync_total', help: 'Syncs by outcome', labelNames: ['result'], registers });
  const syncDuration = new Histogram({ name: 'resty_ingress_sync_duration_seconds', help: 'Time of one sync (snapshot, build, decide, apply)', buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10], registers });
  const propagation = new Histogram({ name: 'resty_ingress_endpoint_propagation_seconds', help: 'From an EndpointSlice event to its endpoints acknowledged by NGINX', buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers });
  lastReloadOk.set(1);
  const unsupportedNames = createUnsupportedNameMetrics(options.registry);
  const streamMetrics = createStreamMetrics(options.registry);
  leader.set({ name: options.electionId }, 0);
  for (const result of ['skip', 'dynamic', 'reload', 'error']) syncs.inc({ result }, 0);

  let changedAt: number | null = null; // first EndpointSlice change not yet in a snapshot
  let applyingSince: number | null = null; // the same, once a sync's snapshot holds it

  return {
    syncFinished(outcome: SyncOutcome, ms: number): void {
      const result = outcome === 'reload-queued' ? 'reload' : outcome === 'known-bad' ? 'error' : outcome;
      syncs.inc({ result });
      syncDuration.observe(ms / 1000);
      if (applyingSince !== null && (result === 'dynamic' || result === 'reload')) {
        propagation.observe((now() - applyingSince) / 1000);
      }
      // skip: the change did not touch endpoints; error: the next sync applies it.
      if (result !== 'error') applyingSince = null;
    },
    reloadSucceeded(version: string | null): void {
      reloads.inc();
      lastReloadOk.set(1);
      lastReloadTime.set(Math.floor(now() / 1000));
      if (version !== null) configHash.set(configHashValue(version));
    },
    reloadFailed(): void {
      reloadErrors.inc();
      lastReloadOk.set(0);
    },
    objectChanged(kind: string): void {
      if (kind === 'EndpointSlice' && changedAt === null) changedAt = now();
    },
    snapshotTaken(): void {
      if (changedAt !== null && applyingSince === null) applyingSince = changedAt;
      changedAt = null;
    },
    modelBuilt({ model, failures }: BuildResult): void {
      unsupportedNames.update(failures);
      streamMetrics.update({ model, failures });
      orphans.reset();
      rejected.reset();
      const noService = new Set<string>();
      for (const failure of failures) {
        if (failure.ingress && failure.reason === 'RejectedByNginx') rejected.set({ namespace: failure.ingress.namespace, ingress: failure.ingress.name }, 1);
        if (failure.ingress && failure.reason === 'ServiceNotFound') {
          noService.add(`${failure.ingress.namespace}/${failure.ingress.name}`);
          orphans.set({ namespace: failure.ingress.namespace, ingress: failure.ingress.name, type: 'no-service' }, 1);
        }
      }
      const empty = new Set(model.backends.filter((b) => b.endpoints.length === 0).map((b) => b.name));
      for (const server of model.servers) {
        for (const location of server.locations) {
          const ref = location.ingress;
          if (!ref || location.route.kind !== 'backend' || !empty.has(location.route.backend)) continue;
          if (noService.has(`${ref.namespace}/${ref.name}`)) continue;
          orphans.set({ namespace: ref.namespace, ingress: ref.name, type: 'no-endpoint' }, 1);
        }
      }
    },
    setLeader(isLeader: boolean): void {
      leader.set({ name: options.electionId }, isLeader ? 1 : 0);
    },
    certificatesServed(tls: TlsState): void {
      sslExpiry.served(tls);
      sslInfo.served(tls);
    },
  };
}
