// The proxy-path benchmark's model: the fixture YAML plus EndpointSlices to
// the backends and the TLS Secret of its secure host, through the real
// buildModel, rendered by the real renderer. The route wrk's requests take
// is the plain location or, with one of the fixture's canary Ingresses kept,
// the same location with a canary policy (pushed to Lua; nginx.conf is the
// same, so native is the same too), or with session affinity by cookie on its
// backend (pushed to Lua with the endpoints: the same nginx.conf again) and a
// returning session's cookie on every request, or hashing by $request_uri
// (pushed to Lua too), or EWMA (its locations also get the Lua log phase that
// feeds it response times; native strips it, so native is the same again).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { V1EndpointSlice, V1Ingress, V1Secret } from '@kubernetes/client-node';
import { buildModel } from '../../controller/src/model/index.ts';
import type { BuildOptions, BuildResult } from '../../controller/src/model/types.ts';
import { loadSnapshotFromYaml } from '../../controller/src/model/testdata/load-yaml.ts';
import { tlsSecret } from '../../controller/src/model/testdata/tls-fixtures.ts';
import { createSelfSignedCertificate } from '../../controller/src/tls/self-signed.ts';
import type { Peer } from './reference-conf.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/proxy-path.yaml', import.meta.url));

/** The controller's defaults (class `resty`), as bin/resty-ingress.js would pass them. */
export const BENCH_BUILD_OPTIONS: BuildOptions = Object.freeze({
  ingressClass: 'resty',
  controllerClass: 'resty-ingress.dev/controller',
  watchIngressWithoutClass: false,
  annotationsPrefix: 'nginx.ingress.kubernetes.io',
  defaultBackendService: null,
});

/** The Host header the benchmark sends (the fixture's host without a certificate). */
export const BENCH_HOST = 'bench.example.com';
/** The fixture's host with a certificate: plain HTTP to it is redirected (never load-tested). */
export const SECURE_HOST = 'secure.example.com';
const SECURE_SECRET = 'secure-tls';

/** The route of BENCH_HOST's `/` that the measured requests take. */
export type BenchRoute = 'plain' | 'canary-by-header' | 'canary-by-weight' | 'cookie-affinity' | 'allow-list' | 'cors-simple' | 'hash-by-uri' | 'ewma' | 'limit-rps' | 'basic-auth';
export const BENCH_ROUTES: readonly BenchRoute[] = ['plain', 'canary-by-header', 'canary-by-weight', 'cookie-affinity', 'allow-list', 'cors-simple', 'hash-by-uri', 'ewma', 'limit-rps', 'basic-auth'];
/**
 * Routes whose annotations are NGINX directives native keeps (allow lists, CORS, limit_req): their native
 * run is their own (limit-rps: native keys NGINX's zone by the address alone, without our set: reference-conf.ts).
 */
export const NATIVE_KEEPS: ReadonlySet<BenchRoute> = new Set(['allow-list', 'cors-simple', 'limit-rps']);
/** The fixture's canary Ingress each route keeps (the others are dropped: a main path has one canary). */
const CANARY_INGRESS: Readonly<Record<BenchRoute, string | null>> = {
  plain: null, 'canary-by-header': 'app-canary-by-header', 'canary-by-weight': 'app-canary-by-weight', 'cookie-affinity': null, 'allow-list': null, 'cors-simple': null,
  'hash-by-uri': null, ewma: null, 'limit-rps': null, 'basic-auth': null,
};
/**
 * Annotations a route adds to the fixture's `app` Ingress (wrk's location): cookie affinity; an allow
 * list that wrk's address (127.0.0.1) hits on its third rule; CORS with an origin list wrk's Origin matches.
 */
export const APP_ANNOTATIONS: Readonly<Record<BenchRoute, Readonly<Record<string, string>>>> = {
  plain: {}, 'canary-by-header': {}, 'canary-by-weight': {}, 'cookie-affinity': { 'nginx.ingress.kubernetes.io/affinity': 'cookie' },
  'allow-list': { 'nginx.ingress.kubernetes.io/allowlist-source-range': '10.0.0.0/8, 192.168.0.0/16, 127.0.0.1/32' },
  'cors-simple': { 'nginx.ingress.kubernetes.io/enable-cors': 'true', 'nginx.ingress.kubernetes.io/cors-allow-origin': 'https://app.example.com, https://*.example.org' },
  'hash-by-uri': { 'nginx.ingress.kubernetes.io/upstream-hash-by': '$request_uri' },
  ewma: { 'nginx.ingress.kubernetes.io/load-balance': 'ewma' },
  // A limit wrk stays under (100,000 per second, burst 500,000): every request is counted and passes.
  'limit-rps': { 'nginx.ingress.kubernetes.io/limit-rps': '100000' },
  'basic-auth': { 'nginx.ingress.kubernetes.io/auth-type': 'basic', 'nginx.ingress.kubernetes.io/auth-secret': 'bench-users', 'nginx.ingress.kubernetes.io/auth-realm': 'bench' },
};
/**
 * The htpasswd line of the basic-auth route: bcrypt ($2y$, cost 5), as `htpasswd -B` writes, of
 * "s3cret". NGINX's auth_basic would run bcrypt on every request; ours checks a header once and
 * then remembers it (lua/resty_ingress/auth.lua): the row prices that remembered path.
 */
const BENCH_HTPASSWD = 'bench:$2y$05$abcdefghijklmnopqrstuuLK7U1u6pVRmL7L1BBM2aS35PSZnDXlK\n';
/** The Authorization header of the basic-auth route's requests (and of every side's start-up probe on a model with users). */
export const BENCH_AUTHORIZATION = `Basic ${Buffer.from('bench:s3cret').toString('base64')}`;

/** The Opaque Secret of the basic-auth route's users. */
function usersSecret(): V1Secret {
  return { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { namespace: 'bench', name: 'bench-users' }, data: { auth: Buffer.from(BENCH_HTPASSWD).toString('base64') } };
}
/** The backend of wrk's location. */
const APP_BACKEND = 'bench-app-80';
const md5 = (text: string): string => createHash('md5').update(text).digest('hex');
/**
 * A returning session of the default (balanced) mode: any key maps to an endpoint, then the
 * backend's key (md5(md5(name)..name), lua/resty_ingress/sticky.lua). Every request carries it.
 */
export const AFFINITY_COOKIE = `INGRESSCOOKIE=bench-session|${md5(md5(APP_BACKEND) + APP_BACKEND)}`;
/** Request headers wrk sends on each route: by header, `always` sends every request to the canary; CORS: a listed Origin. */
export const ROUTE_HEADERS: Readonly<Record<BenchRoute, readonly string[]>> = {
  plain: [], 'canary-by-header': ['X-Canary: always'], 'canary-by-weight': [], 'cookie-affinity': [`Cookie: ${AFFINITY_COOKIE}`],
  'allow-list': [], 'cors-simple': ['Origin: https://app.example.com'], 'hash-by-uri': [], ewma: [], 'limit-rps': [],
  'basic-auth': [`Authorization: ${BENCH_AUTHORIZATION}`],
};

/** The Secret the fixture's secure Ingress names, with a certificate made now (RSA key: ~50 ms). */
function secureSecret(): V1Secret {
  return tlsSecret(SECURE_SECRET, createSelfSignedCertificate({ dnsNames: [SECURE_HOST] }), 'bench');
}

function sliceFor(service: string, peers: readonly Peer[]): V1EndpointSlice {
  const port = peers[0]?.port ?? 0;
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: 'bench', name: `${service}-1`, labels: { 'kubernetes.io/service-name': service } },
    addressType: 'IPv4',
    ports: [{ name: 'http', port, protocol: 'TCP' }],
    endpoints: peers.map((p) => ({ addresses: [p.address], conditions: { ready: true } })),
  };
}

/**
 * Builds the model for backends on `peers` (all on one port; the canary's
 * Service has the same ones) with `route` on BENCH_HOST's `/`; throws if the
 * fixture produced failures, the secure host got no certificate or the
 * canary did not attach. `extra`: Ingresses made from wrk's (`app`, with the
 * route's annotations) and added beside it (the external-auth benchmark's
 * protected path on the same host).
 */
export function buildProxyModel(peers: readonly Peer[], route: BenchRoute = 'plain', extra: (app: V1Ingress) => V1Ingress[] = () => []): BuildResult {
  const base = loadSnapshotFromYaml(readFileSync(FIXTURE, 'utf8'));
  const canaries = new Set(Object.values(CANARY_INGRESS).filter((name) => name !== null));
  const kept = base.ingresses.filter((i) => !canaries.has(i.metadata?.name ?? '') || i.metadata?.name === CANARY_INGRESS[route])
    .map((i) => (i.metadata?.name === 'app' ? { ...i, metadata: { ...i.metadata, annotations: { ...i.metadata.annotations, ...APP_ANNOTATIONS[route] } } } : i));
  const wrkIngress = kept.find((i) => i.metadata?.name === 'app');
  const ingresses = wrkIngress === undefined ? kept : [...kept, ...extra(wrkIngress)];
  const snapshot = {
    ...base, ingresses, endpointSlices: [sliceFor('app', peers), sliceFor('app-canary', peers)], secrets: [...base.secrets, secureSecret(), usersSecret()],
  };
  const result = buildModel(snapshot, BENCH_BUILD_OPTIONS);
  if (result.failures.length > 0) {
    throw new Error(`bench fixture refused by buildModel: ${result.failures.map((f) => f.message).join('; ')}`);
  }
  const backends = CANARY_INGRESS[route] === null ? 1 : 2;
  const affinity = result.model.backends.find((b) => b.name === APP_BACKEND)?.affinity ?? null;
  if ((affinity !== null) !== (route === 'cookie-affinity')) throw new Error(`bench model (${route}): ${APP_BACKEND} has affinity ${JSON.stringify(affinity)}`);
  const app = result.model.backends.find((b) => b.name === APP_BACKEND);
  const balancing = route === 'hash-by-uri' ? 'round_robin $request_uri' : route === 'ewma' ? 'ewma none' : 'round_robin none';
  if (`${app?.loadBalance} ${app?.hash?.by ?? 'none'}` !== balancing) throw new Error(`bench model (${route}): ${APP_BACKEND} balances ${app?.loadBalance} hash ${app?.hash?.by ?? 'none'}, expected ${balancing}`);
  const endpoints = result.model.backends.reduce((n, b) => n + b.endpoints.length, 0);
  if (result.model.backends.length !== backends || endpoints !== backends * peers.length) {
    throw new Error(`bench model (${route}) has ${result.model.backends.length} backends with ${endpoints} endpoints, expected ${backends} with ${peers.length} each`);
  }
  const users = result.model.credentials?.map((set) => set.id) ?? [];
  if (users.join() !== (route === 'basic-auth' ? 'bench/app' : '')) throw new Error(`bench model (${route}) has user sets [${users.join(', ')}]`);
  const policies = result.model.routes.map((r) => r.key);
  if (policies.length !== backends - 1 || policies.some((key) => !key.includes(` ${BENCH_HOST} `))) {
    throw new Error(`bench model (${route}) has route policies [${policies.join(', ')}], expected ${backends - 1} on ${BENCH_HOST}`);
  }
  const hosts = result.model.tls.hosts.map((h) => h.host);
  if (hosts.length !== 1 || hosts[0] !== SECURE_HOST) throw new Error(`bench model has certificates for [${hosts.join(', ')}], expected ${SECURE_HOST} only`);
  return result;
}
