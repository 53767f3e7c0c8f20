import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { DEFAULT_ANNOTATION_VALUES } from './annotations/index.ts';
import { buildModel } from './build.ts';
import { DEFAULT_GLOBAL_SETTINGS, readControllerConfig } from './config-map.ts';
import { ann, deepFreeze, ingress, options, path, rule, service, snapshot, svc } from './testdata/fixtures.ts';

function configMap(data: Record<string, string>, name = 'resty-ingress', namespace = 'ingress'): V1ConfigMap {
  return { metadata: { namespace, name }, data };
}
const KEY = 'ingress/resty-ingress';

const accepted: { name: string; data: Record<string, string>; settings?: object; defaults?: object }[] = [
  { name: 'ssl-protocols', data: { 'ssl-protocols': 'TLSv1.3' }, settings: { sslProtocols: ['TLSv1.3'] } },
  { name: 'ssl-ciphers', data: { 'ssl-ciphers': 'ECDHE-RSA-AES128-GCM-SHA256:!aNULL' }, settings: { sslCiphers: 'ECDHE-RSA-AES128-GCM-SHA256:!aNULL' } },
  { name: 'http-redirect-code', data: { 'http-redirect-code': '301' }, settings: { httpRedirectCode: 301 } },
  {
    name: 'hsts keys', data: { 'hsts': 'false', 'hsts-max-age': '600', 'hsts-include-subdomains': 'false', 'hsts-preload': 'true' },
    settings: { hsts: { enabled: false, maxAge: 600, includeSubdomains: false, preload: true } },
  },
  { name: 'access log: a JSON format with escape=json', data: { 'log-format-upstream': '{"status": $status}', 'log-format-escape-json': 'true' },
    settings: { accessLog: { enabled: true, format: '{"status": $status}', escapeJson: true } } },
  { name: 'disable-access-log', data: { 'disable-access-log': 'true' },
    settings: { accessLog: { ...DEFAULT_GLOBAL_SETTINGS.accessLog, enabled: false } } },
  { name: 'annotation defaults', data: { 'proxy-body-size': '8m', 'ssl-redirect': 'false', 'force-ssl-redirect': 'true', 'load-balance': 'ewma' },
    defaults: { bodySize: '8m', sslRedirect: false, forceSslRedirect: true, loadBalance: 'ewma' },
    // The proxy ones are also the http-level defaults of nginx.conf.
    settings: { proxyDefaults: { ...DEFAULT_GLOBAL_SETTINGS.proxyDefaults, bodySize: '8m' } } },
  { name: 'proxy timeouts', data: { 'proxy-connect-timeout': '2', 'proxy-read-timeout': '120', 'proxy-send-timeout': '30' },
    defaults: { connectTimeout: 2, readTimeout: 120, sendTimeout: 30 },
    settings: { proxyDefaults: { bodySize: '1m', connectTimeout: 2, readTimeout: 120, sendTimeout: 30, protocol: 'HTTP' } } },
];

const refused: { name: string; data: Record<string, string>; reason: string }[] = [
  { name: 'unknown protocol', data: { 'ssl-protocols': 'SSLv3 TLSv1.2' }, reason: 'InvalidConfigMapValue' },
  { name: 'cipher list with a semicolon', data: { 'ssl-ciphers': 'HIGH; return 200' }, reason: 'InvalidConfigMapValue' },
  { name: 'redirect code 200', data: { 'http-redirect-code': '200' }, reason: 'InvalidConfigMapValue' },
  { name: 'hsts-max-age not a number', data: { 'hsts-max-age': '1y' }, reason: 'InvalidConfigMapValue' },
  { name: 'log format with a quote and a directive', data: { 'log-format-upstream': "$status'; access_log /etc/passwd; '" }, reason: 'InvalidConfigMapValue' },
  { name: 'log format with an unknown variable', data: { 'log-format-upstream': '$status $ingress_name' }, reason: 'InvalidConfigMapValue' },
  { name: 'log-format-escape-json not a boolean', data: { 'log-format-escape-json': 'yes please' }, reason: 'InvalidConfigMapValue' },
  { name: 'bad proxy timeout', data: { 'proxy-read-timeout': 'forever' }, reason: 'InvalidConfigMapValue' },
  { name: 'an annotation that is no ConfigMap key', data: { 'rewrite-target': '/' }, reason: 'UnknownConfigMapKey' },
  { name: 'unknown key', data: { 'use-gzip': 'true' }, reason: 'UnknownConfigMapKey' },
];

void describe('readControllerConfig', () => {
  void it('no --configmap: defaults, no failures', () => {
    assert.deepEqual(readControllerConfig([], null), { settings: DEFAULT_GLOBAL_SETTINGS, annotationDefaults: DEFAULT_ANNOTATION_VALUES, failures: [] });
  });
  void it('a missing ConfigMap is reported and defaults apply', () => {
    const config = readControllerConfig([configMap({}, 'other')], KEY);
    assert.deepEqual(config.settings, DEFAULT_GLOBAL_SETTINGS);
    assert.deepEqual(config.failures.map((f) => f.reason), ['ConfigMapNotFound']);
  });
  for (const row of accepted) {
    void it(`accepts ${row.name}`, () => {
      const config = readControllerConfig([configMap(row.data)], KEY);
      assert.deepEqual(config.failures, []);
      assert.deepEqual(config.settings, { ...DEFAULT_GLOBAL_SETTINGS, ...row.settings });
      assert.deepEqual(config.annotationDefaults, { ...DEFAULT_ANNOTATION_VALUES, ...row.defaults });
    });
  }
  for (const row of refused) {
    void it(`refuses ${row.name}: the default stays`, () => {
      const config = readControllerConfig([configMap(row.data)], KEY);
      assert.deepEqual(config.failures.map((f) => f.reason), [row.reason]);
      assert.equal(config.failures[0].ingress, null);
      assert.deepEqual(config.settings, DEFAULT_GLOBAL_SETTINGS);
      assert.deepEqual(config.annotationDefaults, DEFAULT_ANNOTATION_VALUES);
    });
  }
});

void it('a refused log format names the variable even behind a long value', () => {
  const format = `${'$remote_addr '.repeat(20)}$ingress_name`;
  const [failure] = readControllerConfig([configMap({ 'log-format-upstream': format })], KEY).failures;
  assert.match(failure?.message ?? '', /^ConfigMap key log-format-upstream: variable \$ingress_name is not provided/);
});

void describe('ConfigMap defaults reach the model; annotations override them', () => {
  void it('ssl-redirect and proxy-body-size from the ConfigMap, overridden per Ingress', () => {
    const plain = ingress('plain', { rules: [rule('a.example.com', path('/', svc('web', 80)))] });
    const annotated = ingress('annotated', {
      annotations: { [ann('ssl-redirect')]: 'true', [ann('proxy-body-size')]: '2m' },
      rules: [rule('b.example.com', path('/', svc('web', 80)))],
    });
    const result = buildModel(deepFreeze(snapshot({
      ingresses: [plain, annotated], services: [service('web', [{ port: 80 }])],
      configMaps: [configMap({ 'ssl-redirect': 'false', 'proxy-body-size': '16m', 'hsts': 'false' })],
    })), options({ configMap: KEY }));
    const location = (host: string) => result.model.servers.find((s) => s.hostname === host)?.locations[0];
    assert.deepEqual([location('a.example.com')?.sslRedirect, location('a.example.com')?.proxy.bodySize], [false, '16m']);
    assert.deepEqual([location('b.example.com')?.sslRedirect, location('b.example.com')?.proxy.bodySize], [true, '2m']);
    assert.equal(result.model.settings.hsts.enabled, false);
    assert.deepEqual(result.failures, []);
  });
});
