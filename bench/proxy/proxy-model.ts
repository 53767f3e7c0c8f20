// The proxy-path benchmark's model: the fixture YAML plus an EndpointSlice to
// the backends and the TLS Secret of its secure host, through the real
// buildModel, rendered by the real renderer.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { V1EndpointSlice, V1Secret } from '@kubernetes/client-node';
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

/** The Secret the fixture's secure Ingress names, with a certificate made now (RSA key: ~50 ms). */
function secureSecret(): V1Secret {
  return tlsSecret(SECURE_SECRET, createSelfSignedCertificate({ dnsNames: [SECURE_HOST] }), 'bench');
}

function sliceFor(peers: readonly Peer[]): V1EndpointSlice {
  const port = peers[0]?.port ?? 0;
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: 'bench', name: 'app-1', labels: { 'kubernetes.io/service-name': 'app' } },
    addressType: 'IPv4',
    ports: [{ name: 'http', port, protocol: 'TCP' }],
    endpoints: peers.map((p) => ({ addresses: [p.address], conditions: { ready: true } })),
  };
}

/**
 * Builds the model for backends on `peers` (all on one port); throws if the
 * fixture produced failures or the secure host got no certificate.
 */
export function buildProxyModel(peers: readonly Peer[]): BuildResult {
  const base = loadSnapshotFromYaml(readFileSync(FIXTURE, 'utf8'));
  const snapshot = { ...base, endpointSlices: [sliceFor(peers)], secrets: [...base.secrets, secureSecret()] };
  const result = buildModel(snapshot, BENCH_BUILD_OPTIONS);
  if (result.failures.length > 0) {
    throw new Error(`bench fixture refused by buildModel: ${result.failures.map((f) => f.message).join('; ')}`);
  }
  const endpoints = result.model.backends.reduce((n, b) => n + b.endpoints.length, 0);
  if (endpoints !== peers.length) throw new Error(`bench model has ${endpoints} endpoints, expected ${peers.length}`);
  const hosts = result.model.tls.hosts.map((h) => h.host);
  if (hosts.length !== 1 || hosts[0] !== SECURE_HOST) throw new Error(`bench model has certificates for [${hosts.join(', ')}], expected ${SECURE_HOST} only`);
  return result;
}
