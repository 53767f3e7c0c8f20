// backend-protocol (ingress-nginx v1.15.1: internal/ingress/annotations/backendprotocol
// and its test): an annotation only, no ConfigMap key. ingress-nginx matches its six
// protocols case-insensitively after trimming spaces (its test: "  HTTPS  " is HTTPS)
// and proxies an unknown value as HTTP with a warning (its test: "INVALID" is HTTP):
// the same here. How each is proxied: render/backend-protocol-render.test.ts.

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
  { name: 'GRPC', key, value: 'GRPC', want: { protocol: 'GRPC' } },
  { name: 'grpcs (case-insensitive)', key, value: 'grpcs', want: { protocol: 'GRPCS' } },
  { name: 'AUTO_HTTP', key, value: 'AUTO_HTTP', want: { protocol: 'AUTO_HTTP' } },
  { name: 'auto_http (case-insensitive)', key, value: 'auto_http', want: { protocol: 'AUTO_HTTP' } },
  { name: 'FCGI', key, value: 'FCGI', want: { protocol: 'FCGI' } },
  { name: 'fcgi (case-insensitive)', key, value: 'fcgi', want: { protocol: 'FCGI' } },
  { name: 'GRPC with spaces around it', key, value: ' GRPC ', want: { protocol: 'GRPC' } },
  { name: 'AUTO-HTTP (a hyphen is another word)', key, value: 'AUTO-HTTP', want: 'ignore' },
  { name: 'GRPC_WEB (not one of the six)', key, value: 'GRPC_WEB', want: 'ignore' },
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
  { name: 'GRPC for one Ingress', configMap: {}, annotations: { [key]: 'grpc' }, global: {}, want: { protocol: 'GRPC' } },
];

void describe('backend-protocol: values', () => testValueRows(backendProtocolFeature, values));
void describe('backend-protocol: per Ingress', () => {
  testOverrideRows(backendProtocolFeature, overrides);
  void it('an unknown protocol is named in the warning with the six it could be', () => {
    const parsed = parseAnnotations({ [key]: 'ajp' });
    assert.equal(parsed.ok, true);
    assert.match(parsed.ok ? parsed.warnings[0]?.message ?? '' : '',
      /^invalid value "ajp" for nginx\.ingress\.kubernetes\.io\/backend-protocol: expected one of HTTP, HTTPS, AUTO_HTTP, GRPC, GRPCS, FCGI; its default applies/u);
  });
});
void describe('backend-protocol: defaults', () => testDefaults(backendProtocolFeature, { protocol: 'HTTP' }));
