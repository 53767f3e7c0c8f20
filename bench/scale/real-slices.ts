// EndpointSlices as the EndpointSlice controller writes them: per endpoint the
// Pod it points at, its node and zone, all three conditions; per slice its
// owner reference, the managed-by label and its managedFields entry. The
// synthetic cluster's slices carry only what the model reads, so a cache that
// kept everything would look as small as one that keeps what it needs.
import type { V1EndpointSlice, V1ManagedFieldsEntry } from '@kubernetes/client-node';

/** A stand-in for the kube-controller-manager's managedFields entry (the fields it owns, as fieldsV1). */
function managedFields(endpoints: number): V1ManagedFieldsEntry[] {
  const endpoint = { 'f:addresses': {}, 'f:conditions': { '.': {}, 'f:ready': {}, 'f:serving': {}, 'f:terminating': {} }, 'f:nodeName': {}, 'f:targetRef': {}, 'f:zone': {} };
  const fieldsV1 = {
    'f:addressType': {}, 'f:endpoints': Object.fromEntries(Array.from({ length: endpoints }, (_, j) => [`k:{"addresses":["${j}"]}`, endpoint])),
    'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:endpointslice.kubernetes.io/managed-by': {}, 'f:kubernetes.io/service-name': {} }, 'f:ownerReferences': { '.': {}, 'k:{"uid":"x"}': {} } },
    'f:ports': {},
  };
  return [{ manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'discovery.k8s.io/v1', fieldsType: 'FieldsV1', fieldsV1 }];
}

/** `slice` (of Service `service`, the `index`-th app) with what the API server would also hold. */
export function realSlice(slice: V1EndpointSlice, service: string, index: number): V1EndpointSlice {
  const uid = (prefix: string, n: number): string => `${prefix}${n.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
  return {
    ...slice,
    metadata: {
      ...slice.metadata, generateName: `${service}-`,
      labels: { ...slice.metadata?.labels, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: service, uid: uid('5', index), controller: true, blockOwnerDeletion: true }],
      managedFields: managedFields(slice.endpoints.length),
    },
    endpoints: slice.endpoints.map((endpoint, j) => ({
      ...endpoint,
      conditions: { ready: endpoint.conditions?.ready ?? true, serving: true, terminating: false },
      nodeName: `node-${(index + j) % 50}`, zone: `zone-${(index + j) % 3}`,
      targetRef: { kind: 'Pod', namespace: slice.metadata?.namespace, name: `${service}-7d9f8c6b5-${(index * 7 + j).toString(36)}`, uid: uid('7', index * 8 + j) },
    })),
  };
}
