// Ingress change sequences for the incremental routing tests
// (routing-delta.test.ts generates them, routing-delta-scenarios.test.ts
// names them): a slot per Ingress name, a cluster of a few Services in two
// namespaces, and a replay that builds every step with one long-lived
// builder and with a fresh buildModel.
import { strict as assert } from 'node:assert';
import type { V1ConfigMap, V1Ingress, V1Service } from '@kubernetes/client-node';
import { buildModel, createModelBuilder, type RoutingSource } from '../build.ts';
import { deepFreeze, ingress, path, rule, service, slice, snapshot, svc } from './fixtures.ts';
import type { BuildOptions, Snapshot } from '../types.ts';

/** The Services every namespace holds (besides `fallback`, in `default` only: the --default-backend-service of some rows). */
export const SERVICES = ['web', 'api', 'db', 'cache'] as const;
/** A Service no namespace holds at the start: paths to it fail until a change creates it. */
export const SPARE = 'spare';

export interface PathSpec {
  readonly value: string;
  readonly exact: boolean;
  readonly service: string;
  readonly port: 80 | 81 | 'http';
}

export interface IngressSpec {
  /** Seconds after a fixed time: equal values tie in the oldest-first order. */
  readonly created: number;
  readonly namespace: string;
  /** host '' is a rule without host (the catch-all server). */
  readonly rules: readonly { readonly host: string; readonly paths: readonly PathSpec[] }[];
  readonly annotations: Record<string, string>;
  /** spec.defaultBackend: db, port 80. */
  readonly defaultBackend: boolean;
  /** spec.tls for the rule hosts (secret `tls`). */
  readonly tls: boolean;
}

/**
 * Replace (or with null, delete) the Ingress in a slot; create or replace a Service with one port
 * named `http` (null: delete it; namespace `default` unless told); several changes in one snapshot.
 */
export type Change =
  | { readonly kind: 'ingress'; readonly slot: number; readonly spec: IngressSpec | null }
  | { readonly kind: 'service'; readonly name: string; readonly namespace?: string; readonly port: 80 | 81 | null }
  | { readonly kind: 'batch'; readonly steps: readonly Change[] };

export function ingressOf(slot: number, spec: IngressSpec): V1Ingress {
  const made = ingress(`ing-${slot}`, {
    namespace: spec.namespace,
    created: new Date(Date.UTC(2024, 0, 1, 0, 0, spec.created)).toISOString(),
    annotations: spec.annotations,
    rules: spec.rules.map((r) => rule(r.host, ...r.paths.map((p) => path(p.value, svc(p.service, p.port), p.exact ? 'Exact' : 'Prefix')))),
    ...(spec.defaultBackend ? { defaultBackend: svc('db', 80) } : {}),
  });
  const hosts = spec.rules.map((r) => r.host).filter((host) => host !== '');
  return deepFreeze(spec.tls && hosts.length > 0 ? { ...made, spec: { ...made.spec, tls: [{ hosts, secretName: 'tls' }] } } : made);
}

function serviceOf(name: string, port: number, namespace: string): V1Service {
  return deepFreeze(service(name, [{ name: 'http', port }], namespace));
}

/** The cluster without Ingresses: every Service with one ready endpoint, and the given ConfigMaps. */
export function startSnapshot(configMaps: readonly V1ConfigMap[] = []): Snapshot {
  const namespaces = ['default', 'other'];
  return deepFreeze(snapshot({
    configMaps: [...configMaps],
    services: [...namespaces.flatMap((ns) => SERVICES.map((name) => serviceOf(name, 80, ns))), serviceOf('fallback', 80, 'default')],
    endpointSlices: [
      ...namespaces.flatMap((ns, n) => SERVICES.map((name, i) => slice(`${name}-1`, name, [{ name: 'http', port: 8080 }], [{ addresses: [`10.0.${n}.${i + 1}`] }], ns))),
      slice('fallback-1', 'fallback', [{ name: 'http', port: 8080 }], [{ addresses: ['10.0.9.1'] }]),
    ],
  }));
}

/** Applies one change as the informer store does: new frozen objects and arrays, the rest shared. */
export function apply(snap: Snapshot, slots: (V1Ingress | null)[], step: Change): Snapshot {
  if (step.kind === 'batch') return step.steps.reduce((next, each) => apply(next, slots, each), snap);
  if (step.kind === 'service') {
    const namespace = step.namespace ?? 'default';
    const at = snap.services.findIndex((s) => s.metadata?.name === step.name && s.metadata.namespace === namespace);
    const services = snap.services.filter((_, i) => i !== at);
    // A changed Service keeps its place in the store's order; a created one comes last.
    if (step.port !== null) services.splice(at === -1 ? services.length : at, 0, serviceOf(step.name, step.port, namespace));
    return Object.freeze({ ...snap, services: Object.freeze(services) });
  }
  slots[step.slot] = step.spec === null ? null : ingressOf(step.slot, step.spec);
  // The store's order is its own: put the changed Ingress last, as a watch event would.
  const others = snap.ingresses.filter((i) => i.metadata?.name !== `ing-${step.slot}`);
  const changed = slots[step.slot];
  return Object.freeze({ ...snap, ingresses: Object.freeze(changed ? [...others, changed] : others) });
}

/**
 * Builds the initial Ingresses (null: an empty slot) and then every change with one long-lived
 * builder (the cluster holding `configMaps` too), asserting after each that it equals a fresh buildModel; returns how each build got its
 * routing.
 */
export function replay(
  buildOptions: BuildOptions, initial: readonly (IngressSpec | null)[], changes: readonly Change[], configMaps: readonly V1ConfigMap[] = [],
): RoutingSource[] {
  const slots = initial.map((spec, slot) => (spec === null ? null : ingressOf(slot, spec)));
  let snap: Snapshot = Object.freeze({ ...startSnapshot(configMaps), ingresses: Object.freeze(slots.filter((i): i is V1Ingress => i !== null)) });
  const builder = createModelBuilder();
  assert.deepEqual(builder.build(snap, buildOptions), buildModel(snap, buildOptions));
  const sources: RoutingSource[] = [];
  for (const step of changes) {
    snap = apply(snap, slots, step);
    const built = builder.build(snap, buildOptions);
    sources.push(builder.lastRouting());
    assert.deepEqual(built, buildModel(snap, buildOptions), `after ${JSON.stringify(step)} (${builder.lastRouting()} routing)`);
  }
  return sources;
}
