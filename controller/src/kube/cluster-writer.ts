// The controller's few writes to the API: Events, Ingress status and the
// leader-election Lease, plus the one read status needs outside the informer
// caches (the --publish-service Service). Each is a small interface so that
// status/ and its tests never touch client-node directly.

import {
  CoordinationV1Api,
  CoreV1Api,
  NetworkingV1Api,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { CoreV1Event, KubeConfig, V1IngressLoadBalancerIngress, V1Lease, V1Service } from '@kubernetes/client-node';

/** A write lost a race (409: resourceVersion moved, or the object already exists). */
export class ApiConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ApiConflictError';
  }
}

/** The HTTP status of a client-node ApiException, or null for anything else. */
export function apiStatusOf(err: unknown): number | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : null;
}

/** The fields of a coordination.k8s.io/v1 Lease that leader election uses. */
export interface LeaseRecord {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  /** RFC 3339 with microseconds (MicroTime), as the API server requires. */
  readonly acquireTime: string;
  readonly renewTime: string;
  readonly leaseTransitions: number;
}

/** One Lease object; update() is optimistic (ApiConflictError when resourceVersion is stale). */
export interface LeaseStore {
  get(): Promise<{ record: LeaseRecord; resourceVersion: string } | null>;
  create(record: LeaseRecord): Promise<string>;
  update(record: LeaseRecord, resourceVersion: string): Promise<string>;
}

/** Creates and bumps core/v1 Events (the API `kubectl describe` reads). */
export interface EventSink {
  create(event: CoreV1Event): Promise<void>;
  /** Merge-patches count/lastTimestamp of an existing Event; rejects with status 404 if it is gone. */
  bump(namespace: string, name: string, count: number, lastTimestamp: Date): Promise<void>;
}

/** Writes `.status.loadBalancer.ingress` through the status subresource. */
export interface IngressStatusWriter {
  write(namespace: string, name: string, addresses: readonly V1IngressLoadBalancerIngress[]): Promise<void>;
}

/** Reads one Service (null when it does not exist). */
export type ServiceReader = (namespace: string, name: string) => Promise<V1Service | null>;

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function toRecord(lease: V1Lease): LeaseRecord {
  const spec = lease.spec ?? {};
  // Times stay strings: Date would be serialised with milliseconds, which a real API server refuses for MicroTime.
  const time = (value: unknown): string => (value instanceof Date ? value.toISOString() : String(value ?? ''));
  return {
    holderIdentity: spec.holderIdentity ?? '',
    leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
    acquireTime: time(spec.acquireTime),
    renewTime: time(spec.renewTime),
    leaseTransitions: spec.leaseTransitions ?? 0,
  };
}

function toLease(namespace: string, name: string, record: LeaseRecord, resourceVersion?: string): V1Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { namespace, name, ...(resourceVersion ? { resourceVersion } : {}) },
    spec: { ...record, acquireTime: record.acquireTime as unknown as Date, renewTime: record.renewTime as unknown as Date },
  };
}

async function conflictAware<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (apiStatusOf(err) === 409) throw new ApiConflictError(`${what}: conflict`);
    throw err;
  }
}

/** The Lease `namespace/name` over the API. */
export function createLeaseStore(kc: KubeConfig, namespace: string, name: string): LeaseStore {
  const api = kc.makeApiClient(CoordinationV1Api);
  return {
    async get() {
      try {
        const lease = await api.readNamespacedLease({ namespace, name });
        return { record: toRecord(lease), resourceVersion: lease.metadata?.resourceVersion ?? '' };
      } catch (err) {
        if (apiStatusOf(err) === 404) return null;
        throw err;
      }
    },
    create: (record) => conflictAware(`create lease ${namespace}/${name}`, async () =>
      (await api.createNamespacedLease({ namespace, body: toLease(namespace, name, record) })).metadata?.resourceVersion ?? ''),
    update: (record, resourceVersion) => conflictAware(`update lease ${namespace}/${name}`, async () =>
      (await api.replaceNamespacedLease({ namespace, name, body: toLease(namespace, name, record, resourceVersion) })).metadata?.resourceVersion ?? ''),
  };
}

/** core/v1 Events over the API. */
export function createEventSink(kc: KubeConfig): EventSink {
  const api = kc.makeApiClient(CoreV1Api);
  return {
    async create(event) {
      await api.createNamespacedEvent({ namespace: event.metadata.namespace ?? 'default', body: event });
    },
    async bump(namespace, name, count, lastTimestamp) {
      await api.patchNamespacedEvent({ namespace, name, body: { count, lastTimestamp } }, mergePatch);
    },
  };
}

/** Ingress status over the API (merge patch: only loadBalancer.ingress is replaced). */
export function createIngressStatusWriter(kc: KubeConfig): IngressStatusWriter {
  const api = kc.makeApiClient(NetworkingV1Api);
  return {
    async write(namespace, name, addresses) {
      const body = { status: { loadBalancer: { ingress: addresses.length > 0 ? addresses : null } } };
      await api.patchNamespacedIngressStatus({ namespace, name, body }, mergePatch);
    },
  };
}

/**
 * Service lookups over the API: a get by name, which the chart grants for the
 * published Service only (resourceNames), in every install mode, including
 * one that watches another namespace and has no list right where it lives.
 */
export function createServiceReader(kc: KubeConfig): ServiceReader {
  const api = kc.makeApiClient(CoreV1Api);
  return async (namespace, name) => {
    try {
      return await api.readNamespacedService({ namespace, name });
    } catch (err) {
      if (apiStatusOf(err) === 404) return null;
      throw err;
    }
  };
}
