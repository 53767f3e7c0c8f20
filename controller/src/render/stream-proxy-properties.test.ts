// The stream proxy ConfigMap keys (model/features/stream-proxy.ts), any value
// the property generators make: each reaches stream {} and both SSL passthrough
// servers as one token of its grammar, or the default stays.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { renderConfig } from './render-config.ts';
import { goldenOptions, model } from './testdata/model-fixtures.ts';
import { readConfigMap } from '../model/features/testing.ts';
import { valuesOf } from '../model/testdata/field-values.ts';
import type { StreamService } from '../model/types.ts';

const UDP: StreamService = {
  port: 5353, protocol: 'UDP', namespace: 'default', service: 'dns', servicePort: 53, proxyProtocol: { decode: false, encode: false }, endpoints: [],
};

void describe('stream proxy: any ConfigMap value (property)', () => {
  void it('reaches stream {} and the passthrough servers as one token of its grammar, or keeps the default', () => {
    fc.assert(fc.property(valuesOf('proxy-stream-timeout'), valuesOf('proxy-stream-responses'), (timeout, responses) => {
      const { settings } = readConfigMap({ 'proxy-stream-timeout': timeout, 'proxy-stream-responses': responses });
      const { conf } = renderConfig({ ...model([], []), settings, streams: [UDP] }, { ...goldenOptions(), sslPassthrough: true });
      const timeouts = conf.split('\n').filter((line) => line.includes('proxy_timeout'));
      assert.equal(timeouts.length, 3, 'the UDP listener, the passthrough router and its hop');
      for (const line of timeouts) assert.match(line, /^\s+proxy_timeout "\d{1,9}(?:ms|s|m|h|d)?";$/u);
      assert.ok(timeouts.every((line) => line.includes(`"${settings.streamProxy.timeout}"`)));
      const answers = conf.split('\n').filter((line) => line.includes('proxy_responses'));
      assert.deepEqual(answers.map((line) => line.trim()), [`proxy_responses ${settings.streamProxy.udpResponses};`]);
      assert.ok(settings.streamProxy.udpResponses >= 0 && settings.streamProxy.udpResponses <= 2_147_483_647);
    }), { numRuns: 200 });
  });
});
