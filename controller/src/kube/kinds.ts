// The six kinds the controller watches: where each lives in the API, how to
// list it, and how a raw watch event becomes the same typed object a list gives.

import { CoreV1Api, DiscoveryV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import type { KubeConfig, KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
// The package root does not re-export its serializer; the version is pinned exactly.
import { ObjectSerializer } from '@kubernetes/client-node/dist/serializer.js';

import type { Snapshot } from '../model/types.ts';
import type { ListPage } from './paged-list.ts';

/** The Kubernetes kinds the store watches. */
export type KindName = 'Ingress' | 'IngressClass' | 'Service' | 'EndpointSlice' | 'Secret' | 'ConfigMap';

/** Lists one page of the objects of one kind in a namespace (or everywhere when namespace is null). */
type ListObjects = (kc: KubeConfig, namespace: string | null, page: ListPage) => Promise<KubernetesListObject<KubernetesObject>>;

/** A ListPage as the generated clients' list parameters. */
function pageParams(page: ListPage): { limit: number; _continue?: string } {
  return page.continueToken === undefined ? { limit: page.limit } : { limit: page.limit, _continue: page.continueToken };
}

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
  readonly list: ListObjects;
}

/** The watched kinds in a fixed order (the order the store starts them in). */
export const KINDS: readonly KindDescriptor[] = Object.freeze([
  {
    kind: 'Ingress', snapshotKey: 'ingresses', typeName: 'V1Ingress',
    apiPrefix: '/apis/networking.k8s.io/v1', plural: 'ingresses', namespaced: true,
    list: (kc, namespace, page) => {
      const api = kc.makeApiClient(NetworkingV1Api);
      return namespace === null ? api.listIngressForAllNamespaces(pageParams(page)) : api.listNamespacedIngress({ namespace, ...pageParams(page) });
    },
  },
  {
    kind: 'IngressClass', snapshotKey: 'ingressClasses', typeName: 'V1IngressClass',
    apiPrefix: '/apis/networking.k8s.io/v1', plural: 'ingressclasses', namespaced: false,
    list: (kc, _namespace, page) => kc.makeApiClient(NetworkingV1Api).listIngressClass(pageParams(page)),
  },
  {
    kind: 'Service', snapshotKey: 'services', typeName: 'V1Service',
    apiPrefix: '/api/v1', plural: 'services', namespaced: true,
    list: (kc, namespace, page) => {
      const api = kc.makeApiClient(CoreV1Api);
      return namespace === null ? api.listServiceForAllNamespaces(pageParams(page)) : api.listNamespacedService({ namespace, ...pageParams(page) });
    },
  },
  {
    kind: 'EndpointSlice', snapshotKey: 'endpointSlices', typeName: 'V1EndpointSlice',
    apiPrefix: '/apis/discovery.k8s.io/v1', plural: 'endpointslices', namespaced: true,
    list: (kc, namespace, page) => {
      const api = kc.makeApiClient(DiscoveryV1Api);
      return namespace === null
        ? api.listEndpointSliceForAllNamespaces(pageParams(page))
        : api.listNamespacedEndpointSlice({ namespace, ...pageParams(page) });
    },
  },
  {
    kind: 'Secret', snapshotKey: 'secrets', typeName: 'V1Secret',
    apiPrefix: '/api/v1', plural: 'secrets', namespaced: true,
    list: (kc, namespace, page) => {
      const api = kc.makeApiClient(CoreV1Api);
      return namespace === null ? api.listSecretForAllNamespaces(pageParams(page)) : api.listNamespacedSecret({ namespace, ...pageParams(page) });
    },
  },
  {
    kind: 'ConfigMap', snapshotKey: 'configMaps', typeName: 'V1ConfigMap',
    apiPrefix: '/api/v1', plural: 'configmaps', namespaced: true,
    list: (kc, namespace, page) => {
      const api = kc.makeApiClient(CoreV1Api);
      return namespace === null ? api.listConfigMapForAllNamespaces(pageParams(page)) : api.listNamespacedConfigMap({ namespace, ...pageParams(page) });
    },
  },
] satisfies KindDescriptor[]);

/** The collection URL to list and watch: namespaced when a namespace is given and the kind is namespaced. */
export function collectionPath(descriptor: KindDescriptor, namespace: string | null): string {
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

/** A listed or watched object as the caches keep it: unread fields dropped, frozen. */
export function cachedObject(object: KubernetesObject): KubernetesObject {
  return deepFreeze(dropUnreadFields(object));
}

/**
 * Turns a raw watch-event object into the typed shape a list returns (e.g.
 * creationTimestamp as a Date, as in the list's items), then makes it a
 * cached object (cachedObject).
 */
export function decodeWatchObject(descriptor: KindDescriptor, raw: unknown): KubernetesObject {
  return cachedObject(ObjectSerializer.deserialize(raw, descriptor.typeName) as KubernetesObject);
}
