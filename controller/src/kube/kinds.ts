// The six kinds the controller watches: where each lives in the API, how to
// list it (a whole collection, or one object by name), and how a raw watch event becomes the same typed object a list gives.

import type { KubeConfig, KubernetesListObject, KubernetesObject, V1EndpointSlice } from '@kubernetes/client-node';

import type { Snapshot } from '../model/types.ts';
import type { ListPage } from './paged-list.ts';
import { listRawPage } from './raw-list.ts';
import { decoderFor } from './typed-decoder.ts';

/** The Kubernetes kinds the store watches. */
export type KindName = 'Ingress' | 'IngressClass' | 'Service' | 'EndpointSlice' | 'Secret' | 'ConfigMap';

/** Which objects of one kind a list or watch asks for. */
export interface ListScope {
  /** The namespace, or null for every namespace (cluster-scoped kinds ignore it). */
  readonly namespace: string | null;
  /** A field selector such as `metadata.name=x`, or undefined for every object. */
  readonly fieldSelector?: string;
}

/** Lists one page of the objects of one kind in a scope. */
type ListObjects = (kc: KubeConfig, scope: ListScope, page: ListPage) => Promise<KubernetesListObject<KubernetesObject>>;

/** Everything the store needs to know about one kind. */
export interface KindDescriptor {
  readonly kind: KindName;
  /** The Snapshot field that holds this kind. */
  readonly snapshotKey: keyof Snapshot;
  /** The client-node model name, used to decode watch events into typed objects. */
  readonly typeName: string;
  /** API path prefix: `/api/v1` or `/apis/<group>/<version>`. */
  readonly apiPrefix: string;
  /** Lowercase plural resource name in URLs. */
  readonly plural: string;
  /** Cluster-scoped kinds ignore --watch-namespace. */
  readonly namespaced: boolean;
  /**
   * Watched only by name (watch-targets.ts), never as a whole collection:
   * the controller reads just the ConfigMaps its flags name.
   */
  readonly byName: boolean;
  readonly list: ListObjects;
  /** Removes, in place, the fields of this kind that nothing here reads (dropUnreadFields); absent: none beyond metadata's. */
  readonly trim?: (object: KubernetesObject) => void;
}

type KindFields = Omit<KindDescriptor, 'list'>;

/** A kind's descriptor with its list: the raw page, decoded (raw-list.ts). */
function kind(fields: KindFields): KindDescriptor {
  return {
    ...fields,
    list: (kc, scope, page) => listRawPage(kc, fields.typeName, { path: collectionPath(fields, scope.namespace), fieldSelector: scope.fieldSelector }, page),
  };
}

/** The watched kinds in a fixed order (the order the store starts them in). */
export const KINDS: readonly KindDescriptor[] = Object.freeze([
  kind({
    kind: 'Ingress', snapshotKey: 'ingresses', typeName: 'V1Ingress',
    apiPrefix: '/apis/networking.k8s.io/v1', plural: 'ingresses', namespaced: true, byName: false,
  }),
  kind({
    kind: 'IngressClass', snapshotKey: 'ingressClasses', typeName: 'V1IngressClass',
    apiPrefix: '/apis/networking.k8s.io/v1', plural: 'ingressclasses', namespaced: false, byName: false,
  }),
  kind({
    kind: 'Service', snapshotKey: 'services', typeName: 'V1Service',
    apiPrefix: '/api/v1', plural: 'services', namespaced: true, byName: false,
  }),
  kind({
    kind: 'EndpointSlice', snapshotKey: 'endpointSlices', typeName: 'V1EndpointSlice',
    apiPrefix: '/apis/discovery.k8s.io/v1', plural: 'endpointslices', namespaced: true, byName: false,
    trim: trimEndpointSlice,
  }),
  kind({
    kind: 'Secret', snapshotKey: 'secrets', typeName: 'V1Secret',
    apiPrefix: '/api/v1', plural: 'secrets', namespaced: true, byName: false,
  }),
  kind({
    kind: 'ConfigMap', snapshotKey: 'configMaps', typeName: 'V1ConfigMap',
    apiPrefix: '/api/v1', plural: 'configmaps', namespaced: true, byName: true,
  }),
]);

/** The collection URL to list and watch: namespaced when a namespace is given and the kind is namespaced. */
export function collectionPath(descriptor: Pick<KindDescriptor, 'namespaced' | 'apiPrefix' | 'plural'>, namespace: string | null): string {
  if (descriptor.namespaced && namespace !== null) {
    return `${descriptor.apiPrefix}/namespaces/${encodeURIComponent(namespace)}/${descriptor.plural}`;
  }
  return `${descriptor.apiPrefix}/${descriptor.plural}`;
}

/**
 * Freezes an object graph in place. Informer objects are shared by every
 * snapshot, so a consumer that mutated one would corrupt later syncs; frozen,
 * such a bug throws at once (ES modules run in strict mode) instead.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) {
      deepFreeze((value as Record<string, unknown>)[key]);
    }
  }
  return value;
}

/** The annotation `kubectl apply` writes: the whole object again, as JSON. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Removes, in place, what the API server sends but nothing here reads:
 * metadata.managedFields (server-side apply bookkeeping, often larger than
 * the spec) and the last-applied annotation (a second copy of the object;
 * for a Secret, of its certificate and key). Informer caches hold every
 * object for the controller's lifetime, so these were most of a real
 * cluster's cache. Call before freezing.
 */
export function dropUnreadFields<T extends KubernetesObject>(object: T): T {
  const metadata = object.metadata;
  if (metadata === undefined) return object;
  // Assigned, not deleted: `delete` of a middle property would turn every
  // cached metadata object into a slower, larger dictionary-mode object.
  if (metadata.managedFields !== undefined) metadata.managedFields = undefined;
  if (metadata.annotations !== undefined && Object.hasOwn(metadata.annotations, LAST_APPLIED_ANNOTATION)) {
    const { [LAST_APPLIED_ANNOTATION]: _copy, ...rest } = metadata.annotations;
    metadata.annotations = rest;
  }
  return object;
}

/**
 * What of an EndpointSlice nothing reads (model/endpoints.ts and
 * cluster-index.ts read the namespace, the service-name label, addressType,
 * ports, and each endpoint's addresses and ready condition). Per endpoint the
 * Pod reference, node, zone and hints are most of a slice; the owner
 * reference names the Service the label already names. An informer holds
 * every slice of the cluster: at 50,000 endpoints that is 50,000 targetRef
 * objects kept for nothing.
 */
function trimEndpointSlice(object: KubernetesObject): void {
  const slice = object as V1EndpointSlice;
  if (slice.metadata?.ownerReferences !== undefined) slice.metadata.ownerReferences = undefined;
  if (!Array.isArray(slice.endpoints)) return;
  for (const endpoint of slice.endpoints) {
    if (endpoint === null || typeof endpoint !== 'object') continue;
    // Assigned, not deleted (see dropUnreadFields).
    if (endpoint.targetRef !== undefined) endpoint.targetRef = undefined;
    if (endpoint.nodeName !== undefined) endpoint.nodeName = undefined;
    if (endpoint.zone !== undefined) endpoint.zone = undefined;
    if (endpoint.hints !== undefined) endpoint.hints = undefined;
    if (endpoint.deprecatedTopology !== undefined) endpoint.deprecatedTopology = undefined;
  }
}

/** A listed or watched object of `descriptor`'s kind as the caches keep it: unread fields dropped, frozen. */
export function cachedObject(descriptor: KindDescriptor, object: KubernetesObject): KubernetesObject {
  dropUnreadFields(object);
  descriptor.trim?.(object);
  return deepFreeze(object);
}

/**
 * Turns a raw watch-event object into the typed shape a list returns (e.g.
 * creationTimestamp as a Date, as in the list's items), then makes it a
 * cached object (cachedObject).
 */
export function decodeWatchObject(descriptor: KindDescriptor, raw: unknown): KubernetesObject {
  return cachedObject(descriptor, decoderFor(descriptor.typeName)(raw) as KubernetesObject);
}
