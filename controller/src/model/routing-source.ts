// Where a build gets its routing (Routing: all a build makes from Ingresses,
// IngressClasses, Services and ConfigMaps): the last build's when those
// inputs are the same objects; the last one updated for the changed Ingresses
// when only the Ingresses changed (routing-delta.ts); else a full build
// (routing-build.ts). Changed Services count as unchanged when none of them
// is one the routing looked up (service-lookups.ts): `kubectl apply` creates a
// Service before the Ingress that routes to it.

import { indexServices } from './cluster-index.ts';
import type { TranslationCache } from './ingress-translation.ts';
import { buildRouting } from './routing-build.ts';
import { deltaRouting } from './routing-delta.ts';
import type { RoutingRecord } from './routing-record.ts';
import type { Routing } from './routing-state.ts';
import type { BuildOptions, Snapshot } from './types.ts';

export type RoutingSource = 'reused' | 'incremental' | 'full';

/** What a Routing depends on: compared by identity (the store hands on unchanged kinds' frozen arrays), options by value. */
interface RoutingInputs {
  readonly ingresses: unknown;
  readonly ingressClasses: unknown;
  readonly services: unknown;
  readonly configMaps: unknown;
  readonly options: BuildOptions;
}

/** What a builder keeps between builds for its routing. */
export interface RoutingCache {
  readonly translations: TranslationCache;
  /** The last build's routing and what it was made from. */
  routing: { readonly inputs: RoutingInputs; readonly routing: Routing } | null;
  /** A long-lived builder keeps what the next build needs to update the routing in place of a full build (routing-delta.ts). */
  readonly incremental: boolean;
  /** What the last routing build left for that, or null. */
  record: RoutingRecord | null;
  /** How the last build got its routing. */
  source: RoutingSource;
}

function routingInputs(snapshot: Snapshot, options: BuildOptions): RoutingInputs {
  return { ingresses: snapshot?.ingresses, ingressClasses: snapshot?.ingressClasses, services: snapshot?.services, configMaps: snapshot?.configMaps, options };
}

/** Same inputs: every snapshot field a Routing reads is the same object, and the options agree on all but the clock (TLS only). */
function sameRoutingInputs(a: RoutingInputs, b: RoutingInputs): boolean {
  if (a.ingresses !== b.ingresses || a.ingressClasses !== b.ingressClasses || a.services !== b.services || a.configMaps !== b.configMaps) return false;
  const optionsA = a.options as unknown as Record<string, unknown>;
  const optionsB = b.options as unknown as Record<string, unknown>;
  const keys = new Set([...Object.keys(optionsA), ...Object.keys(optionsB)]);
  keys.delete('now');
  for (const key of keys) if (optionsA[key] !== optionsB[key]) return false;
  return true;
}

/**
 * The last build's routing when its inputs are the same objects (Services: those it looked up); when
 * only the Ingresses changed, that routing updated for the Ingresses the change reaches
 * (routing-delta.ts); else a full build.
 */
export function routingOf(caches: RoutingCache, snapshot: Snapshot, options: BuildOptions): Routing {
  const inputs = routingInputs(snapshot, options);
  const last = caches.routing;
  if (last !== null && sameRoutingInputs(last.inputs, inputs)) {
    caches.source = 'reused';
    return last.routing;
  }
  const record = caches.record;
  if (last === null || record === null) return fullRouting(caches, snapshot, options, inputs);
  // Other Services than those the routing looked up changed: the record reads the new ones, and the routing stands.
  const servicesKept = inputs.services !== last.inputs.services
    && sameRoutingInputs(last.inputs, { ...inputs, ingresses: last.inputs.ingresses, services: last.inputs.services })
    && record.services.moveTo(indexServices(snapshot));
  const services = servicesKept ? last.inputs.services : inputs.services;
  if (servicesKept && inputs.ingresses === last.inputs.ingresses) {
    caches.source = 'reused';
    caches.routing = { inputs, routing: last.routing };
    return last.routing;
  }
  const delta = sameRoutingInputs(last.inputs, { ...inputs, ingresses: last.inputs.ingresses, services })
    ? deltaRouting(record, last.routing, caches.translations, snapshot, options)
    : null;
  if (delta !== null) {
    caches.source = 'incremental';
    caches.routing = { inputs, routing: delta };
    return delta;
  }
  return fullRouting(caches, snapshot, options, inputs);
}

function fullRouting(caches: RoutingCache, snapshot: Snapshot, options: BuildOptions, inputs: RoutingInputs): Routing {
  caches.source = 'full';
  const built = buildRouting(caches.translations, snapshot, options, caches.incremental);
  caches.routing = { inputs, routing: built.routing };
  caches.record = built.record;
  return built.routing;
}
