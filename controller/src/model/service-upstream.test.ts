// service-upstream in the builder (ingress-nginx v1.15.1: getServiceClusterEndpoint and
// createUpstreams in internal/ingress/controller/controller.go, and the e2e test
// annotations/serviceupstream.go): the backend's one endpoint is the Service's ClusterIP
// and Service port (a named Ingress port resolved), with no EndpointSlice needed; a headless
// Service keeps its EndpointSlices' endpoints; the oldest Ingress of a backend decides; and
// turning it on or off changes only endpoints, which the diff applies without a reload.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1EndpointSlice, V1Ingress, V1Service } from '@kubernetes/client-node';
import { decideApply } from '../diff/decide.ts';
import { buildModel } from './build.ts';
import { ann, configMap, deepFreeze, ingress, options, path, rule, service, slice, snapshot, svc } from './testdata/fixtures.ts';
import type { BuildOptions, Endpoint } from './types.ts';

const on = { [ann('service-upstream')]: 'true' };
const off = { [ann('service-upstream')]: 'false' };

function withClusterIp(base: V1Service, clusterIP: string | undefined): V1Service {
  return { ...base, spec: { ...base.spec, ...(clusterIP === undefined ? {} : { clusterIP }) } };
}

const web = withClusterIp(service('web', [{ port: 80, name: 'http', targetPort: 8080 }]), '10.96.0.10');
const webSlice = slice('web-1', 'web', [{ name: 'http', port: 8080 }], [{ addresses: ['10.1.0.1'] }, { addresses: ['10.1.0.2'] }]);
const PODS: Endpoint[] = [{ address: '10.1.0.1', port: 8080 }, { address: '10.1.0.2', port: 8080 }];

interface Row {
  readonly name: string;
  readonly ingresses: V1Ingress[];
  readonly services?: V1Service[];
  readonly slices?: V1EndpointSlice[];
  readonly configMap?: Record<string, string>;
  /** Backend name → its endpoints. */
  readonly endpoints: Record<string, Endpoint[]>;
  /** `reason field (warning)` of each failure, in order. */
  readonly failures?: string[];
}

const rule80 = (host: string, port: number | string = 80): ReturnType<typeof rule> => rule(host, path('/', svc('web', port)));

const rows: Row[] = [
  {
    name: 'off (the default): the EndpointSlices\' Pods',
    ingresses: [ingress('a', { rules: [rule80('a.example')] })],
    endpoints: { 'default-web-80': PODS },
  },
  {
    name: 'on: the ClusterIP and the Service port (not the targetPort)',
    ingresses: [ingress('a', { annotations: on, rules: [rule80('a.example')] })],
    endpoints: { 'default-web-80': [{ address: '10.96.0.10', port: 80 }] },
  },
  {
    name: 'on, with no EndpointSlice at all: still the ClusterIP',
    ingresses: [ingress('a', { annotations: on, rules: [rule80('a.example')] })],
    slices: [],
    endpoints: { 'default-web-80': [{ address: '10.96.0.10', port: 80 }] },
  },
  {
    name: 'on, the Service port named in the Ingress: its number',
    ingresses: [ingress('a', { annotations: on, rules: [rule80('a.example', 'http')] })],
    endpoints: { 'default-web-http': [{ address: '10.96.0.10', port: 80 }] },
  },
  {
    name: 'on for spec.defaultBackend too',
    ingresses: [ingress('a', { annotations: on, defaultBackend: svc('web', 80) })],
    endpoints: { 'default-web-80': [{ address: '10.96.0.10', port: 80 }] },
  },
  {
    name: 'an IPv6 ClusterIP is written as the model writes addresses',
    ingresses: [ingress('a', { annotations: on, rules: [rule80('a.example')] })],
    services: [withClusterIp(web, 'FD00::A')],
    endpoints: { 'default-web-80': [{ address: 'fd00::a', port: 80 }] },
  },
  {
    name: 'the ConfigMap turns it on for every Ingress',
    ingresses: [ingress('a', { rules: [rule80('a.example')] })],
    configMap: { 'service-upstream': 'true' },
    endpoints: { 'default-web-80': [{ address: '10.96.0.10', port: 80 }] },
  },
  {
    name: 'the ConfigMap on, the annotation off (ingress-nginx\'s e2e test): the Pods',
    ingresses: [ingress('a', { annotations: off, rules: [rule80('a.example')] })],
    configMap: { 'service-upstream': 'true' },
    endpoints: { 'default-web-80': PODS },
  },
  {
    name: 'Ingresses sharing the backend disagree: the oldest (on) wins',
    ingresses: [
      ingress('newer', { created: '2024-02-01T00:00:00Z', annotations: off, rules: [rule80('b.example')] }),
      ingress('older', { created: '2024-01-01T00:00:00Z', annotations: on, rules: [rule80('a.example')] }),
    ],
    endpoints: { 'default-web-80': [{ address: '10.96.0.10', port: 80 }] },
  },
  {
    name: 'Ingresses sharing the backend disagree: the oldest (off) wins',
    ingresses: [
      ingress('newer', { created: '2024-02-01T00:00:00Z', annotations: on, rules: [rule80('b.example')] }),
      ingress('older', { created: '2024-01-01T00:00:00Z', annotations: off, rules: [rule80('a.example')] }),
    ],
    endpoints: { 'default-web-80': PODS },
  },
  {
    name: 'a canary Ingress with it: its own backend\'s one endpoint is the canary Service\'s ClusterIP',
    ingresses: [
      ingress('main', { rules: [rule80('a.example')] }),
      ingress('canary', {
        created: '2024-02-01T00:00:00Z', annotations: { ...on, [ann('canary')]: 'true', [ann('canary-weight')]: '10' },
        rules: [rule('a.example', path('/', svc('web-canary', 80)))],
      }),
    ],
    services: [web, withClusterIp(service('web-canary', [{ port: 80, name: 'http', targetPort: 8080 }]), '10.96.0.11')],
    endpoints: { 'default-web-80': PODS, 'default-web-canary-80': [{ address: '10.96.0.11', port: 80 }] },
  },
  {
    name: 'a headless Service keeps its Pods, with a warning to the Ingress that asked',
    ingresses: [ingress('a', { annotations: on, rules: [rule80('a.example')] }), ingress('b', { created: '2024-02-01T00:00:00Z', rules: [rule80('b.example')] })],
    services: [withClusterIp(web, 'None')],
    endpoints: { 'default-web-80': PODS },
    failures: ['ServiceUpstreamWithoutClusterIP spec.rules[0].http.paths[0].backend.service.name (warning)'],
  },
  {
    name: 'a Service without any ClusterIP keeps its Pods, with a warning',
    ingresses: [ingress('a', { annotations: on, rules: [rule80('a.example')] })],
    services: [withClusterIp(service('web', [{ port: 80, name: 'http', targetPort: 8080 }]), undefined)],
    endpoints: { 'default-web-80': PODS },
    failures: ['ServiceUpstreamWithoutClusterIP spec.rules[0].http.paths[0].backend.service.name (warning)'],
  },
  {
    name: 'a ClusterIP that is no IP address is never an endpoint',
    ingresses: [ingress('a', { annotations: on, rules: [rule80('a.example')] })],
    services: [withClusterIp(web, 'web.internal')],
    endpoints: { 'default-web-80': PODS },
    failures: ['ServiceUpstreamWithoutClusterIP spec.rules[0].http.paths[0].backend.service.name (warning)'],
  },
  {
    name: 'an ExternalName Service stays unsupported (503), ClusterIP or not',
    ingresses: [ingress('a', { annotations: on, rules: [rule80('a.example')] })],
    services: [withClusterIp(service('web', [{ port: 80 }], 'default', 'ExternalName'), '10.96.0.10')],
    endpoints: { 'default-web-80': [] },
    failures: ['UnsupportedServiceType spec.rules[0].http.paths[0].backend.service.name'],
  },
];

function build(row: Pick<Row, 'ingresses' | 'services' | 'slices' | 'configMap'>): ReturnType<typeof buildModel> {
  const opts: BuildOptions = options(row.configMap ? { configMap: 'ingress/resty-ingress' } : {});
  return buildModel(deepFreeze(snapshot({
    ingresses: row.ingresses,
    services: row.services ?? [web],
    endpointSlices: row.slices ?? [webSlice],
    configMaps: row.configMap ? [configMap(row.configMap)] : [],
  })), opts);
}

void describe('service-upstream: the backend\'s endpoints', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const { model, failures } = build(row);
      const endpoints = Object.fromEntries(model.backends.map((backend) => [backend.name, backend.endpoints]));
      assert.deepEqual(endpoints, row.endpoints);
      assert.deepEqual(failures.map((f) => `${f.reason} ${f.field}${f.warning === true ? ' (warning)' : ''}`), row.failures ?? []);
    });
  }
});

void describe('service-upstream: applied without a reload', () => {
  const toggles = [
    { name: 'turned on by the annotation', before: {}, after: on },
    { name: 'turned off by the annotation', before: on, after: {} },
    { name: 'turned off by an annotation false', before: on, after: off },
  ];
  void it('turned on in the ConfigMap: a dynamic push too (Model.settings keeps dynamic features at their defaults)', () => {
    const ingresses = [ingress('a', { rules: [rule80('a.example')] })];
    const running = build({ ingresses, configMap: {} }).model;
    const next = build({ ingresses, configMap: { 'service-upstream': 'true' } }).model;
    assert.deepEqual(next.backends[0]?.endpoints, [{ address: '10.96.0.10', port: 80 }]);
    assert.deepEqual(next.settings.serviceUpstream, { enabled: false });
    const decision = decideApply({ model: running, dataplaneEmpty: false }, next);
    assert.equal(decision.kind, 'dynamic');
  });
  for (const row of toggles) {
    void it(`${row.name}: a dynamic push of the new endpoints, nothing static changes`, () => {
      const running = build({ ingresses: [ingress('a', { annotations: row.before, rules: [rule80('a.example')] })] }).model;
      const next = build({ ingresses: [ingress('a', { annotations: row.after, rules: [rule80('a.example')] })] }).model;
      const decision = decideApply({ model: running, dataplaneEmpty: false }, next);
      assert.equal(decision.kind, 'dynamic');
      assert.deepEqual(decision.changed, ['default-web-80']);
      assert.deepEqual(decision.patch?.set.map((b) => b.endpoints), [next.backends[0]?.endpoints]);
    });
  }
});
