// The TLS listener's ConfigMap keys (ingress-nginx v1.15.1: docs configmap.md,
// internal/ingress/controller/template/configmap.go): ssl-protocols, ssl-ciphers,
// hsts*, http-redirect-code. No annotation sets them (ingress-nginx's ssl-ciphers
// annotation is a per-server setting this controller does not support). A refused
// value keeps the default with a failure, as ingress-nginx keeps its default with a
// warning (http-redirect-code: strconv.Atoi, then 301, 302, 307 or 308).

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { HstsSettings, TlsSettings } from '../types.ts';
import { tlsSettingsFeature } from './tls-settings.ts';
import { annotationField, described, parseAnnotations, readConfigMap, testDefaults, testValueRows, type ValueRow } from './testing.ts';

const INGRESS_NGINX_CIPHERS = 'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:'
  + 'ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:'
  + 'DHE-RSA-AES256-GCM-SHA384:DHE-RSA-AES128-GCM-SHA256';
const HSTS: HstsSettings = { enabled: true, maxAge: 31_536_000, includeSubdomains: true, preload: false };
const hsts = (changes: Partial<HstsSettings>): Partial<TlsSettings> => ({ hsts: { ...HSTS, ...changes } });

const values: ValueRow<TlsSettings>[] = [
  { name: 'ssl-protocols TLSv1.3', key: 'ssl-protocols', value: 'TLSv1.3', want: { protocols: ['TLSv1.3'] } },
  { name: 'ssl-protocols old ones too', key: 'ssl-protocols', value: 'TLSv1 TLSv1.1 TLSv1.2', want: { protocols: ['TLSv1', 'TLSv1.1', 'TLSv1.2'] } },
  { name: 'ssl-protocols spaces and repeats', key: 'ssl-protocols', value: ' TLSv1.3   TLSv1.2 TLSv1.3 ', want: { protocols: ['TLSv1.3', 'TLSv1.2'] } },
  { name: 'ssl-protocols with SSLv3', key: 'ssl-protocols', value: 'SSLv3 TLSv1.2', want: 'fail' },
  { name: 'ssl-protocols lowercase', key: 'ssl-protocols', value: 'tlsv1.2', want: 'fail' },
  { name: 'ssl-protocols with ;', key: 'ssl-protocols', value: 'TLSv1.2;', want: 'fail' },
  { name: 'ssl-protocols empty', key: 'ssl-protocols', value: '', want: 'fail' },
  { name: 'ssl-ciphers', key: 'ssl-ciphers', value: 'ECDHE-RSA-AES128-GCM-SHA256:!aNULL', want: { ciphers: 'ECDHE-RSA-AES128-GCM-SHA256:!aNULL' } },
  { name: 'ssl-ciphers with OpenSSL operators', key: 'ssl-ciphers', value: 'HIGH:+AES:@STRENGTH:-MD5', want: { ciphers: 'HIGH:+AES:@STRENGTH:-MD5' } },
  { name: 'ssl-ciphers with a semicolon', key: 'ssl-ciphers', value: 'HIGH; return 200', want: 'fail' },
  { name: 'ssl-ciphers with a space', key: 'ssl-ciphers', value: 'HIGH !aNULL', want: 'fail' },
  { name: 'ssl-ciphers quoted', key: 'ssl-ciphers', value: '\'HIGH\'', want: 'fail' },
  { name: 'ssl-ciphers of 2001 characters', key: 'ssl-ciphers', value: 'A'.repeat(2001), want: 'fail' },
  { name: 'ssl-ciphers empty', key: 'ssl-ciphers', value: '', want: 'fail' },
  // OpenSSL refuses a list that matches no cipher, and nginx -t with it (render/properties.test.ts found "!MD5").
  { name: 'ssl-ciphers that only remove (!MD5)', key: 'ssl-ciphers', value: '!MD5', want: 'fail' },
  { name: 'ssl-ciphers that only remove (!aNULL)', key: 'ssl-ciphers', value: '!aNULL', want: 'fail' },
  { name: 'ssl-ciphers naming no cipher', key: 'ssl-ciphers', value: 'NOPE:ALSO-NOT', want: 'fail' },
  { name: 'ssl-ciphers of ciphers this OpenSSL does not have', key: 'ssl-ciphers', value: 'RC4:DES-CBC3-SHA', want: 'fail' },
  { name: 'ssl-ciphers of TLS 1.3 suites only (not for ssl_ciphers)', key: 'ssl-ciphers', value: 'TLS_AES_128_GCM_SHA256', want: 'fail' },
  { name: 'ssl-ciphers with a TLS 1.3 suite among others', key: 'ssl-ciphers', value: 'HIGH:TLS_AES_128_GCM_SHA256', want: { ciphers: 'HIGH:TLS_AES_128_GCM_SHA256' } },
  // DEFAULT counts only as the first word: nginx -t refused this list (found by render/properties.test.ts).
  { name: 'ssl-ciphers with DEFAULT after a TLS 1.3 suite', key: 'ssl-ciphers', value: 'TLS_AES_128_GCM_SHA256:DEFAULT:NOPE', want: 'fail' },
  { name: 'ssl-ciphers with DEFAULT first', key: 'ssl-ciphers', value: 'DEFAULT:!aNULL', want: { ciphers: 'DEFAULT:!aNULL' } },
  { name: 'ssl-ciphers with one unknown name among known ones', key: 'ssl-ciphers', value: 'NOPE:ECDHE-RSA-AES128-GCM-SHA256', want: { ciphers: 'NOPE:ECDHE-RSA-AES128-GCM-SHA256' } },
  { name: 'hsts false', key: 'hsts', value: 'false', want: hsts({ enabled: false }) },
  { name: 'hsts yes', key: 'hsts', value: 'yes', want: 'fail' },
  { name: 'hsts-max-age 600', key: 'hsts-max-age', value: '600', want: hsts({ maxAge: 600 }) },
  { name: 'hsts-max-age 0', key: 'hsts-max-age', value: '0', want: hsts({ maxAge: 0 }) },
  { name: 'hsts-max-age two years (the most)', key: 'hsts-max-age', value: '63072000', want: hsts({ maxAge: 63_072_000 }) },
  { name: 'hsts-max-age past two years', key: 'hsts-max-age', value: '63072001', want: 'fail' },
  { name: 'hsts-max-age not a number', key: 'hsts-max-age', value: '1y', want: 'fail' },
  { name: 'hsts-max-age negative', key: 'hsts-max-age', value: '-1', want: 'fail' },
  { name: 'hsts-include-subdomains false', key: 'hsts-include-subdomains', value: 'false', want: hsts({ includeSubdomains: false }) },
  { name: 'hsts-preload true', key: 'hsts-preload', value: 'true', want: hsts({ preload: true }) },
  { name: 'hsts-preload maybe', key: 'hsts-preload', value: 'maybe', want: 'fail' },
  { name: 'http-redirect-code 301', key: 'http-redirect-code', value: '301', want: { redirectCode: 301 } },
  { name: 'http-redirect-code 302', key: 'http-redirect-code', value: '302', want: { redirectCode: 302 } },
  { name: 'http-redirect-code 307', key: 'http-redirect-code', value: '307', want: { redirectCode: 307 } },
  { name: 'http-redirect-code 308', key: 'http-redirect-code', value: '308', want: { redirectCode: 308 } },
  { name: 'http-redirect-code 200', key: 'http-redirect-code', value: '200', want: 'fail' },
  { name: 'http-redirect-code 303', key: 'http-redirect-code', value: '303', want: 'fail' },
  { name: 'http-redirect-code in hexadecimal (not for Atoi)', key: 'http-redirect-code', value: '0x12D', want: 'fail' },
  { name: 'http-redirect-code as a decimal (not for Atoi)', key: 'http-redirect-code', value: '301.0', want: 'fail' },
  { name: 'http-redirect-code with spaces (not for Atoi)', key: 'http-redirect-code', value: ' 301', want: 'fail' },
  { name: 'http-redirect-code empty', key: 'http-redirect-code', value: '', want: 'fail' },
];

void describe('tls: values', () => testValueRows(tlsSettingsFeature, values));

void describe('tls: the ConfigMap only', () => {
  void it('every hsts key at once', () => {
    const read = readConfigMap({ 'hsts': 'false', 'hsts-max-age': '600', 'hsts-include-subdomains': 'false', 'hsts-preload': 'true' });
    assert.deepEqual(read.failures, []);
    assert.deepEqual(read.settings.tls.hsts, { enabled: false, maxAge: 600, includeSubdomains: false, preload: true });
  });

  void it('a refused key keeps its default, the others apply', () => {
    const read = readConfigMap({ 'ssl-protocols': 'TLSv1.3', 'hsts-max-age': '1y' });
    assert.deepEqual(read.failures.map((failure) => failure.reason), ['InvalidConfigMapValue']);
    assert.deepEqual(read.settings.tls, { ...tlsSettingsFeature.defaults, protocols: ['TLSv1.3'] });
  });

  void it('ingress-nginx\'s ssl-ciphers annotation is reported, never applied', () => {
    const parsed = parseAnnotations({ 'ssl-ciphers': 'HIGH' });
    assert.ok(parsed.ok);
    assert.deepEqual(described(parsed.warnings), [`UnsupportedAnnotation ${annotationField('ssl-ciphers')} (warning)`]);
    assert.deepEqual(parsed.value, { policy: {}, dynamic: {} });
  });
});

void describe('tls: defaults', () => testDefaults(tlsSettingsFeature, {
  protocols: ['TLSv1.2', 'TLSv1.3'], ciphers: INGRESS_NGINX_CIPHERS, hsts: HSTS, redirectCode: 308,
}));
