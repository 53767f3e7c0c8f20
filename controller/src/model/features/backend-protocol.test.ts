// backend-protocol (ingress-nginx v1.15.1: internal/ingress/annotations/backendprotocol):
// an annotation only, no ConfigMap key. ingress-nginx matches its protocols
// case-insensitively after trimming spaces (its test: "  HTTPS  " is HTTPS) and
// proxies an unknown value as HTTP with a warning; here an unknown value fails the
// Ingress, and so do the protocols ingress-nginx has but this controller does not
// proxy yet (documented: a gRPC backend spoken to over HTTP/1 fails every request).

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
  { name: 'spaces around it are trimmed', key, value: '  HTTPS  ', want: { protocol: 'HTTPS' } },
  { name: 'GRPC: not proxied yet', key, value: 'GRPC', want: 'fail' },
  { name: 'grpcs: not proxied yet', key, value: 'grpcs', want: 'fail' },
  { name: 'AUTO_HTTP: not proxied yet', key, value: 'AUTO_HTTP', want: 'fail' },
  { name: 'FCGI: not proxied yet', key, value: 'FCGI', want: 'fail' },
  { name: 'unknown protocol', key, value: 'ftp', want: 'fail' },
  { name: 'ingress-nginx\'s own invalid row', key, value: 'INVALID', want: 'fail' },
  { name: 'HTTP2', key, value: 'HTTP2', want: 'fail' },
  { name: 'empty', key, value: '', want: 'fail' },
  { name: 'with a directive', key, value: 'HTTP; return 200', want: 'fail' },
];

// No ConfigMap key: the global config is always the default, an Ingress sets its own.
const overrides: OverrideRow<BackendProtocolConfig>[] = [
  { name: 'no annotation: the Ingress carries none (HTTP)', configMap: {}, annotations: {}, global: {}, want: null },
  { name: 'HTTPS for one Ingress', configMap: {}, annotations: { [key]: 'HTTPS' }, global: {}, want: { protocol: 'HTTPS' } },
];

void describe('backend-protocol: values', () => testValueRows(backendProtocolFeature, values));
void describe('backend-protocol: per Ingress', () => {
  testOverrideRows(backendProtocolFeature, overrides);
  void it('a refusal names the protocol as unsupported rather than unknown', () => {
    const parsed = parseAnnotations({ [key]: 'grpc' });
    assert.match(parsed.ok ? '' : parsed.failures[0]?.message ?? '', /backend protocol GRPC is unsupported/u);
  });
});
void describe('backend-protocol: defaults', () => testDefaults(backendProtocolFeature, { protocol: 'HTTP' }));
