// Keeps `.status.loadBalancer.ingress` of our Ingresses equal to the
// published address. Only the leader calls it (several replicas writing
// would fight), and it writes only Ingresses whose status differs, so a
// steady cluster costs no API writes. Runs coalesce: a kick while a run is
// in progress schedules exactly one more.

import type { V1Ingress, V1IngressLoadBalancerIngress } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { ApiAvailability } from '../kube/api-availability.ts';
import type { IngressStatusWriter, ServiceReader } from '../kube/cluster-writer.ts';
import type { Snapshot } from '../model/types.ts';
import {
  currentAddresses,
  entryKey,
  normalizeAddresses,
  normalizeEntries,
  sameAddresses,
  serviceAddresses,
  type AddressSource,
} from './published-address.ts';

export interface StatusPublisherOptions {
  readonly source: AddressSource;
  readonly writer: IngressStatusWriter;
  readonly readService: ServiceReader;
  /** The informer view; status is compared against it (no extra reads). */
  readonly snapshot: () => Snapshot;
  /** Our Ingresses among the snapshot's (class selection as the builder does it). */
  readonly ours: (snapshot: Snapshot) => readonly V1Ingress[];
  readonly logger: Logger;
  /** Where failures an API outage explains go (logged once per outage, not once per Ingress). */
  readonly availability?: ApiAvailability;
}

export interface StatusPublisher {
  /** Brings every Ingress's status up to date; resolves when that run (and any it coalesced) finished. */
  update(): Promise<void>;
  /** Removes our published address from every Ingress showing it (shutdown). */
  clear(): Promise<void>;
  /** Ingress status writes so far (for tests and metrics). */
  writes(): number;
}

function describeEntry(entry: V1IngressLoadBalancerIngress): string {
  return [entry.ip, entry.hostname].filter((part) => part !== undefined).join(' ');
}

export function createStatusPublisher(options: StatusPublisherOptions): StatusPublisher {
  const { source, writer, logger } = options;
  let writes = 0;
  let running: Promise<void> | null = null;
  let again = false;

  const desired = async (): Promise<V1IngressLoadBalancerIngress[] | null> => {
    if (source.kind === 'addresses') return normalizeAddresses(source.addresses);
    const service = await options.readService(source.namespace, source.name);
    if (!service) {
      logger.warn({ service: `${source.namespace}/${source.name}` }, '--publish-service not found; Ingress status left as is');
      return null;
    }
    const published = serviceAddresses(service);
    if (published.kind === 'unusable') {
      logger.warn({ service: `${source.namespace}/${source.name}`, reason: published.reason }, '--publish-service has no usable address; Ingress status left as is');
      return null;
    }
    // [] (a load balancer still pending) is a real answer: nothing is published, an old address goes.
    return normalizeEntries(published.entries);
  };

  /** Writes `want(ingress)` to every one of our Ingresses whose status differs. */
  const reconcile = async (want: (current: V1IngressLoadBalancerIngress[]) => V1IngressLoadBalancerIngress[]): Promise<void> => {
    for (const ingress of options.ours(options.snapshot())) {
      const namespace = ingress.metadata?.namespace ?? '';
      const name = ingress.metadata?.name ?? '';
      const current = currentAddresses(ingress.status);
      const next = want(current);
      if (sameAddresses(current, next)) continue;
      try {
        await writer.write(namespace, name, next);
        options.availability?.reached();
        writes += 1;
        logger.info({ ingress: `${namespace}/${name}`, addresses: next.map(describeEntry) }, 'ingress status updated');
      } catch (err) {
        // The next run (kick or interval) tries again; one failure must not stop the others.
        if (options.availability?.failed(err, 'ingress status') !== true) logger.warn({ err, ingress: `${namespace}/${name}` }, 'ingress status update failed');
      }
    }
  };

  const runOnce = async (): Promise<void> => {
    const addresses = await desired();
    if (addresses !== null) await reconcile(() => addresses);
  };

  const update = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await runOnce();
        } catch (err) {
          if (options.availability?.failed(err, 'ingress status') !== true) logger.warn({ err }, 'ingress status run failed');
        }
      } while (again);
    })().finally(() => { running = null; });
    return running;
  };

  return {
    update,
    async clear(): Promise<void> {
      await running;
      const ours = await desired().catch(() => null);
      if (ours === null || ours.length === 0) return;
      const mine = new Set(ours.map(entryKey));
      // Only our entries go: an address someone else put there stays.
      await reconcile((current) => current.filter((entry) => !mine.has(entryKey(entry))));
    },
    writes: () => writes,
  };
}
