// Test-only builders for the Kubernetes objects the model reads. They produce
// the shapes the informer hands over (Dates for timestamps), small enough
// that a table row reads like the manifest it stands for.

import type {
  V1ConfigMap,
  V1EndpointSlice,
  V1HTTPIngressPath,
  V1Ingress,
  V1IngressBackend,
  V1IngressClass,
  V1IngressRule,
  V1Service,
} from '@kubernetes/client-node';
import type { BuildOptions, Snapshot } from '../types.ts';

/** ingress-nginx's defaults: an ingress-nginx cluster's Ingresses are ours unchanged. */
export const DEFAULT_OPTIONS: BuildOptions = Object.freeze({
  ingressClass: 'nginx',
  controllerClass: 'k8s.io/ingress-nginx',
  watchIngressWithoutClass: false,
  annotationsPrefix: 'nginx.ingress.kubernetes.io',
  defaultBackendService: null,
});

/** Options with some fields changed. */
export function options(changes: Partial<BuildOptions> = {}): BuildOptions {
  return { ...DEFAULT_OPTIONS, ...changes };
}

/** An annotation key under the default prefix. */
export function ann(key: string): string {
  return `nginx.ingress.kubernetes.io/${key}`;
}

/** A service backend by port number or name. */
export function svc(name: string, port: number | string): V1IngressBackend {
  return { service: { name, port: typeof port === 'number' ? { number: port } : { name: port } } };
}

/** One HTTP path; pathType defaults to Prefix. */
export function path(value: string | undefined, backend: V1IngressBackend, pathType = 'Prefix'): V1HTTPIngressPath {
  return { path: value, pathType, backend };
}

/** A rule for `host` ("" = any host) with paths. */
export function rule(host: string, ...paths: V1HTTPIngressPath[]): V1IngressRule {
  return { host: host === '' ? undefined : host, http: { paths } };
}

/** What an Ingress fixture may set. */
export interface IngressFixture {
  readonly namespace?: string;
  /** RFC 3339 creation time; default 2024-01-01T00:00:00Z. */
  readonly created?: string;
  /** spec.ingressClassName; default `nginx`; null for none. */
  readonly className?: string | null;
  readonly annotations?: Record<string, string>;
  readonly rules?: V1IngressRule[];
  readonly defaultBackend?: V1IngressBackend;
}

/** An Ingress (class `nginx` unless told otherwise). */
export function ingress(name: string, fixture: IngressFixture = {}): V1Ingress {
  const className = fixture.className === undefined ? 'nginx' : fixture.className;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      namespace: fixture.namespace ?? 'default',
      name,
      creationTimestamp: new Date(fixture.created ?? '2024-01-01T00:00:00Z'),
      ...(fixture.annotations ? { annotations: fixture.annotations } : {}),
    },
    spec: {
      ...(className === null ? {} : { ingressClassName: className }),
      ...(fixture.rules ? { rules: fixture.rules } : {}),
      ...(fixture.defaultBackend ? { defaultBackend: fixture.defaultBackend } : {}),
    },
  };
}

/** An IngressClass for `controller`, optionally the cluster default. */
export function ingressClass(name: string, controller = 'k8s.io/ingress-nginx', isDefault = false): V1IngressClass {
  return {
    metadata: {
      name,
      ...(isDefault ? { annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } } : {}),
    },
    spec: { controller },
  };
}

/** A Service port: `port` with optional name and targetPort. */
export interface ServicePortFixture {
  readonly port: number;
  readonly name?: string;
  readonly targetPort?: number | string;
}

/** A ClusterIP Service (or another type). */
export function service(name: string, ports: ServicePortFixture[], namespace = 'default', type = 'ClusterIP'): V1Service {
  return {
    metadata: { namespace, name },
    spec: { type, ports: ports.map((port) => ({ protocol: 'TCP', ...port })) },
  };
}

/** An endpoint of a slice; ready unless told otherwise (undefined = absent condition). */
export interface EndpointFixture {
  readonly addresses: string[];
  readonly ready?: boolean;
}

/** An EndpointSlice for a Service; slice ports carry the Service port names. */
export function slice(
  name: string,
  serviceName: string,
  ports: { name?: string; port: number }[],
  endpoints: EndpointFixture[],
  namespace = 'default',
  addressType = 'IPv4',
): V1EndpointSlice {
  return {
    metadata: { namespace, name, labels: { 'kubernetes.io/service-name': serviceName } },
    addressType,
    ports: ports.map((port) => ({ protocol: 'TCP', ...port })),
    endpoints: endpoints.map((endpoint) => ({
      addresses: endpoint.addresses,
      ...(endpoint.ready === undefined ? {} : { conditions: { ready: endpoint.ready } }),
    })),
  };
}

/** A snapshot with the IngressClass `nginx` (ours) unless classes are given. */
export function snapshot(parts: Partial<Snapshot> = {}): Snapshot {
  return {
    ingresses: parts.ingresses ?? [],
    ingressClasses: parts.ingressClasses ?? [ingressClass('nginx')],
    services: parts.services ?? [],
    endpointSlices: parts.endpointSlices ?? [],
    secrets: parts.secrets ?? [],
    configMaps: parts.configMaps ?? [],
  };
}

/** Freezes an object graph (Dates included) so any mutation by the builder throws in strict mode. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** The controller's ConfigMap (`--configmap ingress/resty-ingress`) with `data`. */
export function configMap(data: Record<string, string>, name = 'resty-ingress', namespace = 'ingress'): V1ConfigMap {
  return deepFreeze({ metadata: { namespace, name }, data });
}
