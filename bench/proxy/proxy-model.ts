// The proxy-path benchmark's model: the fixture YAML plus an EndpointSlice to
// the backends, through the real buildModel, rendered by the real renderer.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { buildModel } from '../../controller/src/model/index.ts';
import type { BuildOptions, BuildResult } from '../../controller/src/model/types.ts';
import { loadSnapshotFromYaml } from '../../controller/src/model/testdata/load-yaml.ts';
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

/** The Host header the benchmark sends (the fixture's host). */
export const BENCH_HOST = 'bench.example.com';

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

/** Builds the model for backends on `peers` (all on one port); throws if the fixture produced failures. */
export function buildProxyModel(peers: readonly Peer[]): BuildResult {
  const base = loadSnapshotFromYaml(readFileSync(FIXTURE, 'utf8'));
  const snapshot = { ...base, endpointSlices: [sliceFor(peers)] };
  const result = buildModel(snapshot, BENCH_BUILD_OPTIONS);
  if (result.failures.length > 0) {
    throw new Error(`bench fixture refused by buildModel: ${result.failures.map((f) => f.message).join('; ')}`);
  }
  const endpoints = result.model.backends.reduce((n, b) => n + b.endpoints.length, 0);
  if (endpoints !== peers.length) throw new Error(`bench model has ${endpoints} endpoints, expected ${peers.length}`);
  return result;
}
