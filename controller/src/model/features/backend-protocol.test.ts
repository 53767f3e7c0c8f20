// backend-protocol (ingress-nginx v1.15.1: internal/ingress/annotations/backendprotocol
// and its test): an annotation only, no ConfigMap key. ingress-nginx matches its
// protocols case-insensitively after trimming spaces (its test: "  HTTPS  " is HTTPS)
// and proxies an unknown value as HTTP with a warning (its test: "INVALID" is HTTP):
// the same here. The protocols ingress-nginx has but this controller does not proxy
// yet are unsupported: the Ingress is not served (documented: a gRPC backend spoken
// to over HTTP/1 would fail every request).

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { BackendProtocolConfig } from '../types.ts';
import { backendProtocolFeature } from './backend-protocol.ts';
import { parseAnnotations, testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow } from './testing.ts';

const key = 'backend-protocol';

const values: ValueRow<BackendProtocolConfig>[] = [
  { name: 'HTTP', key, value: 'HTTP', want: { protocol: 'HTTP' } },
  { name: 'HTTPS', key, value: 'HTTPS', want: { protocol: 'HTTPS' } },
  { name: 'https (case-insensitive)', key, value: 'https', want: { protocol: 'HTTPS' } },
  { name: 'Http (case-insensitive)', key, value: 'Http', want: { protocol: 'HTTP' } },
  { name: 'spaces around it are trimmed (ingress-nginx\'s TestParseAnnotations)', key, value: '  HTTPS  ', want: { protocol: 'HTTPS' } },
  { name: 'a trailing newline is trimmed too (strings.TrimSpace)', key, value: 'HTTPS\n', want: { protocol: 'HTTPS' } },
  { name: 'GRPC: not proxied yet', key, value: 'GRPC', want: 'unsupported' },
  { name: 'grpcs: not proxied yet', key, value: 'grpcs', want: 'unsupported' },
  { name: 'AUTO_HTTP: not proxied yet', key, value: 'AUTO_HTTP', want: 'unsupported' },
  { name: 'auto_http: not proxied yet', key, value: 'auto_http', want: 'unsupported' },
  { name: 'FCGI: not proxied yet', key, value: 'FCGI', want: 'unsupported' },
  { name: 'GRPC with spaces around it', key, value: ' GRPC ', want: 'unsupported' },
  { name: 'unknown protocol', key, value: 'ftp', want: 'ignore' },
  { name: 'ingress-nginx\'s own invalid row (TestParseInvalidAnnotations: HTTP)', key, value: 'INVALID', want: 'ignore' },
  { name: 'HTTP2', key, value: 'HTTP2', want: 'ignore' },
  { name: 'spaces inside the word', key, value: 'HTT PS', want: 'ignore' },
  { name: 'empty', key, value: '', want: 'ignore' },
  { name: 'with a directive', key, value: 'HTTP; return 200', want: 'ignore' },
];

// No ConfigMap key: the global config is always the default, an Ingress sets its own.
const overrides: OverrideRow<BackendProtocolConfig>[] = [
  { name: 'no annotation: the Ingress carries none (HTTP)', configMap: {}, annotations: {}, global: {}, want: null },
  { name: 'HTTPS for one Ingress', configMap: {}, annotations: { [key]: 'HTTPS' }, global: {}, want: { protocol: 'HTTPS' } },
  { name: 'an unknown protocol: HTTP, with a warning', configMap: {}, annotations: { [key]: 'SPDY' }, global: {}, want: {}, ignored: [key] },
];

void describe('backend-protocol: values', () => testValueRows(backendProtocolFeature, values));
void describe('backend-protocol: per Ingress', () => {
  testOverrideRows(backendProtocolFeature, overrides);
  void it('an unsupported protocol is named as such, not as unknown', () => {
    const parsed = parseAnnotations({ [key]: 'grpc' });
    assert.equal(parsed.ok, false);
    assert.match(parsed.ok ? '' : parsed.failures[0]?.message ?? '',
      /^unsupported value "grpc" for nginx\.ingress\.kubernetes\.io\/backend-protocol: backend protocol GRPC is not supported yet/u);
  });
});
void describe('backend-protocol: defaults', () => testDefaults(backendProtocolFeature, { protocol: 'HTTP' }));
