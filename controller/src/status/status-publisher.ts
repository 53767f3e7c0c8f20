// Keeps `.status.loadBalancer.ingress` of our Ingresses equal to the
// published address. Only the leader calls it (several replicas writing
// would fight), and it writes only Ingresses whose status differs, so a
// steady cluster costs no API writes. Runs coalesce: a kick while a run is
// in progress schedules exactly one more. Writes go WRITE_CONCURRENCY at a
// time (ingress-nginx's pool of 10): one by one, 2,000 Ingresses took
// minutes. After clear() (shutdown) it writes nothing more.

import type { V1Ingress, V1IngressLoadBalancerIngress } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { ApiAvailability } from '../kube/api-availability.ts';
import type { IngressStatusWriter, ServiceReader } from '../kube/cluster-writer.ts';
import type { Snapshot } from '../model/types.ts';
import { forEachBounded } from './bounded-parallel.ts';
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
  /** Removes our published address from every Ingress showing it (shutdown); update() does nothing after. */
  clear(): Promise<void>;
  /** Ingress status writes so far (for tests and metrics). */
  writes(): number;
}

/** Status writes in flight at once. */
export const WRITE_CONCURRENCY = 10;

function describeEntry(entry: V1IngressLoadBalancerIngress): string {
  return [entry.ip, entry.hostname].filter((part) => part !== undefined).join(' ');
}

/** One Ingress whose status must change. */
interface StatusWrite {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly next: V1IngressLoadBalancerIngress[];
}

/** What a run wants an Ingress to show, from what it shows. */
type Want = (current: V1IngressLoadBalancerIngress[]) => V1IngressLoadBalancerIngress[];

export function createStatusPublisher(options: StatusPublisherOptions): StatusPublisher {
  const { source, writer, logger } = options;
  let writes = 0;
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;
  // What this process last wrote per Ingress: a write's own watch event may not be in the
  // snapshot yet when shutdown clears, and an address it does not show would be left behind.
  const lastWritten = new Map<string, readonly V1IngressLoadBalancerIngress[]>();

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

  /** The writes `want` asks for among our Ingresses: where it differs from what the Ingress shows, or from what we last wrote there. */
  const planWrites = (want: Want): StatusWrite[] => {
    const planned: StatusWrite[] = [];
    const seen = new Set<string>();
    for (const ingress of options.ours(options.snapshot())) {
      const namespace = ingress.metadata?.namespace ?? '';
      const name = ingress.metadata?.name ?? '';
      const key = `${namespace}/${name}`;
      seen.add(key);
      const current = currentAddresses(ingress.status);
      const next = want(current);
      const written = lastWritten.get(key);
      if (!sameAddresses(current, next) || (written !== undefined && !sameAddresses(written, next))) planned.push({ key, namespace, name, next });
    }
    for (const key of lastWritten.keys()) if (!seen.has(key)) lastWritten.delete(key);
    return planned;
  };

  /** Writes what `want` asks for, WRITE_CONCURRENCY at a time; one line for the run, with `fields`. */
  const reconcile = async (want: Want, message: string, fields: Record<string, unknown>): Promise<void> => {
    const planned = planWrites(want);
    if (planned.length === 0) return;
    const started = Date.now();
    let written = 0;
    await forEachBounded(planned, WRITE_CONCURRENCY, async ({ key, namespace, name, next }) => {
      try {
        await writer.write(namespace, name, next);
        options.availability?.reached();
        lastWritten.set(key, next);
        writes += 1;
        written += 1;
        logger.debug({ ingress: key, addresses: next.map(describeEntry) }, 'ingress status written');
      } catch (err) {
        // The next run (kick or interval) tries again; one failure must not stop the others.
        if (options.availability?.failed(err, 'ingress status') !== true) logger.warn({ err, ingress: key }, 'ingress status update failed');
      }
    });
    logger.info({ ...fields, ingresses: written, failed: planned.length - written, ms: Date.now() - started }, message);
  };

  const runOnce = async (): Promise<void> => {
    const addresses = await desired();
    if (addresses !== null && !closed) await reconcile(() => addresses, 'ingress status updated', { addresses: addresses.map(describeEntry) });
  };

  const update = (): Promise<void> => {
    if (closed) return Promise.resolve();
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
      closed = true;
      await running;
      const ours = await desired().catch(() => null);
      if (ours === null || ours.length === 0) return;
      const mine = new Set(ours.map(entryKey));
      const isMine = (entry: V1IngressLoadBalancerIngress): boolean => mine.has(entryKey(entry));
      // Only our entries go: an address someone else put there stays.
      await reconcile((current) => current.filter((entry) => !isMine(entry)), 'ingress status cleared', { removed: ours.map(describeEntry) });
    },
    writes: () => writes,
  };
}
