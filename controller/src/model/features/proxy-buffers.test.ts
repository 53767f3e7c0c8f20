// proxy-buffering … proxy-http-version and client-body-buffer-size, as annotations and as the
// ConfigMap keys of the same names (ingress-nginx v1.15.1: annotations/proxy/main.go and its
// test, annotations/clientbodybuffersize, parser/validators.go SizeRegex and ValidateOptions,
// defaults/main.go). The proxy parser ignores an invalid value (GetDefaultBackend's value
// applies); client-body-buffer-size's parser returns the validation error, which refuses the
// Ingress. A value ingress-nginx takes that NGINX refuses (a `b` unit, a g buffer, 1 buffer)
// is unsupported, and so is a combination NGINX's merge refuses (rows "combination").

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { ProxyBuffersConfig } from '../types.ts';
import { proxyBuffersFeature } from './proxy-buffers.ts';
import { annotationField, configField, described, parseAnnotations, readConfigMap, testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow } from './testing.ts';
import { DEFAULT_SETTINGS } from './parse.ts';

const values: ValueRow<ProxyBuffersConfig>[] = [
  { name: 'proxy-buffering on', key: 'proxy-buffering', value: 'on', want: { buffering: 'on' } },
  { name: 'proxy-buffering off', key: 'proxy-buffering', value: 'off', want: { buffering: 'off' } },
  { name: 'proxy-buffering trimmed (ValidateOptions trims)', key: 'proxy-buffering', value: ' on ', want: { buffering: 'on' } },
  { name: 'proxy-buffering ON (case-sensitive)', key: 'proxy-buffering', value: 'ON', want: 'ignore' },
  { name: 'proxy-buffering true', key: 'proxy-buffering', value: 'true', want: 'ignore' },
  { name: 'proxy-buffering with a directive', key: 'proxy-buffering', value: 'on; return 200', want: 'ignore' },
  { name: 'proxy-request-buffering off', key: 'proxy-request-buffering', value: 'off', want: { requestBuffering: 'off' } },
  { name: 'proxy-request-buffering yes', key: 'proxy-request-buffering', value: 'yes', want: 'ignore' },
  { name: 'proxy-http-version 1.0', key: 'proxy-http-version', value: '1.0', want: { httpVersion: '1.0' } },
  { name: 'proxy-http-version 1.1', key: 'proxy-http-version', value: '1.1', want: { httpVersion: '1.1' } },
  { name: 'proxy-http-version 2', key: 'proxy-http-version', value: '2', want: 'ignore' },
  { name: 'proxy-http-version 1.1 with a newline', key: 'proxy-http-version', value: '1.1\nproxy_pass x', want: 'ignore' },
  { name: 'proxy-buffer-size 8k (ingress-nginx\'s e2e)', key: 'proxy-buffer-size', value: '8k', want: { bufferSize: '8k' } },
  { name: 'proxy-buffer-size 16K', key: 'proxy-buffer-size', value: '16K', want: { bufferSize: '16K' } },
  { name: 'proxy-buffer-size in bytes', key: 'proxy-buffer-size', value: '8192', want: { bufferSize: '8192' } },
  { name: 'proxy-buffer-size 1m', key: 'proxy-buffer-size', value: '1m', want: { bufferSize: '1m' } },
  { name: 'proxy-buffer-size 16m (the most)', key: 'proxy-buffer-size', value: '16m', want: { bufferSize: '16m' } },
  { name: 'proxy-buffer-size with spaces around it', key: 'proxy-buffer-size', value: ' 8k ', want: { bufferSize: '8k' } },
  { name: 'proxy-buffer-size 17m (allocated per request)', key: 'proxy-buffer-size', value: '17m', want: 'unsupported' },
  { name: 'proxy-buffer-size 1g (NGINX\'s size has no g)', key: 'proxy-buffer-size', value: '1g', want: 'unsupported' },
  { name: 'proxy-buffer-size 8b', key: 'proxy-buffer-size', value: '8b', want: 'unsupported' },
  { name: 'proxy-buffer-size 0', key: 'proxy-buffer-size', value: '0', want: 'unsupported' },
  { name: 'proxy-buffer-size 8 k (printed with its space)', key: 'proxy-buffer-size', value: '8 k', want: 'unsupported' },
  { name: 'proxy-buffer-size 8kb', key: 'proxy-buffer-size', value: '8kb', want: 'ignore' },
  { name: 'proxy-buffer-size a word', key: 'proxy-buffer-size', value: 'large', want: 'ignore' },
  { name: 'proxy-buffer-size with ;', key: 'proxy-buffer-size', value: '8k;', want: 'ignore' },
  { name: 'proxy-buffers-number 8', key: 'proxy-buffers-number', value: '8', want: { buffersNumber: 8 } },
  { name: 'proxy-buffers-number 256 (the most)', key: 'proxy-buffers-number', value: '256', want: { buffersNumber: 256 } },
  { name: 'proxy-buffers-number 257', key: 'proxy-buffers-number', value: '257', want: 'unsupported' },
  { name: 'proxy-buffers-number 1 (NGINX needs 2)', key: 'proxy-buffers-number', value: '1', want: 'unsupported' },
  { name: 'proxy-buffers-number 0', key: 'proxy-buffers-number', value: '0', want: 'unsupported' },
  { name: 'proxy-buffers-number -4', key: 'proxy-buffers-number', value: '-4', want: 'unsupported' },
  { name: 'proxy-buffers-number four', key: 'proxy-buffers-number', value: 'four', want: 'ignore' },
  { name: 'proxy-buffers-number 4.5', key: 'proxy-buffers-number', value: '4.5', want: 'ignore' },
  // NGINX: busy ≤ (number - 1) × size; twice a buffer by default.
  { name: 'proxy-buffers-number 3 (busy 2 buffers fits)', key: 'proxy-buffers-number', value: '3', want: { buffersNumber: 3 } },
  { name: 'proxy-busy-buffers-size 8k', key: 'proxy-busy-buffers-size', value: '8k', want: { busyBuffersSize: '8k' } },
  { name: 'proxy-busy-buffers-size 12k (3 of the 4 buffers: the most)', key: 'proxy-busy-buffers-size', value: '12k', want: { busyBuffersSize: '12k' } },
  { name: 'proxy-busy-buffers-size 4k (one buffer: the least)', key: 'proxy-busy-buffers-size', value: '4k', want: { busyBuffersSize: '4k' } },
  { name: 'proxy-busy-buffers-size a word', key: 'proxy-busy-buffers-size', value: 'half', want: 'ignore' },
  { name: 'proxy-max-temp-file-size 0 (no temp files)', key: 'proxy-max-temp-file-size', value: '0', want: { maxTempFileSize: '0' } },
  { name: 'proxy-max-temp-file-size 2048m', key: 'proxy-max-temp-file-size', value: '2048m', want: { maxTempFileSize: '2048m' } },
  { name: 'proxy-max-temp-file-size 2g (NGINX\'s size has no g)', key: 'proxy-max-temp-file-size', value: '2g', want: 'unsupported' },
  { name: 'proxy-max-temp-file-size 4k (one buffer)', key: 'proxy-max-temp-file-size', value: '4k', want: { maxTempFileSize: '4k' } },
  { name: 'proxy-max-temp-file-size 1048577m (past 1 TiB)', key: 'proxy-max-temp-file-size', value: '1048577m', want: 'unsupported' },
  { name: 'proxy-max-temp-file-size 1gb', key: 'proxy-max-temp-file-size', value: '1gb', want: 'ignore' },
  { name: 'client-body-buffer-size 1m', key: 'client-body-buffer-size', value: '1m', want: { bodyBufferSize: '1m' } },
  { name: 'client-body-buffer-size 64m (the most)', key: 'client-body-buffer-size', value: '64m', want: { bodyBufferSize: '64m' } },
  { name: 'client-body-buffer-size 65m', key: 'client-body-buffer-size', value: '65m', want: 'unsupported' },
  { name: 'client-body-buffer-size 1g', key: 'client-body-buffer-size', value: '1g', want: 'unsupported' },
  // clientbodybuffersize's Parse returns the validation error: the Ingress is refused.
  { name: 'client-body-buffer-size a word refuses the Ingress', key: 'client-body-buffer-size', value: 'big', want: 'fail' },
  { name: 'client-body-buffer-size with a directive refuses the Ingress', key: 'client-body-buffer-size', value: '8k; allow all', want: 'fail' },
];

const overrides: OverrideRow<ProxyBuffersConfig>[] = [
  {
    name: 'no annotation: the ConfigMap\'s buffering applies', configMap: { 'proxy-buffering': 'on', 'proxy-buffer-size': '16k' }, annotations: {},
    global: { buffering: 'on', bufferSize: '16k' }, want: null,
  },
  {
    name: 'an annotation beats the ConfigMap, the other keys stay global', configMap: { 'proxy-buffering': 'on', 'proxy-buffer-size': '16k' },
    annotations: { 'proxy-buffering': 'off' }, global: { buffering: 'on', bufferSize: '16k' }, want: { buffering: 'off' },
  },
  {
    name: 'the combination is checked against the ConfigMap\'s values: 3 buffers of the global 16k with a 32k busy size',
    configMap: { 'proxy-buffer-size': '16k' }, annotations: { 'proxy-buffers-number': '3', 'proxy-busy-buffers-size': '32k' },
    global: { bufferSize: '16k' }, want: { buffersNumber: 3, busyBuffersSize: '32k' },
  },
  {
    name: 'an invalid annotation is ignored: the ConfigMap\'s value applies', configMap: { 'proxy-http-version': '1.0' },
    annotations: { 'proxy-http-version': '3' }, global: { httpVersion: '1.0' }, want: {}, ignored: ['proxy-http-version'],
  },
];

void describe('proxy buffers: values', () => testValueRows(proxyBuffersFeature, values));
void describe('proxy buffers: the ConfigMap\'s global value, an Ingress\'s override', () => testOverrideRows(proxyBuffersFeature, overrides));
void describe('proxy buffers: defaults (ingress-nginx\'s)', () => testDefaults(proxyBuffersFeature, {
  buffering: 'off', bufferSize: '4k', buffersNumber: 4, busyBuffersSize: null, maxTempFileSize: '1024m', requestBuffering: 'on', httpVersion: '1.1', bodyBufferSize: '8k',
}));

/** Combinations NGINX's merge refuses (ngx_http_proxy_merge_loc_conf): each value alone is fine. */
const combinations: { name: string; values: Record<string, string>; says: RegExp }[] = [
  { name: 'proxy-buffers-number 2 with NGINX\'s busy size (two buffers)', values: { 'proxy-buffers-number': '2' }, says: /at most proxy-buffers-number - 1 buffers/u },
  { name: 'proxy-busy-buffers-size 16k: all 4 buffers of 4k', values: { 'proxy-busy-buffers-size': '16k' }, says: /at most proxy-buffers-number - 1 buffers/u },
  { name: 'proxy-busy-buffers-size 2k: below one buffer', values: { 'proxy-busy-buffers-size': '2k' }, says: /below proxy-buffer-size/u },
  { name: 'proxy-buffer-size 64k with a busy size of 12k', values: { 'proxy-buffer-size': '64k', 'proxy-busy-buffers-size': '12k' }, says: /below proxy-buffer-size/u },
  { name: 'proxy-max-temp-file-size 1k: below a buffer', values: { 'proxy-max-temp-file-size': '1k' }, says: /must be 0 or at least proxy-buffer-size/u },
  { name: 'proxy-buffer-size 16k with the default 4 buffers and a busy size of 64k', values: { 'proxy-buffer-size': '16k', 'proxy-busy-buffers-size': '64k' }, says: /at most proxy-buffers-number - 1/u },
];

void describe('proxy buffers: combinations NGINX refuses', () => {
  for (const row of combinations) {
    void it(`${row.name}: the Ingress is refused, naming the rule`, () => {
      const parsed = parseAnnotations(row.values);
      assert.equal(parsed.ok, false);
      if (parsed.ok) return;
      assert.deepEqual(described(parsed.failures), [`InvalidAnnotation ${annotationField(Object.keys(row.values).sort()[0]!)}`]);
      assert.match(parsed.failures[0]!.message, row.says);
      assert.match(parsed.failures[0]!.message, /NGINX refuses it; the Ingress is skipped$/u);
    });
    void it(`${row.name}: in the ConfigMap, the defaults stay`, () => {
      const read = readConfigMap(row.values);
      assert.equal(read.settings.proxyBuffers, DEFAULT_SETTINGS.proxyBuffers);
      assert.deepEqual(described(read.failures), [`InvalidConfigMapValue ${configField(Object.keys(row.values).sort()[0]!)}`]);
      assert.match(read.failures[0]!.message, row.says);
    });
  }
});
