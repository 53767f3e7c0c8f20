// The ConfigMap keys of stream-proxy.ts (ingress-nginx v1.15.1: config.go's defaults,
// nginx.tmpl's stream servers). No annotation sets them. Each row: what a value gives, or
// that it is refused (the default stays, with a failure). Rendering and traffic:
// render/stream-render.test.ts, render/ssl-passthrough-render.test.ts and the property
// test render/stream-proxy-properties.test.ts. The
// proxy-stream-next-upstream* keys stay reported as not supported (names.test.ts).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StreamProxySettings } from '../types.ts';
import { streamProxyFeature } from './stream-proxy.ts';
import { readConfigMap, testDefaults, testValueRows, type ValueRow } from './testing.ts';

const rows: ValueRow<StreamProxySettings>[] = [
  { name: 'timeout in seconds', key: 'proxy-stream-timeout', value: '30s', want: { timeout: '30s' } },
  { name: 'timeout bare seconds', key: 'proxy-stream-timeout', value: '45', want: { timeout: '45' } },
  { name: 'timeout in hours', key: 'proxy-stream-timeout', value: '1h', want: { timeout: '1h' } },
  { name: 'timeout in milliseconds', key: 'proxy-stream-timeout', value: '500ms', want: { timeout: '500ms' } },
  { name: 'timeout a week', key: 'proxy-stream-timeout', value: '7d', want: { timeout: '7d' } },
  { name: 'timeout past a week', key: 'proxy-stream-timeout', value: '8d', want: 'unsupported' },
  { name: 'timeout 0', key: 'proxy-stream-timeout', value: '0s', want: 'unsupported' },
  { name: 'timeout two units', key: 'proxy-stream-timeout', value: '1h30m', want: 'fail' },
  { name: 'timeout negative', key: 'proxy-stream-timeout', value: '-1s', want: 'fail' },
  { name: 'timeout with a directive', key: 'proxy-stream-timeout', value: '600s; proxy_pass 127.0.0.1:1', want: 'fail' },
  { name: 'timeout a variable', key: 'proxy-stream-timeout', value: '$x', want: 'fail' },
  { name: 'timeout a Go duration', key: 'proxy-stream-timeout', value: '10m0s', want: 'fail' },
  { name: 'responses 0', key: 'proxy-stream-responses', value: '0', want: { udpResponses: 0 } },
  { name: 'responses 3', key: 'proxy-stream-responses', value: '3', want: { udpResponses: 3 } },
  { name: 'responses int32 max', key: 'proxy-stream-responses', value: '2147483647', want: { udpResponses: 2_147_483_647 } },
  { name: 'responses past int32', key: 'proxy-stream-responses', value: '2147483648', want: 'unsupported' },
  { name: 'responses negative', key: 'proxy-stream-responses', value: '-1', want: 'unsupported' },
  { name: 'responses a word', key: 'proxy-stream-responses', value: 'many', want: 'fail' },
  { name: 'responses with a directive', key: 'proxy-stream-responses', value: '1; proxy_timeout 1s', want: 'fail' },
];

void describe('stream proxy: values', () => testValueRows(streamProxyFeature, rows));
void describe('stream proxy: defaults (ingress-nginx\'s)', () => testDefaults(streamProxyFeature, { timeout: '600s', udpResponses: 1 }));

void describe('proxy-stream-next-upstream*: nothing to retry with njs\'s single peer', () => {
  for (const key of ['proxy-stream-next-upstream', 'proxy-stream-next-upstream-timeout', 'proxy-stream-next-upstream-tries']) {
    void it(`${key} is reported with why, and changes nothing`, () => {
      const read = readConfigMap({ [key]: '5' });
      const failure = read.failures.find((item) => item.field.endsWith(`data[${key}]`));
      assert.equal(failure?.reason, 'UnsupportedConfigMapKey');
      assert.match(failure?.message ?? '', /the one peer njs picks/u);
      assert.deepEqual(read.settings.streamProxy, streamProxyFeature.defaults);
    });
  }
});
