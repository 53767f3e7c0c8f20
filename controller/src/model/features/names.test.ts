// Every kind of name the builder may find (names.ts): a feature's, a snippet, harmless,
// unsupported (protective or not, by its value), unknown; for annotations and for
// ConfigMap keys. parse.test.ts shows what the engine reports for each.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { accessControlFeature } from './access-control.ts';
import { accessLogFeature } from './access-log.ts';
import { canaryFeature } from './canary.ts';
import { clientCertsFeature } from './client-certs.ts';
import { corsFeature } from './cors.ts';
import { externalAuthFeature } from './external-auth.ts';
import type { AnyFeature } from './feature.ts';
import { headerSettingsFeature } from './header-settings.ts';
import { INGRESS_NGINX_ANNOTATIONS, INGRESS_NGINX_CONFIG_KEYS } from './ingress-nginx-names.ts';
import { HARMLESS_ANNOTATIONS, HARMLESS_CONFIG_KEYS, annotationStatus, configKeyStatus, type NameStatus } from './names.ts';
import { proxyFeature } from './proxy.ts';
import { FEATURES } from './registry.ts';
import { safetyFeature } from './safety.ts';
import { tlsSettingsFeature } from './tls-settings.ts';
import { snippetsFeature } from './snippets.ts';

/** What a status says, as one comparable value (the feature by name). */
function summary(status: NameStatus): string {
  switch (status.kind) {
    case 'feature': return `feature ${status.feature.name}`;
    case 'unsupported': return `unsupported${status.protective ? ' protective' : ''}`;
    case 'harmless': return `harmless: ${status.why}`;
    default: return status.kind;
  }
}

const feature = (module: AnyFeature): string => `feature ${module.name}`;

const annotationRows: { name: string; annotation: string; value: unknown; want: string }[] = [
  { name: 'a feature\'s annotation', annotation: 'proxy-body-size', value: '8m', want: feature(proxyFeature) },
  { name: 'a feature\'s annotation with a bad value (the feature reports it)', annotation: 'canary', value: 'maybe', want: feature(canaryFeature) },
  { name: 'a snippet we render: the snippets feature reads it (snippet-gate.ts decides first)', annotation: 'configuration-snippet', value: 'return 200;', want: feature(snippetsFeature) },
  { name: 'a snippet we do not render', annotation: 'stream-snippet', value: '', want: 'snippet' },
  { name: 'any *-snippet, even one ingress-nginx never had', annotation: 'future-snippet', value: 'x', want: 'snippet' },
  { name: 'harmless: tracing', annotation: 'enable-opentelemetry', value: 'true', want: `harmless: ${HARMLESS_ANNOTATIONS['enable-opentelemetry']}` },
  { name: 'harmless: server push', annotation: 'http2-push-preload', value: 'true', want: `harmless: ${HARMLESS_ANNOTATIONS['http2-push-preload']}` },
  { name: 'external auth: a feature', annotation: 'auth-url', value: 'https://auth.example/verify', want: feature(externalAuthFeature) },
  { name: 'external auth keepalive: the external auth feature reads it', annotation: 'auth-keepalive', value: '10', want: feature(externalAuthFeature) },
  { name: 'auth-proxy-set-headers: the external auth feature', annotation: 'auth-proxy-set-headers', value: 'auth-headers', want: feature(externalAuthFeature) },
  { name: 'basic auth: a feature now', annotation: 'auth-type', value: 'basic', want: 'feature basicAuth' },
  { name: 'client certificates (a feature)', annotation: 'auth-tls-verify-client', value: 'on', want: feature(clientCertsFeature) },
  { name: 'an allow-list by its alias', annotation: 'whitelist-source-range', value: '10.0.0.0/8', want: feature(accessControlFeature) },
  { name: 'an allow-list', annotation: 'allowlist-source-range', value: '10.0.0.0/8', want: feature(accessControlFeature) },
  { name: 'a deny-list', annotation: 'denylist-source-range', value: '192.0.2.0/24', want: feature(accessControlFeature) },
  { name: 'CORS', annotation: 'enable-cors', value: 'true', want: feature(corsFeature) },
  { name: 'the OWASP rules', annotation: 'enable-owasp-core-rules', value: 'true', want: 'unsupported protective' },
  { name: 'ModSecurity on', annotation: 'enable-modsecurity', value: 'true', want: 'unsupported protective' },
  { name: 'a protection with a value that is not a string', annotation: 'enable-modsecurity', value: false, want: 'unsupported protective' },
  { name: 'ModSecurity off', annotation: 'enable-modsecurity', value: 'false', want: 'unsupported' },
  { name: 'ModSecurity OFF, spaces around', annotation: 'enable-modsecurity', value: ' OFF ', want: 'unsupported' },
  { name: 'the OWASP rules off', annotation: 'enable-owasp-core-rules', value: '0', want: 'unsupported' },
  { name: 'external auth keepalive-share-vars: the external auth feature', annotation: 'auth-keepalive-share-vars', value: 'true', want: feature(externalAuthFeature) },
  { name: 'global auth opt-out: the external auth feature reads it', annotation: 'enable-global-auth', value: 'false', want: feature(externalAuthFeature) },
  { name: 'not a protection', annotation: 'ssl-prefer-server-ciphers', value: 'true', want: 'unsupported' },
  { name: 'session affinity: a feature now', annotation: 'affinity', value: 'cookie', want: 'feature affinity' },
  { name: 'a rate limit: a feature now', annotation: 'limit-rps', value: '10', want: 'feature rateLimit' },
  { name: 'a rate limit\'s old alias: the same feature', annotation: 'limit-whitelist', value: '10.0.0.0/8', want: 'feature rateLimit' },
  { name: 'satisfy: a feature now', annotation: 'satisfy', value: 'any', want: 'feature satisfy' },
  { name: 'not supported yet, not a protection', annotation: 'modsecurity-transaction-id', value: '$request_id', want: 'unsupported' },
  { name: 'a typo', annotation: 'proxy-body-sise', value: '8m', want: 'unknown' },
  { name: 'a typo of a protection', annotation: 'auth-ulr', value: 'https://auth', want: 'unknown' },
  { name: 'names are case-sensitive', annotation: 'Proxy-Body-Size', value: '8m', want: 'unknown' },
  { name: 'an empty name', annotation: '', value: 'x', want: 'unknown' },
  { name: 'a ConfigMap-only key', annotation: 'hsts', value: 'false', want: 'unknown' },
];

const configRows: { name: string; key: string; value: unknown; want: string }[] = [
  { name: 'a location feature\'s key', key: 'proxy-body-size', value: '8m', want: feature(proxyFeature) },
  { name: 'a global feature\'s key', key: 'ssl-protocols', value: 'TLSv1.3', want: feature(tlsSettingsFeature) },
  { name: 'a key read inverted', key: 'disable-access-log', value: 'true', want: feature(accessLogFeature) },
  { name: 'a snippet we render', key: 'http-snippet', value: 'return 200;', want: feature(snippetsFeature) },
  { name: 'a snippet we do not render', key: 'stream-snippet', value: 'x;', want: 'snippet' },
  { name: 'a snippet never known', key: 'future-snippet', value: 'x', want: 'snippet' },
  { name: 'harmless: http2-max-requests', key: 'http2-max-requests', value: '1000', want: `harmless: ${HARMLESS_CONFIG_KEYS['http2-max-requests']}` },
  { name: 'server-tokens: a feature', key: 'server-tokens', value: 'true', want: feature(headerSettingsFeature) },
  { name: 'harmless: tracing', key: 'otel-sampler', value: 'AlwaysOn', want: `harmless: ${HARMLESS_CONFIG_KEYS['otel-sampler']}` },
  { name: 'global auth: a feature', key: 'global-auth-url', value: 'https://auth.example/verify', want: feature(externalAuthFeature) },
  { name: 'no-auth-locations: the external auth feature reads it', key: 'no-auth-locations', value: '/public', want: feature(externalAuthFeature) },
  { name: 'a global allow-list', key: 'whitelist-source-range', value: '10.0.0.0/8', want: feature(accessControlFeature) },
  { name: 'a global deny-list', key: 'denylist-source-range', value: '192.0.2.0/24', want: feature(accessControlFeature) },
  { name: 'blocked user agents', key: 'block-user-agents', value: '~*bot', want: feature(accessControlFeature) },
  { name: 'ModSecurity on', key: 'enable-modsecurity', value: 'true', want: 'unsupported protective' },
  { name: 'a protection with a value that is not a string', key: 'enable-modsecurity', value: 1, want: 'unsupported protective' },
  { name: 'ModSecurity off (ingress-nginx\'s default)', key: 'enable-modsecurity', value: 'false', want: 'unsupported' },
  { name: 'a protection switched off by 0', key: 'enable-owasp-modsecurity-crs', value: '0', want: 'unsupported' },
  { name: 'global auth: a feature', key: 'global-auth-url', value: 'https://auth.example/verify', want: feature(externalAuthFeature) },
  { name: 'no-auth-locations: the external auth feature reads it', key: 'no-auth-locations', value: '/public', want: feature(externalAuthFeature) },
  { name: 'a global allow-list', key: 'whitelist-source-range', value: '10.0.0.0/8', want: feature(accessControlFeature) },
  { name: 'a global deny-list', key: 'denylist-source-range', value: '192.0.2.0/24', want: feature(accessControlFeature) },
  { name: 'blocked user agents', key: 'block-user-agents', value: '~*bot', want: feature(accessControlFeature) },
  { name: 'the status page allow-list (the status server is loopback-only)', key: 'nginx-status-ipv4-whitelist', value: '10.0.0.0/8', want: 'unsupported' },
  { name: 'not a protection', key: 'enable-brotli', value: 'true', want: 'unsupported' },
  { name: 'allow-snippet-annotations: the safety feature reads it', key: 'allow-snippet-annotations', value: 'true', want: feature(safetyFeature) },
  { name: 'an annotation that is no ConfigMap key', key: 'rewrite-target', value: '/', want: 'unknown' },
  { name: 'canary is no ConfigMap key', key: 'canary', value: 'true', want: 'unknown' },
  { name: 'a typo', key: 'proxy-body-sise', value: '8m', want: 'unknown' },
];

void describe('annotationStatus', () => {
  for (const row of annotationRows) void it(row.name, () => assert.equal(summary(annotationStatus(row.annotation, row.value)), row.want));
});

void describe('configKeyStatus', () => {
  for (const row of configRows) void it(row.name, () => assert.equal(summary(configKeyStatus(row.key, row.value)), row.want));
});

void describe('the name lists agree with each other', () => {
  const annotations = new Map(INGRESS_NGINX_ANNOTATIONS.map((item) => [item.name, item]));
  const configKeys = new Map(INGRESS_NGINX_CONFIG_KEYS.map((item) => [item.name, item]));
  const featureAnnotations = new Set(FEATURES.flatMap((module) => module.keys.flatMap((key) => key.annotation?.name ?? [])));
  const featureConfigKeys = new Set(FEATURES.flatMap((module) => module.keys.flatMap((key) => key.configKey ?? [])));

  void it('a harmless annotation is an ingress-nginx annotation that protects nothing, and no feature\'s', () => {
    for (const name of Object.keys(HARMLESS_ANNOTATIONS)) {
      assert.equal(annotations.get(name)?.protective, false, name);
      assert.ok(!featureAnnotations.has(name) && !name.endsWith('-snippet'), name);
    }
  });

  void it('a harmless ConfigMap key is an ingress-nginx key that protects nothing, and no feature\'s', () => {
    for (const name of Object.keys(HARMLESS_CONFIG_KEYS)) {
      assert.equal(configKeys.get(name)?.protective, false, name);
      assert.ok(!featureConfigKeys.has(name) && !name.endsWith('-snippet'), name);
    }
  });

  void it('ingress-nginx\'s snippets are the snippets feature\'s or refused as snippets', () => {
    const snippets = INGRESS_NGINX_ANNOTATIONS.filter((item) => item.group === 'snippet');
    assert.ok(snippets.length >= 5);
    const rendered = new Set(['configuration-snippet', 'server-snippet', 'auth-snippet']);
    for (const item of snippets) assert.equal(summary(annotationStatus(item.name, 'x')), rendered.has(item.name) ? feature(snippetsFeature) : 'snippet', item.name);
  });

  void it('every ingress-nginx name is known: none is taken for a typo', () => {
    for (const item of INGRESS_NGINX_ANNOTATIONS) assert.notEqual(annotationStatus(item.name, 'x').kind, 'unknown', item.name);
    for (const item of INGRESS_NGINX_CONFIG_KEYS) assert.notEqual(configKeyStatus(item.name, 'x').kind, 'unknown', item.name);
  });

  void it('an ingress-nginx protection asked for is either a feature or fails closed', () => {
    for (const item of INGRESS_NGINX_ANNOTATIONS.filter((known) => known.protective && known.name !== 'enable-global-auth')) {
      assert.match(summary(annotationStatus(item.name, 'on')), /^(?:feature .*|unsupported protective)$/u, item.name);
    }
  });
});
