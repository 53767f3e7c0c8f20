import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { buildModel } from '../model/build.ts';
import { configMap, options, service, snapshot } from '../model/testdata/fixtures.ts';
import { createStreamMetrics } from './stream-metrics.ts';

void describe('stream metrics', () => {
  void it('counts served listeners per protocol and refused entries per ConfigMap and reason, reset on every build', async () => {
    const registry = new Registry();
    const metrics = createStreamMetrics(registry);
    const cluster = (data: Record<string, string>): ReturnType<typeof snapshot> => snapshot({
      services: [service('echo', [{ port: 80 }])],
      configMaps: [configMap(data, 'tcp')],
    });
    const buildOptions = options({ tcpServicesConfigMap: 'ingress/tcp', reservedPorts: [{ port: 80, flag: '--http-port' }] });
    metrics.update(buildModel(cluster({ '9000': 'default/echo:80', '9001': 'default/echo:80', '80': 'default/echo:80', '9002': 'nope' }), buildOptions));
    const text = await registry.metrics();
    assert.match(text, /^resty_ingress_stream_services\{protocol="TCP"\} 2$/mu);
    assert.match(text, /^resty_ingress_stream_services\{protocol="UDP"\} 0$/mu);
    assert.match(text, /^resty_ingress_stream_entries_refused\{configmap="ingress\/tcp",reason="ReservedStreamPort"\} 1$/mu);
    assert.match(text, /^resty_ingress_stream_entries_refused\{configmap="ingress\/tcp",reason="InvalidStreamService"\} 1$/mu);

    metrics.update(buildModel(cluster({ '9000': 'default/echo:80' }), buildOptions));
    const after = await registry.metrics();
    assert.match(after, /^resty_ingress_stream_services\{protocol="TCP"\} 1$/mu);
    assert.doesNotMatch(after, /^resty_ingress_stream_entries_refused\{/mu);
  });
});
