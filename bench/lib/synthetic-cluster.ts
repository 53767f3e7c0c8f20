// A synthetic cluster of N apps: per app one Ingress (own host, path /), one
// Service and one EndpointSlice with `endpointsPerApp` ready endpoints. The
// objects have the informer's shape (Dates) for buildModel; asJson() gives
// what the local API server stores.
import type { V1EndpointSlice, V1Ingress, V1IngressClass, V1Service } from '@kubernetes/client-node';
import { deepFreeze } from '../../controller/src/kube/kinds.ts';
import type { Snapshot } from '../../controller/src/model/types.ts';
import type { JsonObject } from '../../e2e/cluster/apiserver/index.ts';

export const BENCH_NAMESPACE = 'bench';
export const INGRESS_CLASS = 'resty';

export interface SyntheticOptions {
  readonly apps: number;
  readonly endpointsPerApp: number;
  /** Endpoint address of app i, endpoint j (default: a unique 10.x.y.z). */
  readonly address?: (app: number, endpoint: number) => string;
  readonly port?: number;
  /** First app index (to add apps to an existing cluster). */
  readonly first?: number;
}

export interface SyntheticCluster {
  readonly ingressClass: V1IngressClass;
  readonly ingresses: V1Ingress[];
  readonly services: V1Service[];
  readonly endpointSlices: V1EndpointSlice[];
}

/** A unique 10.x.y.z per (app, endpoint) for up to 16M endpoints. */
export function tenNetAddress(index: number): string {
  return `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;
}

export const appName = (i: number): string => `app-${i}`;
export const appHost = (i: number): string => `app-${i}.bench.example.com`;

/** The EndpointSlice of app i with the given addresses. */
export function appSlice(i: number, addresses: readonly string[], port: number): V1EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: { namespace: BENCH_NAMESPACE, name: `${appName(i)}-1`, labels: { 'kubernetes.io/service-name': appName(i) } },
    addressType: 'IPv4',
    ports: [{ name: 'http', port, protocol: 'TCP' }],
    endpoints: addresses.map((address) => ({ addresses: [address], conditions: { ready: true } })),
  };
}

/** The Ingress of app i; every tenth carries annotations so the model has some variety. */
export function appIngress(i: number): V1Ingress {
  const annotations = i % 10 === 0 ? { 'nginx.ingress.kubernetes.io/proxy-read-timeout': '120', 'nginx.ingress.kubernetes.io/proxy-body-size': '8m' } : undefined;
  return {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress',
    metadata: { namespace: BENCH_NAMESPACE, name: appName(i), creationTimestamp: new Date(Date.UTC(2024, 0, 1, 0, 0, i % 86_400)), ...(annotations ? { annotations } : {}) },
    spec: {
      ingressClassName: INGRESS_CLASS,
      rules: [{ host: appHost(i), http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: appName(i), port: { number: 80 } } } }] } }],
    },
  };
}

export function syntheticCluster(opts: SyntheticOptions): SyntheticCluster {
  const port = opts.port ?? 8080;
  const first = opts.first ?? 0;
  const address = opts.address ?? ((app: number, endpoint: number): string => tenNetAddress(app * opts.endpointsPerApp + endpoint + 1));
  const cluster: SyntheticCluster = {
    ingressClass: { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: INGRESS_CLASS }, spec: { controller: 'resty-ingress.dev/controller' } },
    ingresses: [], services: [], endpointSlices: [],
  };
  for (let i = first; i < first + opts.apps; i++) {
    cluster.ingresses.push(appIngress(i));
    cluster.services.push({
      apiVersion: 'v1', kind: 'Service',
      metadata: { namespace: BENCH_NAMESPACE, name: appName(i) },
      spec: { ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }] },
    });
    cluster.endpointSlices.push(appSlice(i, Array.from({ length: opts.endpointsPerApp }, (_, j) => address(i, j)), port));
  }
  return cluster;
}

/** An object as the API stores it (Dates become RFC 3339 strings). */
export function asJson<T>(object: T): JsonObject {
  return JSON.parse(JSON.stringify(object)) as JsonObject;
}

/** The informer's view of a synthetic cluster. */
export function toSnapshot(cluster: SyntheticCluster): Snapshot {
  return {
    ingresses: cluster.ingresses,
    ingressClasses: [cluster.ingressClass],
    services: cluster.services,
    endpointSlices: cluster.endpointSlices,
    secrets: [],
    configMaps: [],
  };
}

/**
 * `snapshot` with the path of its last Ingress changed, as a rebuild after one edit sees it: a new
 * frozen Ingress, every other object shared (the builder's identity caches see one change).
 */
export function withOneRouteChanged(snapshot: Snapshot): Snapshot {
  const changed = structuredClone(snapshot.ingresses.at(-1));
  const path = changed?.spec?.rules?.[0]?.http?.paths[0];
  if (changed === undefined || path === undefined) return snapshot;
  path.path = '/changed';
  return Object.freeze({ ...snapshot, ingresses: Object.freeze([...snapshot.ingresses.slice(0, -1), deepFreeze(changed)]) });
}
