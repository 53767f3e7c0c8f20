// Property: whatever sequence of cluster changes a long-lived builder sees,
// each build equals a fresh buildModel() of the same snapshot. The builder
// reuses translations, endpoints and (while Ingresses, IngressClasses,
// Services, ConfigMaps and options stay the same) the whole routing; a reuse
// keyed on too little would show up here as a build that lags one change
// behind. fast-check prints the seed and the shrunk sequence of a failure.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { V1EndpointSlice, V1Ingress, V1Service } from '@kubernetes/client-node';
import { buildModel, createModelBuilder } from './build.ts';
import { ann, deepFreeze, ingress, options, path, rule, service, slice, snapshot, svc } from './testdata/fixtures.ts';
import type { BuildOptions, Snapshot } from './types.ts';

const SERVICES = ['web', 'api'] as const;
type ServiceName = (typeof SERVICES)[number];

/** The cluster a step leaves behind; every change makes new (frozen) objects, as the informer store does. */
interface State {
  readonly snapshot: Snapshot;
  readonly options: BuildOptions;
}

function ingressFor(name: ServiceName, pathValue: string, ewma: boolean): V1Ingress {
  return deepFreeze(ingress(name, {
    ...(ewma ? { annotations: { [ann('load-balance')]: 'ewma' } } : {}),
    rules: [rule(`${name}.example`, path(pathValue, svc(name, 80)))],
  }));
}

function sliceFor(name: ServiceName, addresses: readonly number[], firstReady: boolean): V1EndpointSlice {
  const endpoints = addresses.map((last, i) => ({ addresses: [`10.0.${SERVICES.indexOf(name)}.${last}`], ...(i === 0 && !firstReady ? { ready: false } : {}) }));
  return deepFreeze(slice(`${name}-1`, name, [{ port: 8080 }], endpoints));
}

function serviceFor(name: ServiceName, port: number): V1Service {
  return deepFreeze(service(name, [{ port }]));
}

/** Replaces the element of `list` named `name` (by metadata.name, or the slice's Service) or adds it; frozen, like the store's arrays. */
function put<T extends { metadata?: { name?: string } }>(list: readonly T[], item: T | null, name: string): readonly T[] {
  const others = list.filter((x) => x.metadata?.name !== name && x.metadata?.name !== `${name}-1`);
  return Object.freeze(item === null ? others : [...others, item]);
}

/** One change to the cluster or the options, as data so that fast-check prints a failing sequence readably. */
type Change =
  | { readonly kind: 'nothing' }
  | { readonly kind: 'slice'; readonly name: ServiceName; readonly addresses: readonly number[]; readonly firstReady: boolean }
  | { readonly kind: 'service'; readonly name: ServiceName; readonly port: number | null }
  | { readonly kind: 'ingress'; readonly name: ServiceName; readonly path: string | null; readonly ewma: boolean }
  | { readonly kind: 'clock'; readonly now: number }
  | { readonly kind: 'prefix'; readonly prefix: string };

function apply(s: State, change: Change): State {
  const { snapshot: snap } = s;
  switch (change.kind) {
    case 'nothing': return s;
    case 'slice': return { ...s, snapshot: { ...snap, endpointSlices: put(snap.endpointSlices, sliceFor(change.name, change.addresses, change.firstReady), change.name) } };
    case 'service': return { ...s, snapshot: { ...snap, services: put(snap.services, change.port === null ? null : serviceFor(change.name, change.port), change.name) } };
    case 'ingress': return { ...s, snapshot: { ...snap, ingresses: put(snap.ingresses, change.path === null ? null : ingressFor(change.name, change.path, change.ewma), change.name) } };
    case 'clock': return { ...s, options: { ...s.options, now: change.now } };
    case 'prefix': return { ...s, options: { ...s.options, annotationsPrefix: change.prefix } };
  }
}

const serviceName = fc.constantFrom(...SERVICES);
const changes: fc.Arbitrary<Change> = fc.oneof(
  fc.constant({ kind: 'nothing' as const }),
  fc.record({ kind: fc.constant('slice' as const), name: serviceName, addresses: fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { maxLength: 3 }), firstReady: fc.boolean() }),
  fc.record({ kind: fc.constant('service' as const), name: serviceName, port: fc.constantFrom(80, 81, null) }),
  fc.record({ kind: fc.constant('ingress' as const), name: serviceName, path: fc.constantFrom('/', '/v2', null), ewma: fc.boolean() }),
  fc.record({ kind: fc.constant('clock' as const), now: fc.integer({ min: 0, max: 1e12 }) }),
  fc.record({ kind: fc.constant('prefix' as const), prefix: fc.constantFrom('nginx.ingress.kubernetes.io', 'example.com') }),
);

const start: State = {
  snapshot: deepFreeze(snapshot({
    ingresses: [ingressFor('web', '/', false), ingressFor('api', '/', true)],
    services: [serviceFor('web', 80), serviceFor('api', 80)],
    endpointSlices: [sliceFor('web', [1, 2], true), sliceFor('api', [1], true)],
  })),
  options: options(),
};

void describe('createModelBuilder over random change sequences', () => {
  void it('every build equals a fresh buildModel of its snapshot', () => {
    fc.assert(fc.property(fc.array(changes, { minLength: 1, maxLength: 12 }), (sequence) => {
      const builder = createModelBuilder();
      let state = start;
      assert.deepEqual(builder.build(state.snapshot, state.options), buildModel(state.snapshot, state.options));
      for (const change of sequence) {
        state = apply(state, change);
        assert.deepEqual(builder.build(state.snapshot, state.options), buildModel(state.snapshot, state.options));
      }
    }), { numRuns: 300 });
  });
});
