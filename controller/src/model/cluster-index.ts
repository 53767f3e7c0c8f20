// Lookups the builder needs from the snapshot, built once per build so that
// each Ingress path costs a map lookup rather than a scan. Objects that lack
// the fields a lookup keys on are skipped (they cannot be referenced anyway).

import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import type { Snapshot } from './types.ts';

/** The EndpointSlice label naming the Service a slice belongs to. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** Services and EndpointSlices by namespace and Service name. */
export interface ClusterIndex {
  service(namespace: string, name: string): V1Service | undefined;
  slicesFor(namespace: string, serviceName: string): readonly V1EndpointSlice[];
}

function key(namespace: string, name: string): string {
  // `/` cannot appear in either part, so the key is unambiguous.
  return `${namespace}/${name}`;
}

/** Indexes the snapshot's Services and EndpointSlices; reads, never writes, the snapshot. */
export function indexCluster(snapshot: Snapshot): ClusterIndex {
  const services = new Map<string, V1Service>();
  for (const service of snapshot?.services ?? []) {
    const namespace = service?.metadata?.namespace;
    const name = service?.metadata?.name;
    if (typeof namespace === 'string' && typeof name === 'string') services.set(key(namespace, name), service);
  }
  const slices = new Map<string, V1EndpointSlice[]>();
  for (const slice of snapshot?.endpointSlices ?? []) {
    const namespace = slice?.metadata?.namespace;
    const serviceName = slice?.metadata?.labels?.[SERVICE_NAME_LABEL];
    if (typeof namespace !== 'string' || typeof serviceName !== 'string') continue;
    const list = slices.get(key(namespace, serviceName)) ?? [];
    list.push(slice);
    slices.set(key(namespace, serviceName), list);
  }
  return {
    service: (namespace, name) => services.get(key(namespace, name)),
    slicesFor: (namespace, serviceName) => slices.get(key(namespace, serviceName)) ?? [],
  };
}
