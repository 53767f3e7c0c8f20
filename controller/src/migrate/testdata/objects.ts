// Test-only: the objects the migrate tests build their inputs from, written
// as a user writes them (only the fields each case is about).

import type { V1ConfigMap, V1Ingress, V1IngressClass, V1Service } from '@kubernetes/client-node';
import type { Snapshot } from '../../model/types.ts';
import type { Selection } from '../options.ts';
import { INGRESS_NGINX_SELECTION } from '../options.ts';
import type { ReportRequest } from '../report.ts';

export interface PathInput {
  readonly path: string;
  readonly service: string;
  readonly pathType?: string;
  readonly host?: string;
}

export interface IngressInput {
  readonly name: string;
  readonly namespace?: string;
  readonly host?: string;
  readonly paths?: readonly PathInput[];
  readonly annotations?: Readonly<Record<string, string>>;
  /** spec.ingressClassName; null leaves it out. Default `nginx`. */
  readonly className?: string | null;
  /** creationTimestamp (ISO); older wins a conflict. */
  readonly created?: string;
  readonly defaultBackend?: string;
  readonly tlsSecret?: string;
}

const prefixed = (annotations: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(annotations).map(([key, value]) => [key.includes('/') ? key : `nginx.ingress.kubernetes.io/${key}`, value]));

/** An Ingress; annotation keys without a `/` get the ingress-nginx prefix. */
export function ingress(input: IngressInput): V1Ingress {
  const host = input.host ?? `${input.name}.example.com`;
  const paths = input.paths ?? (input.defaultBackend === undefined ? [{ path: '/', service: input.name }] : []);
  const backend = (service: string): object => ({ service: { name: service, port: { number: 80 } } });
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name: input.name, namespace: input.namespace ?? 'default', annotations: prefixed(input.annotations ?? {}),
      ...(input.created === undefined ? {} : { creationTimestamp: new Date(input.created) }),
    },
    spec: {
      ...(input.className === null ? {} : { ingressClassName: input.className ?? 'nginx' }),
      ...(input.defaultBackend === undefined ? {} : { defaultBackend: backend(input.defaultBackend) }),
      ...(input.tlsSecret === undefined ? {} : { tls: [{ hosts: [host], secretName: input.tlsSecret }] }),
      rules: paths.length === 0 ? [] : [{
        host,
        http: { paths: paths.map((item) => ({ path: item.path, pathType: item.pathType ?? 'Prefix', backend: backend(item.service) })) },
      }],
    },
  } as V1Ingress;
}

/** A Service on port 80; `type` ExternalName makes it one. */
export function service(name: string, namespace = 'default', type?: string): V1Service {
  return {
    apiVersion: 'v1', kind: 'Service', metadata: { name, namespace },
    spec: type === 'ExternalName' ? { type, externalName: 'example.org' } : { ports: [{ port: 80, targetPort: 8080 }] },
  } as V1Service;
}

/** ingress-nginx's IngressClass. */
export function nginxClass(name = 'nginx', controller = 'k8s.io/ingress-nginx'): V1IngressClass {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name }, spec: { controller } } as V1IngressClass;
}

export const CONFIG_MAP_KEY = 'ingress-nginx/ingress-nginx-controller';

export function configMap(data: Readonly<Record<string, string>>): V1ConfigMap {
  const [namespace, name] = CONFIG_MAP_KEY.split('/');
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name }, data: { ...data } };
}

/** A Snapshot of these objects, by kind. */
export function snapshotOf(objects: readonly object[]): Snapshot {
  const kind = (name: string): unknown[] => objects.filter((object) => (object as { kind?: string }).kind === name);
  return {
    ingresses: kind('Ingress') as V1Ingress[], ingressClasses: kind('IngressClass') as V1IngressClass[], services: kind('Service') as V1Service[],
    configMaps: kind('ConfigMap') as V1ConfigMap[], endpointSlices: [], secrets: [],
  };
}

/** A report request over `objects`, reading CONFIG_MAP_KEY when a ConfigMap is among them. */
export function requestOf(objects: readonly object[], overrides: Partial<ReportRequest> = {}, selection: Partial<Selection> = {}): ReportRequest {
  const snapshot = snapshotOf(objects);
  return {
    snapshot,
    selection: { ...INGRESS_NGINX_SELECTION, ...selection },
    configMap: snapshot.configMaps.length > 0 ? { key: CONFIG_MAP_KEY, source: 'manifests' } : null,
    flags: [],
    input: { kind: 'manifests', files: [], otherObjects: 0, skipped: [] },
    notes: [],
    ...overrides,
  };
}
