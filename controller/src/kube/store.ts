// The store: one resilient informer per watched kind (per named object for
// the kinds read by name: watch-targets.ts), and cheap immutable snapshots of
// their caches.
//
// Every add/update/delete calls onChange(kind); the sync queue coalesces, so
// the store does not. A snapshot reuses each kind's frozen array until that
// kind changes, so taking one after an EndpointSlice update rebuilds only the
// EndpointSlice array.

import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';

import type { Snapshot } from '../model/types.ts';
import { createApiAvailability, type ApiAvailability } from './api-availability.ts';
import type { BackoffOptions } from './backoff.ts';
import type { WatchTiming } from './bounded-watch.ts';
import { KINDS } from './kinds.ts';
import type { KindDescriptor, KindName } from './kinds.ts';
import { startResilientInformer } from './resilient-informer.ts';
import type { ResilientInformer } from './resilient-informer.ts';
import { watchTargets } from './watch-targets.ts';
import type { ObjectRef, WatchTarget } from './watch-targets.ts';

/** Options of createStore. */
export interface StoreOptions {
  /** --watch-namespace: namespaced kinds are listed/watched there only; null/undefined = all. */
  readonly namespace?: string | null;
  /**
   * The ConfigMaps to read (--configmap; later the TCP/UDP services ones),
   * each watched by name in its own namespace; no other ConfigMap is listed
   * or watched. Undefined/empty: none.
   */
  readonly configMaps?: readonly ObjectRef[];
  /** Called after every change to any cache, with the kind that changed. Must not throw. */
  readonly onChange: (kind: KindName) => void;
  readonly logger: Logger;
  /** Shared with the controller's other API clients so an outage is logged once (default: the store's own). */
  readonly availability?: ApiAvailability;
  /** Restart backoff for failed lists/watches (defaults: 100 ms doubling to 2 s). */
  readonly backoff?: Partial<BackoffOptions>;
  /** Watch duration bounds (defaults: server timeout 5–10 min, 30 s idle grace). */
  readonly watchTiming?: WatchTiming;
  /** A list (all its pages) taking longer than this is abandoned and retried (default 60 s). */
  readonly listTimeoutMs?: number;
  /** Objects per list page (default 500, as client-go). */
  readonly listPageSize?: number;
}

/** The informer caches of every watched kind. */
export interface Store {
  /** Resolves once every informer has applied its first list; rejects if stop() comes first. */
  waitForInitialSync(): Promise<void>;
  /** A point-in-time view; arrays are frozen and sorted by namespace/name; objects are frozen. */
  snapshot(): Snapshot;
  /**
   * The ConfigMaps to watch by name besides `configMaps` (those Ingress annotations name:
   * fastcgi-params-configmap, auth-proxy-set-headers; or the ConfigMap's settings: proxy-set-headers, add-headers), the whole set each call: new ones start (their first list is a
   * change), ones no longer named stop and leave the snapshot.
   */
  watchReferencedConfigMaps(refs: readonly ObjectRef[]): void;
  /** Stops every informer. */
  stop(): Promise<void>;
}

/** Sort key that makes a snapshot independent of the order events arrived in. */
function objectKey(obj: KubernetesObject): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

function sortedFrozen(objects: readonly KubernetesObject[]): readonly KubernetesObject[] {
  const keyed = objects.map((obj) => ({ key: objectKey(obj), obj }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return Object.freeze(keyed.map((entry) => entry.obj));
}

/** Starts the informers (watch-targets.ts) and returns the store over their caches. */
export function createStore(kc: KubeConfig, options: StoreOptions): Store {
  const namespace = options.namespace ?? null;
  const logger = options.logger.child({ component: 'kube-store' });
  const availability = options.availability ?? createApiAvailability(logger);
  const arrays = new Map<KindName, readonly KubernetesObject[]>();
  let current: Snapshot | null = null;

  const onKindChange = (kind: KindName): void => {
    arrays.delete(kind);
    current = null;
    try {
      options.onChange(kind);
    } catch (err) {
      // A throw here would unwind into the informer's cache update.
      logger.error({ err, kind }, 'onChange handler threw');
    }
  };

  const targets = watchTargets(KINDS, namespace, new Map<KindName, readonly ObjectRef[]>([['ConfigMap', options.configMaps ?? []]]));
  const informers = new Map<WatchTarget, ResilientInformer>();
  const start = (target: WatchTarget): ResilientInformer => {
    const { descriptor } = target;
    return startResilientInformer(kc, {
      descriptor,
      namespace: target.scope.namespace,
      fieldSelector: target.scope.fieldSelector,
      logger,
      availability,
      onChange: () => onKindChange(descriptor.kind),
      backoff: options.backoff,
      watchTiming: options.watchTiming,
      listTimeoutMs: options.listTimeoutMs,
      listPageSize: options.listPageSize,
    });
  };
  for (const target of targets) informers.set(target, start(target));
  const configMaps = (options.configMaps ?? []).map((ref) => `${ref.namespace}/${ref.name}`);
  /** The referenced ConfigMaps watched now, by `namespace/name` (never one of `configMaps`). */
  const referenced = new Map<string, WatchTarget>();
  let stopped = false;
  logger.info({ namespace: namespace ?? '(all)', kinds: KINDS.filter((k) => !k.byName).map((k) => k.kind), configMaps }, 'watching');

  // A kind's objects: the union of its informers' caches (several for a kind read by name, or none).
  const arrayOf = (descriptor: KindDescriptor): readonly KubernetesObject[] => {
    let array = arrays.get(descriptor.kind);
    if (array === undefined) {
      const objects: KubernetesObject[] = [];
      for (const [target, informer] of informers) {
        if (target.descriptor === descriptor) objects.push(...informer.list());
      }
      array = sortedFrozen(objects);
      arrays.set(descriptor.kind, array);
    }
    return array;
  };

  return {
    async waitForInitialSync(): Promise<void> {
      await Promise.all([...informers.values()].map((informer) => informer.synced));
    },
    snapshot(): Snapshot {
      if (current === null) {
        const fields: Record<string, readonly KubernetesObject[]> = {};
        for (const descriptor of KINDS) {
          fields[descriptor.snapshotKey] = arrayOf(descriptor);
        }
        // The descriptors map each kind to its Snapshot field and client-node type.
        current = Object.freeze(fields) as unknown as Snapshot;
      }
      return current;
    },
    watchReferencedConfigMaps(refs: readonly ObjectRef[]): void {
      if (stopped) return;
      const wanted = new Map<string, ObjectRef>();
      for (const ref of refs) {
        const key = `${ref.namespace}/${ref.name}`;
        if (!configMaps.includes(key)) wanted.set(key, ref);
      }
      let removed = false;
      for (const [key, target] of referenced) {
        if (wanted.has(key)) continue;
        const informer = informers.get(target);
        informers.delete(target);
        referenced.delete(key);
        removed = true;
        informer?.stop().catch((err: unknown) => logger.warn({ err, configMap: key }, 'stopping a ConfigMap watch failed'));
      }
      const added: string[] = [];
      for (const [key, ref] of wanted) {
        if (referenced.has(key)) continue;
        const [target] = watchTargets(KINDS.filter((kind) => kind.kind === 'ConfigMap'), namespace, new Map<KindName, readonly ObjectRef[]>([['ConfigMap', [ref]]]));
        if (target === undefined) continue;
        referenced.set(key, target);
        informers.set(target, start(target));
        added.push(key);
      }
      if (added.length > 0 || removed) logger.info({ configMaps: [...referenced.keys()].sort() }, 'watching the ConfigMaps Ingresses name');
      if (removed) onKindChange('ConfigMap');
    },
    async stop(): Promise<void> {
      stopped = true;
      await Promise.all([...informers.values()].map((informer) => informer.stop()));
    },
  };
}
