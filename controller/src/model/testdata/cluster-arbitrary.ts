// Test-only: a fast-check arbitrary for a whole cluster as the model builder
// sees it (snapshot + options), every user-controlled field drawn from
// field-values.ts. Ingresses pick hosts, paths and Services from small pools
// shared by the snapshot, so conflicts and merged servers happen often; pairs
// of a main Ingress and a canary of it make route policies; TLS Secrets come
// from tls-pool.ts (real certificates made once per process, or garbage).

import type { V1HTTPIngressPath, V1Ingress, V1IngressBackend, V1Service } from '@kubernetes/client-node';
import fc from 'fast-check';
import type { BuildOptions, Snapshot } from '../types.ts';
import { ANNOTATION_NAMES, authProxyHeaders, CONFIG_KEY_NAMES, configValuesOf, HEADER_CONFIG_MAPS, headerConfigMapData, host, literalPath, namespace, objectName, otherAnnotationName, otherConfigKey, pathType, regexPath, portName, portNumber, serviceName, valuesOf } from './field-values.ts';
import { anyString, MARKER, userValue } from './hostile-values.ts';
import { configMap, deepFreeze, ingressClass, options as buildOptions, slice } from './fixtures.ts';
import { BUILD_NOW, secretArbitrary, type TlsPool } from './tls-pool.ts';

/** A generated cluster: what buildModel takes. */
export interface Cluster {
  readonly snapshot: Snapshot;
  readonly options: BuildOptions;
}

/** A reference to one of the snapshot's pooled things (resolved modulo the pool size) or a fresh value. */
const pick = <T>(fresh: fc.Arbitrary<T>): fc.Arbitrary<number | { fresh: T }> =>
  fc.oneof({ weight: 8, arbitrary: fc.nat({ max: 5 }) }, { weight: 1, arbitrary: fresh.map((value) => ({ fresh: value })) });

const servicePortArbitrary = fc.record({ port: portNumber, name: fc.option(portName, { nil: undefined }), targetPort: fc.option(fc.oneof(portNumber, portName), { nil: undefined }) });
const serviceArbitrary = fc.record({ name: serviceName, ports: fc.array(servicePortArbitrary, { minLength: 1, maxLength: 3 }), type: fc.constantFrom('ClusterIP', 'ClusterIP', 'NodePort', 'ExternalName') });
type ServicePlan = { name: string; ports: { port: number; name?: string; targetPort?: number | string }[]; type: string };

const address = userValue(fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('10.0.0.1\u0000evil', 'fe80::1%eth0', '::FFFF:10.0.0.1', 'web.local')));
const backendRef = fc.record({ service: pick(serviceName), port: fc.oneof(fc.nat({ max: 3 }), fc.record({ number: portNumber }), fc.record({ name: portName })) });
const pathPlan = fc.record({ path: pick(fc.oneof(literalPath, regexPath)), pathType: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: pathType }), backend: backendRef });
const rulePlan = fc.record({ host: fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 6, arbitrary: pick(host) }), paths: fc.array(pathPlan, { minLength: 1, maxLength: 3 }) });

/** Values for some of `names` (a set of them), as [name, value] pairs. */
function valuesFor(names: readonly string[], max: number, min = 0, of: (name: string) => fc.Arbitrary<string> = valuesOf): fc.Arbitrary<(readonly [string, string])[]> {
  return fc.uniqueArray(fc.constantFrom(...names), { minLength: Math.min(min, names.length), maxLength: Math.min(max, names.length) })
    .chain((chosen) => fc.tuple(...chosen.map((name) => of(name).map((value) => [name, value] as const))));
}

const CANARY_KEYS = ANNOTATION_NAMES.filter((name) => name.startsWith('canary-'));
const CORS_KEYS = ANNOTATION_NAMES.filter((name) => name.startsWith('cors-'));
/** The external auth keys that need auth-url beside them (auth-keepalive*, auth-proxy-set-headers, …). */
const EXTERNAL_AUTH_KEYS = ANNOTATION_NAMES.filter((name) => name.startsWith('auth-') && !name.startsWith('auth-tls-')
  && !['auth-url', 'auth-type', 'auth-secret', 'auth-secret-type', 'auth-realm'].includes(name));
/**
 * Declared keys with their values; one Ingress in six is a canary (canary: "true" and some canary-* keys), one in six has CORS on,
 * one in six has an auth-url with some of the auth-* keys that need it.
 */
const declaredAnnotations = (max: number): fc.Arbitrary<(readonly [string, string])[]> => fc.oneof(
  { weight: 3, arbitrary: valuesFor(ANNOTATION_NAMES, max) },
  { weight: 1, arbitrary: valuesFor(CANARY_KEYS, 3).map((pairs) => [['canary', 'true'] as const, ...pairs]) },
  { weight: 1, arbitrary: valuesFor(CORS_KEYS, 4).map((pairs) => [['enable-cors', 'true'] as const, ...pairs]) },
  { weight: 1, arbitrary: valuesFor(EXTERNAL_AUTH_KEYS, 4).map((pairs) => [['auth-url', 'http://127.0.0.1:9/verify'] as const, ...pairs]) },
);

/** Annotations: some declared keys with their values, sometimes other names under the prefix or outside it. */
const annotations = (max: number): fc.Arbitrary<Record<string, string>> => fc.tuple(
  declaredAnnotations(max),
  fc.oneof({ weight: 5, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(fc.tuple(otherAnnotationName, userValue(fc.constantFrom('true', 'false', '1', MARKER))), { maxLength: 2 }) }),
  fc.option(fc.tuple(fc.constantFrom('example.com/', 'nginx.ingress.kubernetes.io', ''), anyString), { nil: undefined, freq: 8 }),
).map(([declared, others, outside]) => ({
  ...Object.fromEntries(others.map(([name, value]) => [`nginx.ingress.kubernetes.io/${name}`, value])),
  ...Object.fromEntries(declared.map(([name, value]) => [`nginx.ingress.kubernetes.io/${name}`, value])),
  ...(outside ? { [`${outside[0]}${outside[1]}`]: outside[1] } : {}),
}));

const ingressPlan = (maxAnnotations: number) => fc.record({
  name: objectName,
  namespace: fc.oneof({ weight: 6, arbitrary: fc.constant('default') }, { weight: 1, arbitrary: namespace }),
  className: fc.constantFrom('nginx', 'nginx', 'nginx', 'nginx', 'nginx', null, 'other'),
  annotations: annotations(maxAnnotations),
  rules: fc.array(rulePlan, { maxLength: 3 }),
  tls: fc.array(fc.record({ hosts: fc.array(pick(host), { maxLength: 3 }), secretName: fc.option(fc.oneof(fc.nat({ max: 3 }).map((i) => `tls-${i}`), objectName), { nil: undefined }) }), { maxLength: 2 }),
  defaultBackend: fc.option(backendRef, { nil: undefined }),
  minute: fc.nat({ max: 59 }),
});

/** A main Ingress without annotations and a canary of it: the same rule, another backend, canary-* values. */
const canaryPair = fc.record({ rule: rulePlan, backend: backendRef, annotations: valuesFor(CANARY_KEYS, 4) });
type PairPlan = typeof canaryPair extends fc.Arbitrary<infer T> ? T : never;
type IngressPlan = ReturnType<typeof ingressPlan> extends fc.Arbitrary<infer T> ? T : never;
type BackendPlan = IngressPlan['rules'][number]['paths'][number]['backend'];

interface Pools {
  readonly hosts: readonly string[];
  /** Paths an Ingress that asks for regex paths picks from, and those the others pick from. */
  readonly regexPaths: readonly string[];
  readonly literalPaths: readonly string[];
  readonly services: readonly ServicePlan[];
}

function resolve<T>(ref: number | { fresh: T }, pool: readonly T[]): T {
  return typeof ref === 'number' ? pool[ref % pool.length] : ref.fresh;
}

function toBackend(plan: BackendPlan, pools: Pools): V1IngressBackend {
  const service = typeof plan.service === 'number' ? pools.services[plan.service % pools.services.length] : null;
  const name = service?.name ?? resolve(plan.service, []);
  if (typeof plan.port !== 'number') return { service: { name, port: plan.port } };
  const port = service?.ports[plan.port % service.ports.length];
  // A pooled port by name when it has one (as most manifests do), else by number.
  return { service: { name, port: port?.name !== undefined && plan.port % 2 === 0 ? { name: port.name } : { number: port?.port ?? 80 } } };
}

function toIngress(plan: IngressPlan, pools: Pools): V1Ingress {
  const regexAsked = ['use-regex', 'rewrite-target'].some((name) => Object.hasOwn(plan.annotations, `nginx.ingress.kubernetes.io/${name}`));
  const rules = plan.rules.map((rule) => ({
    ...(rule.host === null ? {} : { host: resolve(rule.host, pools.hosts) }),
    http: {
      paths: rule.paths.map((item): V1HTTPIngressPath => ({
        path: resolve(item.path, regexAsked ? pools.regexPaths : pools.literalPaths),
        // As a user would write it: ImplementationSpecific where the Ingress asks for regex paths.
        pathType: item.pathType ?? (regexAsked ? 'ImplementationSpecific' : 'Prefix'),
        backend: toBackend(item.backend, pools),
      })) as V1HTTPIngressPath[],
    },
  }));
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { namespace: plan.namespace, name: plan.name, creationTimestamp: new Date(Date.UTC(2024, 0, 1, 0, plan.minute)), annotations: plan.annotations },
    spec: {
      ...(plan.className === null ? {} : { ingressClassName: plan.className }),
      rules,
      ...(plan.tls.length > 0 ? { tls: plan.tls.map((entry) => ({ hosts: entry.hosts.map((h) => resolve(h, pools.hosts)), secretName: entry.secretName })) } : {}),
      ...(plan.defaultBackend ? { defaultBackend: toBackend(plan.defaultBackend, pools) } : {}),
    },
  };
}

/** The two Ingresses of a pair, `main-<i>` and `canary-<i>` (the canary a minute younger). */
function toPair(plan: PairPlan, i: number, pools: Pools): V1Ingress[] {
  const base = { namespace: 'default', className: 'nginx' as const, rules: [plan.rule], tls: [], defaultBackend: undefined };
  const main = toIngress({ ...base, name: `main-${i}`, annotations: {}, minute: 0 }, pools);
  const canary = toIngress({ ...base, name: `canary-${i}`, minute: 1, annotations: {
    'nginx.ingress.kubernetes.io/canary': 'true', ...Object.fromEntries(plan.annotations.map(([name, value]) => [`nginx.ingress.kubernetes.io/${name}`, value])),
  } }, pools);
  const backend = toBackend(plan.backend, pools);
  const rules = (canary.spec?.rules ?? []).map((rule) => ({ ...rule, http: { paths: (rule.http?.paths ?? []).map((item) => ({ ...item, backend })) } }));
  return [main, { ...canary, spec: { ...canary.spec, rules } }];
}

function toService(plan: ServicePlan): V1Service {
  return { metadata: { namespace: 'default', name: plan.name }, spec: { type: plan.type, ports: plan.ports.map((port) => ({ protocol: 'TCP', ...port })) } };
}

/** Every user-controlled value a cluster holds, counted as the properties test them. */
export function countUserValues({ snapshot }: Cluster): number {
  let count = 0;
  for (const item of snapshot.ingresses) {
    count += 2 + 2 * Object.keys(item.metadata?.annotations ?? {}).length;
    for (const rule of item.spec?.rules ?? []) count += 1 + 4 * (rule.http?.paths.length ?? 0);
    for (const entry of item.spec?.tls ?? []) count += 1 + (entry.hosts?.length ?? 0);
  }
  for (const service of snapshot.services) count += 1 + 3 * (service.spec?.ports?.length ?? 0);
  for (const item of snapshot.endpointSlices) count += item.endpoints.length;
  for (const secret of snapshot.secrets) count += 1 + Object.keys(secret.data ?? {}).length;
  for (const item of snapshot.configMaps) count += 2 * Object.keys(item.data ?? {}).length;
  return count;
}

/** How much a generated cluster holds at most (the ConfigMap: at least). */
export interface ClusterSizes {
  readonly ingresses: number;
  /** Declared annotations per Ingress. */
  readonly annotations: number;
  /** ConfigMap keys: at least `configKeys[0]`, at most `configKeys[1]`. */
  readonly configKeys: readonly [number, number];
}

/** Small clusters: many of them per run. */
export const SMALL: ClusterSizes = { ingresses: 6, annotations: 5, configKeys: [0, 5] };
/** Every ConfigMap key set and more annotations: each conf carries as many values as it can (the nginx -t sample). */
export const DENSE: ClusterSizes = { ingresses: 10, annotations: 10, configKeys: [CONFIG_KEY_NAMES.length, CONFIG_KEY_NAMES.length] };

/** A whole cluster: Ingresses over pooled hosts, paths and Services, their Secrets, slices and the controller's ConfigMap. */
export function clusterArbitrary(pool: TlsPool, sizes: ClusterSizes = SMALL): fc.Arbitrary<Cluster> {
  return fc.record({
    hosts: fc.array(host, { minLength: 1, maxLength: 3 }),
    literalPaths: fc.array(literalPath, { minLength: 1, maxLength: 3 }),
    regexPaths: fc.array(regexPath, { minLength: 1, maxLength: 3 }),
    services: fc.array(serviceArbitrary, { minLength: 1, maxLength: 3 }),
    ingresses: fc.array(ingressPlan(sizes.annotations), { minLength: 1, maxLength: sizes.ingresses }),
    addresses: fc.array(address, { maxLength: 4 }),
    pairs: fc.array(canaryPair, { maxLength: 2 }),
    secrets: fc.tuple(...[0, 1, 2, 3].map((i) => secretArbitrary(pool, `tls-${i}`))),
    // Another key (a protective one closes everything) in one ConfigMap of eight.
    config: fc.tuple(valuesFor(CONFIG_KEY_NAMES, sizes.configKeys[1], sizes.configKeys[0], configValuesOf), fc.oneof({ weight: 7, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(fc.tuple(otherConfigKey, anyString), { maxLength: 1 }) })),
    defaultCertificate: fc.constantFrom(null, null, 'default/tls-0', 'default/tls-3', 'nope', 'default/missing'),
    // The ConfigMaps of headers proxy-set-headers / add-headers may name (field-values.ts).
    headerConfigMaps: fc.tuple(...HEADER_CONFIG_MAPS.map(() => headerConfigMapData)),
    authHeaders: authProxyHeaders,
  }).map((plan) => {
    const pools: Pools = { hosts: plan.hosts, literalPaths: plan.literalPaths, regexPaths: plan.regexPaths, services: plan.services };
    const slices = plan.services.map((service) => slice(`${service.name}-1`, service.name,
      service.ports.map((port) => ({ ...(port.name === undefined ? {} : { name: port.name }), port: typeof port.targetPort === 'number' ? port.targetPort : 8080 })),
      plan.addresses.length > 0 ? [{ addresses: plan.addresses }] : []));
    const ingresses = [...plan.ingresses.map((item) => toIngress(item, pools)), ...plan.pairs.flatMap((pair, i) => toPair(pair, i, pools))];
    const snapshot: Snapshot = {
      ingresses,
      ingressClasses: [ingressClass('nginx')],
      services: plan.services.map(toService),
      endpointSlices: slices,
      secrets: plan.secrets,
      configMaps: [configMap(Object.fromEntries([...plan.config[1], ...plan.config[0]])),
        ...HEADER_CONFIG_MAPS.map((name, i) => configMap(plan.headerConfigMaps[i] ?? {}, name)),
        // auth-proxy-set-headers names it (field-values.ts).
        configMap(Object.fromEntries(plan.authHeaders), 'auth-headers', 'default')],
    };
    return {
      snapshot: deepFreeze(snapshot),
      options: buildOptions({ configMap: 'ingress/resty-ingress', defaultSslCertificate: plan.defaultCertificate, now: BUILD_NOW }),
    };
  });
}
