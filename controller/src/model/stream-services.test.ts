// Model.streams through the whole builder: the TCP/UDP ConfigMaps, the
// Service port lookup (number or name, per protocol), endpoints from the
// EndpointSlices, reserved ports, and one bad entry costing only itself.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ConfigMap, V1Service } from '@kubernetes/client-node';
import { buildModel } from './build.ts';
import { configMap, deepFreeze, options, service, slice, snapshot } from './testdata/fixtures.ts';
import type { BuildOptions, BuildResult, Snapshot } from './types.ts';

const TCP = 'ingress/tcp-services';
const UDP = 'ingress/udp-services';
const RESERVED = [{ port: 80, flag: '--http-port' }, { port: 443, flag: '--https-port' }, { port: 10254, flag: '--healthz-port' }];

function udpService(name: string, port: number, portName: string): V1Service {
  return { metadata: { namespace: 'default', name }, spec: { type: 'ClusterIP', ports: [{ name: portName, port, protocol: 'UDP' }] } };
}

function cluster(tcp: Record<string, string> | null, udp: Record<string, string> | null = {}): Snapshot {
  const maps: V1ConfigMap[] = [];
  if (tcp !== null) maps.push(configMap(tcp, 'tcp-services'));
  if (udp !== null) maps.push(configMap(udp, 'udp-services'));
  return deepFreeze(snapshot({
    services: [
      service('echo', [{ port: 8080, name: 'echo' }]),
      service('external', [{ port: 80 }], 'default', 'ExternalName'),
      udpService('dns', 53, 'dns'),
    ],
    endpointSlices: [
      slice('echo-1', 'echo', [{ name: 'echo', port: 9000 }], [{ addresses: ['10.0.0.2'] }, { addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.3'], ready: false }]),
      { ...slice('dns-1', 'dns', [], [{ addresses: ['10.0.1.1'] }]), ports: [{ name: 'dns', port: 5353, protocol: 'UDP' }] },
    ],
    configMaps: maps,
  }));
}

function build(snap: Snapshot, changes: Partial<BuildOptions> = {}): BuildResult {
  return buildModel(snap, options({ tcpServicesConfigMap: TCP, udpServicesConfigMap: UDP, reservedPorts: RESERVED, ...changes }));
}

const ECHO_ENDPOINTS = [{ address: '10.0.0.1', port: 9000 }, { address: '10.0.0.2', port: 9000 }];

void describe('stream services in the model', () => {
  void it('a TCP entry by port number and one by port name: ready endpoints, sorted by port', () => {
    const result = build(cluster({ '9001': 'default/echo:echo', '9000': 'default/echo:8080:PROXY:PROXY' }, {}));
    assert.deepEqual(result.failures, []);
    assert.deepEqual(result.model.streams, [
      { port: 9000, protocol: 'TCP', namespace: 'default', service: 'echo', servicePort: 8080, proxyProtocol: { decode: true, encode: true }, endpoints: ECHO_ENDPOINTS },
      { port: 9001, protocol: 'TCP', namespace: 'default', service: 'echo', servicePort: 'echo', proxyProtocol: { decode: false, encode: false }, endpoints: ECHO_ENDPOINTS },
    ]);
  });

  void it('UDP: the Service port of protocol UDP; TCP and UDP may share a port number; TCP sorts first', () => {
    const result = build(cluster({ '53': 'default/echo:8080' }, { '53': 'default/dns:53' }));
    assert.deepEqual(result.failures, []);
    assert.deepEqual(result.model.streams?.map((s) => [s.protocol, s.port, s.endpoints]), [
      ['TCP', 53, ECHO_ENDPOINTS],
      ['UDP', 53, [{ address: '10.0.1.1', port: 5353 }]],
    ]);
  });

  const refusals: ReadonlyArray<{ name: string; data: Record<string, string>; reason: string; message: RegExp }> = [
    { name: 'an invalid value', data: { '9000': 'default/echo' }, reason: 'InvalidStreamService', message: /<namespace>\/<service>:<port>/ },
    { name: 'an invalid key', data: { http: 'default/echo:8080' }, reason: 'InvalidStreamService', message: /port number/ },
    { name: 'the HTTP port', data: { '80': 'default/echo:8080' }, reason: 'ReservedStreamPort', message: /port 80 is the controller's own --http-port port/ },
    { name: 'the health/metrics port', data: { '10254': 'default/echo:8080' }, reason: 'ReservedStreamPort', message: /--healthz-port/ },
    { name: 'a missing Service', data: { '9000': 'default/nope:80' }, reason: 'ServiceNotFound', message: /Service default\/nope not found/ },
    { name: 'a missing port number', data: { '9000': 'default/echo:81' }, reason: 'ServicePortNotFound', message: /no TCP port "81"/ },
    { name: 'a UDP port asked for over TCP', data: { '9000': 'default/dns:53' }, reason: 'ServicePortNotFound', message: /no TCP port "53"/ },
    { name: 'an ExternalName Service', data: { '9000': 'default/external:80' }, reason: 'UnsupportedServiceType', message: /ExternalName/ },
  ];
  for (const row of refusals) {
    void it(`${row.name}: that entry is skipped with a failure on its ConfigMap, the good one is served`, () => {
      const result = build(cluster({ ...row.data, '9999': 'default/echo:8080' }));
      assert.deepEqual(result.model.streams?.map((s) => s.port), [9999]);
      assert.equal(result.failures.length, 1, JSON.stringify(result.failures));
      const [failure] = result.failures;
      assert.equal(failure?.reason, row.reason);
      assert.equal(failure?.configMap, TCP);
      assert.equal(failure?.ingress, null);
      assert.match(failure?.field ?? '', /^ConfigMap ingress\/tcp-services: data\[/);
      assert.match(failure?.message ?? '', row.message);
    });
  }

  void it('UDP with PROXY: served without it, with a warning', () => {
    const result = build(cluster(null, { '53': 'default/dns:dns:PROXY' }), { tcpServicesConfigMap: null });
    assert.deepEqual(result.model.streams?.map((s) => [s.port, s.proxyProtocol]), [[53, { decode: false, encode: false }]]);
    assert.deepEqual(result.failures.map((f) => [f.reason, f.warning, f.configMap]), [['StreamProxyProtocolIgnored', true, UDP]]);
  });

  void it('no ready endpoint keeps the listener with an empty set', () => {
    const snap = cluster({ '9000': 'default/echo:8080' });
    const result = build({ ...snap, endpointSlices: [] });
    assert.deepEqual(result.model.streams?.map((s) => [s.port, s.endpoints]), [[9000, []]]);
    assert.deepEqual(result.failures, []);
  });

  void it('a named ConfigMap that does not exist is a failure; no flag means no streams field at all', () => {
    const missing = build(cluster(null, null), { udpServicesConfigMap: null });
    assert.equal(missing.model.streams, undefined);
    assert.deepEqual(missing.failures.map((f) => [f.reason, f.field]), [['ConfigMapNotFound', '--tcp-services-configmap']]);
    const none = buildModel(cluster({ '9000': 'default/echo:8080' }), options());
    assert.equal(none.model.streams, undefined);
    assert.equal('streams' in none.model, false);
    assert.deepEqual(none.failures, []);
  });
});
