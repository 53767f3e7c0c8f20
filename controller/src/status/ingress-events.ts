// What the sync tells users through Events on their Ingresses:
// - Warning <reason> for every new model Failure (conflicts, annotations,
//   missing Services…), worded by the builder;
// - Warning ReloadFailed with NGINX's own error text, on the Ingresses that
//   changed since the last live configuration (the likely culprits);
// - Normal Sync once per Ingress generation when its configuration is live.
// The builder's IngressRef has no uid, so each build records the snapshot's
// Ingresses: `kubectl describe` only shows Events whose uid matches.
// Failures of the controller's own ConfigMap (a bad or unknown key) go on
// that ConfigMap, so `kubectl describe configmap` says why a default stayed;
// so do those of a TCP/UDP services ConfigMap's entries (Failure.configMap).

import type { V1Ingress } from '@kubernetes/client-node';
import type { Failure, IngressRef, Model, Snapshot } from '../model/types.ts';
import type { EventRecorder, EventTarget } from './event-recorder.ts';

export interface IngressEventsOptions {
  readonly recorder: EventRecorder;
  /** false with --disable-sync-events: no Normal Sync Events (warnings stay). */
  readonly syncEvents: boolean;
  /** True when `model`'s NGINX configuration is the one running (no reload pending for it). */
  readonly isLive: (model: Model) => boolean;
  /** --configmap as `namespace/name`, or null/absent. */
  readonly configMap?: string | null;
}

export interface IngressEvents {
  /** After every build, with the snapshot it was built from. */
  built(model: Model, snapshot: Snapshot): void;
  /** A Failure that was not standing before. */
  failure(failure: Failure): void;
  /** A configuration went live (reload confirmed). */
  reloaded(model: Model): void;
  /** A sync finished without a reload: announce if its model is live. */
  synced(): void;
  /** NGINX refused `model`; `detail` is NGINX's error text. */
  reloadFailed(detail: string, model: Model): void;
}

interface Seen { readonly target: EventTarget; readonly stamp: string }

const refKey = (ref: IngressRef): string => `${ref.namespace}/${ref.name}`;

/**
 * Reasons the ConfigMap reader gives for its own keys (model/features/parse.ts readSettings; with no Ingress),
 * and for the ConfigMaps of headers its proxy-set-headers / add-headers name (model/header-configmaps.ts).
 */
const CONFIG_MAP_REASONS: ReadonlySet<string> = new Set(['InvalidConfigMapValue', 'UnknownConfigMapKey', 'UnsupportedConfigMapKey', 'ProtectionNotSupported',
  'HeadersConfigMapNotFound', 'InvalidHeader']);

/** The Event target for the controller's ConfigMap, if it is in the snapshot. */
function configMapTarget(snapshot: Snapshot, key: string | null | undefined): EventTarget | undefined {
  const found = key ? snapshot.configMaps.find((item) => `${item.metadata?.namespace}/${item.metadata?.name}` === key) : undefined;
  const meta = found?.metadata;
  if (!meta?.namespace || !meta.name) return undefined;
  return { apiVersion: 'v1', kind: 'ConfigMap', namespace: meta.namespace, name: meta.name, ...(meta.uid ? { uid: meta.uid } : {}) };
}

/** The Event target for an Ingress object. */
export function ingressTarget(ingress: V1Ingress): EventTarget {
  const meta = ingress.metadata ?? {};
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    namespace: meta.namespace ?? '',
    name: meta.name ?? '',
    ...(meta.uid ? { uid: meta.uid } : {}),
    ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
  };
}

/** The Ingresses a model routes for (the owners of its locations). */
export function ingressesOf(model: Model): Set<string> {
  const keys = new Set<string>();
  for (const server of model.servers) {
    for (const location of server.locations) if (location.ingress) keys.add(refKey(location.ingress));
  }
  return keys;
}

function sameKeys(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const key of a) if (!b.has(key)) return false;
  return true;
}

export function createIngressEvents(options: IngressEventsOptions): IngressEvents {
  const { recorder } = options;
  // Per built model: its Ingresses with the uid+generation they had when it was built.
  const modelIngresses = new WeakMap<Model, Map<string, Seen>>();
  let latestModel: Model | null = null;
  let latestConfigMap: EventTarget | undefined;
  let latestSnapshot: Snapshot | null = null;
  const announced = new Map<string, string>();
  /** The map announce() went through last: announcing it again would record nothing. */
  let lastAnnounced: Map<string, Seen> | null = null;

  const announce = (model: Model): void => {
    const ingresses = modelIngresses.get(model);
    if (!ingresses) return;
    for (const [key, seen] of ingresses) {
      if (announced.get(key) === seen.stamp) continue;
      announced.set(key, seen.stamp);
      if (options.syncEvents) recorder.record(seen.target, 'Normal', 'Sync', 'Configuration is live in NGINX');
    }
    // Forget Ingresses that left the configuration, so their return is announced.
    for (const key of [...announced.keys()]) if (!ingresses.has(key)) announced.delete(key);
    lastAnnounced = ingresses;
  };

  // What the last snapshot's Ingresses gave: an endpoint-only change keeps the same (frozen)
  // array, and a model with the same Ingresses keeps the same map, so a sync costs no
  // per-Ingress work here, and synced() can tell "nothing new to announce" without isLive.
  // `servers`: the model's servers the keys were read from; a builder hands on the same
  // array while no Ingress, Service or setting changed, and then so are the keys.
  let derived: {
    ingresses: readonly V1Ingress[];
    servers: Model['servers'];
    byKey: Map<string, V1Ingress>;
    targets: Map<string, EventTarget>;
    keys: Set<string>;
    seen: Map<string, Seen>;
  } | null = null;

  const seenOf = (keys: Set<string>, byKey: Map<string, V1Ingress>, targets: Map<string, EventTarget>): Map<string, Seen> => {
    const seen = new Map<string, Seen>();
    for (const key of keys) {
      const ingress = byKey.get(key);
      const target = targets.get(key);
      if (!ingress || !target) continue;
      const stamp = `${ingress.metadata?.uid ?? ''}/${ingress.metadata?.generation ?? ingress.metadata?.resourceVersion ?? ''}`;
      seen.set(key, { target, stamp });
    }
    return seen;
  };

  return {
    built(model, snapshot): void {
      const { servers } = model;
      if (derived?.ingresses !== snapshot.ingresses) {
        const keys = ingressesOf(model);
        const byKey = new Map<string, V1Ingress>();
        for (const ingress of snapshot.ingresses) byKey.set(`${ingress.metadata?.namespace}/${ingress.metadata?.name}`, ingress);
        const targets = new Map([...byKey].map(([key, ingress]) => [key, ingressTarget(ingress)]));
        derived = { ingresses: snapshot.ingresses, servers, byKey, targets, keys, seen: seenOf(keys, byKey, targets) };
      } else if (derived.servers !== servers) {
        const keys = ingressesOf(model);
        derived = sameKeys(keys, derived.keys)
          ? { ...derived, servers }
          : { ...derived, servers, keys, seen: seenOf(keys, derived.byKey, derived.targets) };
      }
      modelIngresses.set(model, derived.seen);
      latestModel = model;
      latestConfigMap = configMapTarget(snapshot, options.configMap);
      latestSnapshot = snapshot;
    },
    failure(failure): void {
      const target = failure.ingress ? derived?.targets.get(refKey(failure.ingress))
        : failure.configMap !== undefined ? (latestSnapshot === null ? undefined : configMapTarget(latestSnapshot, failure.configMap))
          : CONFIG_MAP_REASONS.has(failure.reason) ? latestConfigMap : undefined;
      if (target) recorder.record(target, 'Warning', failure.reason, failure.message);
    },
    reloaded: announce,
    synced(): void {
      if (!latestModel || modelIngresses.get(latestModel) === lastAnnounced) return;
      if (options.isLive(latestModel)) announce(latestModel);
    },
    reloadFailed(detail, model): void {
      const ingresses = [...(modelIngresses.get(model) ?? new Map<string, Seen>()).entries()];
      const changed = ingresses.filter(([key, seen]) => announced.get(key) !== seen.stamp);
      for (const [, seen] of changed.length > 0 ? changed : ingresses) {
        recorder.record(seen.target, 'Warning', 'ReloadFailed', `NGINX refused the configuration; the last good one keeps serving: ${detail}`);
      }
    },
  };
}
