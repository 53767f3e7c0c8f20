// cachedObject: each kind's cache keeps what the controller reads, and the
// model makes the same endpoints from a trimmed EndpointSlice as from the
// one the API server sent.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { KubernetesObject, V1EndpointSlice, V1Service } from '@kubernetes/client-node';

import { collectEndpoints } from '../model/endpoints.ts';
import { cachedObject, KINDS, LAST_APPLIED_ANNOTATION } from './kinds.ts';
import type { KindName } from './kinds.ts';

const descriptor = (kind: KindName): (typeof KINDS)[number] => {
  const found = KINDS.find((d) => d.kind === kind);
  if (found === undefined) throw new Error(kind);
  return found;
};

/** A slice as the EndpointSlice controller writes it. */
function apiSlice(): V1EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: 'IPv4',
    metadata: {
      name: 'web-x7k2p', namespace: 'shop', generateName: 'web-', uid: 'u1', resourceVersion: '42',
      labels: { 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 's1', controller: true, blockOwnerDeletion: true }],
      managedFields: [{ manager: 'kube-controller-manager', operation: 'Update' }],
    },
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: [
      { addresses: ['10.0.0.2'], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'n1', zone: 'a', targetRef: { kind: 'Pod', name: 'web-1', namespace: 'shop', uid: 'p1' }, hints: { forZones: [{ name: 'a' }] } },
      { addresses: ['10.0.0.1'], conditions: { ready: false, serving: true, terminating: true }, nodeName: 'n2', targetRef: { kind: 'Pod', name: 'web-2', namespace: 'shop', uid: 'p2' } },
      { addresses: ['10.0.0.3'] },
    ],
  };
}

const rows: { name: string; kind: KindName; object: () => KubernetesObject; want: unknown }[] = [
  {
    name: 'EndpointSlice: Pod references, nodes, zones, hints and the owner reference go; what the model reads stays',
    kind: 'EndpointSlice', object: apiSlice,
    want: {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: 'IPv4',
      metadata: {
        name: 'web-x7k2p', namespace: 'shop', generateName: 'web-', uid: 'u1', resourceVersion: '42',
        labels: { 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' },
        ownerReferences: undefined, managedFields: undefined,
      },
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      endpoints: [
        { addresses: ['10.0.0.2'], conditions: { ready: true, serving: true, terminating: false }, nodeName: undefined, zone: undefined, targetRef: undefined, hints: undefined },
        { addresses: ['10.0.0.1'], conditions: { ready: false, serving: true, terminating: true }, nodeName: undefined, targetRef: undefined },
        { addresses: ['10.0.0.3'] },
      ],
    },
  },
  {
    name: 'Service: only metadata\'s bookkeeping goes (a Service\'s fields are read across the model)',
    kind: 'Service',
    object: (): V1Service => ({
      metadata: { name: 'web', namespace: 'shop', annotations: { [LAST_APPLIED_ANNOTATION]: '{}' }, ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: 'o1' }] },
      spec: { clusterIP: '10.96.0.1', ports: [{ name: 'http', port: 80 }] },
    }),
    want: {
      metadata: { name: 'web', namespace: 'shop', annotations: {}, ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: 'o1' }] },
      spec: { clusterIP: '10.96.0.1', ports: [{ name: 'http', port: 80 }] },
    },
  },
];

void describe('cachedObject', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const object = row.object();
      assert.equal(cachedObject(descriptor(row.kind), object), object, 'in place');
      assert.deepStrictEqual(object, row.want);
      assert.ok(Object.isFrozen(object) && Object.isFrozen(object.metadata), 'frozen');
    });
  }

  void it('a trimmed EndpointSlice gives the model the same endpoints', () => {
    const port = { name: 'http', port: 80, targetPort: 'http' } as const;
    const full = collectEndpoints(port, [apiSlice()]);
    assert.deepStrictEqual(full.map((e) => e.address), ['10.0.0.2', '10.0.0.3'], 'the not-ready one is left out');
    assert.deepStrictEqual(collectEndpoints(port, [cachedObject(descriptor('EndpointSlice'), apiSlice()) as V1EndpointSlice]), full);
  });
});
