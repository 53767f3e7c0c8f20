// Lookups the builder needs from the snapshot, built once per build so that
// each Ingress path costs a map lookup rather than a scan. Objects that lack
// the fields a lookup keys on are skipped (they cannot be referenced anyway).
// Services and EndpointSlices are indexed apart: a build that reuses the last
// routing (build.ts: only EndpointSlices changed) needs only the slices.

import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import type { Snapshot } from './types.ts';

/** The EndpointSlice label naming the Service a slice belongs to. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** Services by namespace and name. */
export interface ServiceIndex {
  service(namespace: string, name: string): V1Service | undefined;
}

/** EndpointSlices by namespace and the name of the Service they belong to. */
export interface SliceIndex {
  slicesFor(namespace: string, serviceName: string): readonly V1EndpointSlice[];
}

/** A two-level map: no `namespace/name` key string per lookup (a 10k-Ingress build does ~30k of them). */
class ByNamespace<T> {
  readonly #namespaces = new Map<string, Map<string, T>>();

  get(namespace: string, name: string): T | undefined {
    return this.#namespaces.get(namespace)?.get(name);
  }

  set(namespace: string, name: string, value: T): void {
    this.#names(namespace).set(name, value);
  }

  #names(namespace: string): Map<string, T> {
    let names = this.#namespaces.get(namespace);
    if (names === undefined) {
      names = new Map();
      this.#namespaces.set(namespace, names);
    }
    return names;
  }
}

/** Indexes the snapshot's Services; reads, never writes, the snapshot. */
export function indexServices(snapshot: Snapshot): ServiceIndex {
  const services = new ByNamespace<V1Service>();
  for (const service of snapshot?.services ?? []) {
    const namespace = service?.metadata?.namespace;
    const name = service?.metadata?.name;
    if (typeof namespace === 'string' && typeof name === 'string') services.set(namespace, name, service);
  }
  return { service: (namespace, name) => services.get(namespace, name) };
}

/** Indexes the snapshot's EndpointSlices by Service; reads, never writes, the snapshot. */
export function indexSlices(snapshot: Snapshot): SliceIndex {
  const slices = new ByNamespace<V1EndpointSlice[]>();
  for (const slice of snapshot?.endpointSlices ?? []) {
    const namespace = slice?.metadata?.namespace;
    const serviceName = slice?.metadata?.labels?.[SERVICE_NAME_LABEL];
    if (typeof namespace !== 'string' || typeof serviceName !== 'string') continue;
    // `[slice]` holds one slot; push() onto [] would reserve 17 (most Services have one slice).
    const list = slices.get(namespace, serviceName);
    if (list) list.push(slice);
    else slices.set(namespace, serviceName, [slice]);
  }
  return { slicesFor: (namespace, serviceName) => slices.get(namespace, serviceName) ?? [] };
}
