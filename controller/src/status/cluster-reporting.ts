// What the controller reports back to the cluster, composed: Events on
// Ingresses (every replica, as ingress-nginx does) and Ingress status
// (the leader only, chosen through a Lease). controller.ts merges the sync
// hooks returned here and wraps its build step with `built`.

import { hostname } from 'node:os';
import type { KubeConfig, V1Ingress } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { ControllerOptions } from '../cli/index.ts';
import type { ApiAvailability } from '../kube/api-availability.ts';
import { createEventSink, createIngressStatusWriter, createLeaseStore, createServiceReader } from '../kube/cluster-writer.ts';
import type { Model, Snapshot } from '../model/types.ts';
import type { SyncHooks } from '../sync/sync.ts';
import { createEventRecorder, type EventRecorder } from './event-recorder.ts';
import { createFailureReporter } from './failure-reporter.ts';
import { createIngressEvents } from './ingress-events.ts';
import { createLeaderElector, type LeaderElector } from './leader-election.ts';
import type { AddressSource } from './published-address.ts';
import { createStatusPublisher, type StatusPublisher } from './status-publisher.ts';

/** ingress-nginx's `--status-update-interval` default: catches a --publish-service outside the watched namespaces. */
const STATUS_INTERVAL_MS = 60_000;
/** Status runs after syncs are spaced by this much (they coalesce meanwhile). */
const STATUS_DELAY_MS = 500;

export interface ClusterReportingOptions {
  readonly kc: KubeConfig;
  readonly options: ControllerOptions;
  readonly logger: Logger;
  /** Shared with the store: an API outage is logged once for the whole controller. */
  readonly availability?: ApiAvailability;
  /** The informer view (status compares against it). */
  readonly snapshot: () => Snapshot;
  /** Our Ingresses among a snapshot's. */
  readonly ours: (snapshot: Snapshot) => readonly V1Ingress[];
  /** True when the model's configuration is the one NGINX runs. */
  readonly isLive: (model: Model) => boolean;
  /** NGINX's own words for a failed reload. */
  readonly describeReloadError: (err: unknown) => string;
  /** Leadership changed (for the leader_election_status gauge). */
  readonly onLeaderChange?: (leading: boolean) => void;
  /** Defaults to process.env: POD_NAME and POD_NAMESPACE as the Downward API sets them. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface ClusterReporting {
  /** Wraps the build step: remembers which Ingress objects a model came from. */
  built(model: Model, snapshot: Snapshot): void;
  readonly hooks: SyncHooks;
  readonly recorder: EventRecorder;
  isLeader(): boolean;
  /** Starts leader election (or leads at once with --disable-leader-election). */
  start(): void;
  /**
   * Shutdown, in this order: no status run starts any more; status is cleared if asked to (the
   * Lease still held, so no other replica writes meanwhile); the Lease is released; Events flushed.
   * Stop the sync first: every cleared status comes back as a watch event.
   */
  stop(): Promise<void>;
}

function addressSource(options: ControllerOptions): AddressSource | null {
  if (options.publishStatusAddress.length > 0) return { kind: 'addresses', addresses: options.publishStatusAddress };
  if (options.publishService === null) return null;
  const [namespace, name] = options.publishService.split('/');
  return { kind: 'service', namespace, name };
}

export function createClusterReporting(params: ClusterReportingOptions): ClusterReporting {
  const { kc, options, logger, availability } = params;
  const env = params.env ?? process.env;
  // Two replicas on one host (tests, a laptop) must not share an identity.
  const identity = env.POD_NAME || `${hostname()}-${process.pid}`;
  const namespace = env.POD_NAMESPACE || 'default';
  const recorder = createEventRecorder({
    sink: createEventSink(kc), logger: logger.child({ component: 'events' }), availability, component: 'resty-ingress-controller', instance: identity,
  });
  const events = createIngressEvents({ recorder, syncEvents: !options.disableSyncEvents, isLive: params.isLive, configMap: options.configMap });
  const failures = createFailureReporter(logger.child({ component: 'model' }), (failure) => events.failure(failure));

  const source = options.updateStatus ? addressSource(options) : null;
  const publisher: StatusPublisher | null = source === null ? null : createStatusPublisher({
    source, writer: createIngressStatusWriter(kc), readService: createServiceReader(kc),
    snapshot: params.snapshot, ours: params.ours, logger: logger.child({ component: 'status' }), availability,
  });

  let leading = false;
  let stopping = false;
  let statusTimer: NodeJS.Timeout | null = null;
  let interval: NodeJS.Timeout | null = null;
  // Asked right before each status write: `leading` is only as fresh as the last election round.
  let leadsNow = (): boolean => leading;
  const scheduleStatus = (): void => {
    if (!publisher || !leading || statusTimer || stopping) return;
    statusTimer = setTimeout(() => {
      statusTimer = null;
      if (leadsNow()) void publisher.update();
    }, STATUS_DELAY_MS);
  };
  const onLeading = (value: boolean): void => {
    leading = value;
    params.onLeaderChange?.(value);
    scheduleStatus();
  };
  const elector: LeaderElector | null = options.disableLeaderElection ? null : createLeaderElector({
    leases: createLeaseStore(kc, namespace, options.electionId), identity, ttlMs: options.electionTtlMs,
    logger: logger.child({ component: 'leader-election' }), availability, onChange: onLeading,
  });
  if (elector) leadsNow = () => leading && elector.isLeader();

  return {
    built: (model, snapshot) => events.built(model, snapshot),
    recorder,
    isLeader: () => leading,
    hooks: {
      onFailures: (list) => failures.report(list),
      onReloaded: (model) => events.reloaded(model),
      onReloadFailed: (err, model) => events.reloadFailed(params.describeReloadError(err), model),
      onSynced: () => {
        events.synced();
        scheduleStatus();
      },
    },
    start(): void {
      logger.info({ identity, lease: `${namespace}/${options.electionId}`, election: elector !== null, status: source?.kind ?? 'off' }, 'cluster reporting started');
      if (elector) elector.start();
      else onLeading(true);
      if (publisher) interval = setInterval(scheduleStatus, STATUS_INTERVAL_MS).unref();
    },
    async stop(): Promise<void> {
      stopping = true;
      if (statusTimer) clearTimeout(statusTimer);
      if (interval) clearInterval(interval);
      // Clear before releasing the Lease, so the next leader's first run writes after us; and only
      // after a fresh renewal: a replica that was frozen may still believe it leads.
      const stillLeading = leading && (elector === null || await elector.tryAcquireOrRenew());
      if (publisher && stillLeading && options.updateStatusOnShutdown) await publisher.clear();
      if (elector) await elector.stop();
      leading = false;
      await recorder.flush();
    },
  };
}
