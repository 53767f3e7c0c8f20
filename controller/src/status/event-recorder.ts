// Kubernetes Events for `kubectl describe`, written so that a broken Ingress
// cannot flood the API: the same object+type+reason+message bumps `count` on
// the Event already written (client-go's correlator does the same), every
// write spends a token from the object's bucket and from a global one, and
// writes run one at a time behind a bounded queue. record() never throws and
// never waits: Events are best effort, the sync must not block on them.

import type { CoreV1Event } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { ApiAvailability } from '../kube/api-availability.ts';
import type { EventSink } from '../kube/cluster-writer.ts';
import { createTokenBucket, type Clock, type TokenBucket } from './token-bucket.ts';

/** The object an Event is about (`involvedObject`); `uid` is what `kubectl describe` matches on. */
export interface EventTarget {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
}

export type EventType = 'Normal' | 'Warning';

export interface RateLimit {
  readonly capacity: number;
  readonly refillPerSecond: number;
}

export interface EventRecorderOptions {
  readonly sink: EventSink;
  readonly logger: Logger;
  /** Where failures an API outage explains go (logged once per outage). */
  readonly availability?: ApiAvailability;
  /** `source.component` / `reportingComponent`. */
  readonly component: string;
  /** `source.host` / `reportingInstance`: this replica (pod name). */
  readonly instance: string;
  readonly now?: Clock;
  /** Per object (default: burst 25, then one per 10 s). */
  readonly perObject?: RateLimit;
  /** Whole controller (default: burst 100, then 5/s). */
  readonly global?: RateLimit;
  /** Writes waiting beyond this are dropped (default 500). */
  readonly maxPending?: number;
}

export interface EventRecorderStats {
  readonly created: number;
  readonly bumped: number;
  /** Rate-limited, queue full, or failed writes. */
  readonly dropped: number;
}

export interface EventRecorder {
  record(target: EventTarget, type: EventType, reason: string, message: string): void;
  /** Resolves once every write queued so far has been tried. */
  flush(): Promise<void>;
  stats(): EventRecorderStats;
}

/** The API accepts longer messages, but describe output and etcd do not need NGINX's whole log. */
const MAX_MESSAGE_CHARS = 1024;
/** Remembered Events and per-object buckets; the oldest are forgotten past this. */
const MAX_TRACKED = 4096;

interface WrittenEvent { readonly namespace: string; readonly name: string; count: number }

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_TRACKED) map.delete(map.keys().next().value as string);
}

export function createEventRecorder(options: EventRecorderOptions): EventRecorder {
  const { sink, logger, component, instance } = options;
  const now = options.now ?? Date.now;
  const perObject = options.perObject ?? { capacity: 25, refillPerSecond: 0.1 };
  const maxPending = options.maxPending ?? 500;
  const global = createTokenBucket({ ...(options.global ?? { capacity: 100, refillPerSecond: 5 }), now });
  const buckets = new Map<string, TokenBucket>();
  const written = new Map<string, WrittenEvent>();
  const stats = { created: 0, bumped: 0, dropped: 0 };
  let pending = 0;
  let chain: Promise<void> = Promise.resolve();
  let sequence = 0;

  const allowed = (objectKey: string): boolean => {
    let bucket = buckets.get(objectKey);
    if (!bucket) {
      bucket = createTokenBucket({ ...perObject, now });
      remember(buckets, objectKey, bucket);
    }
    // The object's bucket first: a flooding object must not drain the global one.
    return bucket.take() && global.take();
  };

  const newEvent = (target: EventTarget, type: EventType, reason: string, message: string, at: Date): CoreV1Event => {
    // client-go's naming: <object>.<unique hex>; the object part is cut so the name stays a valid DNS subdomain.
    const unique = (at.getTime() * 1000 + (sequence++ % 1000)).toString(16);
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${target.name.slice(0, 200)}.${unique}`, namespace: target.namespace },
      involvedObject: { ...target },
      type,
      reason,
      message,
      count: 1,
      firstTimestamp: at,
      lastTimestamp: at,
      source: { component, host: instance },
      reportingComponent: component,
      reportingInstance: instance,
    };
  };

  const write = async (key: string, target: EventTarget, type: EventType, reason: string, message: string): Promise<void> => {
    const at = new Date(now());
    const seen = written.get(key);
    if (seen) {
      try {
        await sink.bump(seen.namespace, seen.name, seen.count + 1, at);
        seen.count += 1;
        stats.bumped += 1;
        return;
      } catch (err) {
        // Gone (expired after an hour, or deleted): write a fresh one below.
        logger.debug({ err, event: seen.name }, 'event bump failed; creating a new event');
        written.delete(key);
      }
    }
    const event = newEvent(target, type, reason, message, at);
    await sink.create(event);
    remember(written, key, { namespace: target.namespace, name: event.metadata.name as string, count: 1 });
    stats.created += 1;
  };

  return {
    record(target, type, reason, rawMessage): void {
      const message = rawMessage.length > MAX_MESSAGE_CHARS ? `${rawMessage.slice(0, MAX_MESSAGE_CHARS - 1)}…` : rawMessage;
      const objectKey = `${target.kind}/${target.namespace}/${target.name}/${target.uid ?? ''}`;
      if (pending >= maxPending || !allowed(objectKey)) {
        stats.dropped += 1;
        logger.debug({ object: objectKey, reason }, 'event dropped (rate limit)');
        return;
      }
      const key = [objectKey, type, reason, message].join('\u0000');
      pending += 1;
      chain = chain
        .then(() => write(key, target, type, reason, message))
        .then(() => options.availability?.reached(), (err: unknown) => {
          stats.dropped += 1;
          if (options.availability?.failed(err, 'event') === true) logger.debug({ object: objectKey, reason }, 'event dropped: API unreachable');
          else logger.warn({ err, object: objectKey, reason }, 'event write failed');
        })
        .finally(() => { pending -= 1; });
    },
    flush: () => chain,
    stats: () => ({ ...stats }),
  };
}
