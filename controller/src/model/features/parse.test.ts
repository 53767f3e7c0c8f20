// The engine (parse.ts): how an Ingress's annotations and the ConfigMap's keys are
// sorted, parsed and reported, whatever the feature. The modules' own values are in
// their tests (proxy.test.ts, canary.test.ts, …); names.test.ts has every name's status.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { buildModel } from '../build.ts';
import { ingress, options, path, rule, service, snapshot, svc, deepFreeze } from '../testdata/fixtures.ts';
import { configOf, findLocation } from '../testdata/inspect.ts';
import { DEFAULT_SETTINGS, parseIngressFeatures, readSettings } from './parse.ts';
import { externalAuthFeature } from './external-auth.ts';
import { proxyFeature } from './proxy.ts';
import {
  CONFIG_MAP_KEY, INGRESS, PREFIX, annotationField, assertReadable, configField, configMap, described, parseAnnotations, readConfigMap,
} from './testing.ts';

const OTHER_PREFIX = 'resty.example';

/** An Ingress's annotations (full keys) and what the engine makes of them. */
const ingressRows: {
  name: string; annotations: Record<string, unknown> | undefined; prefix?: string;
  /** Described failures (warnings included, after them) when the Ingress is refused. */
  failures?: string[]; warnings?: string[]; features?: string[];
}[] = [
  { name: 'no annotations', annotations: undefined },
  { name: 'no annotations under the prefix', annotations: { 'example.com/proxy-body-size': 'garbage;', [`${PREFIX}.evil/auth-url`]: 'x', [PREFIX]: 'x' } },
  { name: 'a harmless name: nothing to say', annotations: { [`${PREFIX}/enable-opentelemetry`]: 'true' } },
  { name: 'configuration-snippet refused', annotations: { [`${PREFIX}/configuration-snippet`]: 'return 200;' }, failures: [`SnippetNotAllowed ${annotationField('configuration-snippet')}`] },
  { name: 'server-snippet refused even when empty', annotations: { [`${PREFIX}/server-snippet`]: '' }, failures: [`SnippetNotAllowed ${annotationField('server-snippet')}`] },
  { name: 'any *-snippet refused', annotations: { [`${PREFIX}/future-snippet`]: 'x' }, failures: [`SnippetNotAllowed ${annotationField('future-snippet')}`] },
  {
    name: 'failures: names in key order, then refused values in registry order, then the warnings',
    annotations: {
      [`${PREFIX}/use-regex`]: 'maybe', [`${PREFIX}/load-balance`]: 'x', [`${PREFIX}/rewrite-target`]: '/$0',
      [`${PREFIX}/auth-snippet`]: 'x', [`${PREFIX}/enable-modsecurity`]: 'true',
    },
    failures: [`SnippetNotAllowed ${annotationField('auth-snippet')}`, `ProtectionNotSupported ${annotationField('enable-modsecurity')}`,
      `InvalidAnnotation ${annotationField('rewrite-target')}`, `InvalidAnnotation ${annotationField('load-balance')}`,
      `IgnoredInvalidAnnotation ${annotationField('use-regex')} (warning)`],
  },
  {
    name: 'an invalid value of a key that ignores it: served, with a warning',
    annotations: { [`${PREFIX}/proxy-body-size`]: 'big' }, warnings: [`IgnoredInvalidAnnotation ${annotationField('proxy-body-size')} (warning)`], features: ['proxy'],
  },
  {
    name: 'an unsupported value refuses the Ingress even where invalid ones are ignored',
    annotations: { [`${PREFIX}/proxy-read-timeout`]: '0', [`${PREFIX}/proxy-body-size`]: 'big' },
    failures: [`InvalidAnnotation ${annotationField('proxy-read-timeout')}`, `IgnoredInvalidAnnotation ${annotationField('proxy-body-size')} (warning)`],
  },
  { name: 'an unsupported name: served, with a warning', annotations: { [`${PREFIX}/ssl-prefer-server-ciphers`]: 'true' }, warnings: [`UnsupportedAnnotation ${annotationField('ssl-prefer-server-ciphers')} (warning)`] },
  { name: 'a typo: served, with a warning', annotations: { [`${PREFIX}/proxy-body-sise`]: '8m' }, warnings: [`UnknownAnnotation ${annotationField('proxy-body-sise')} (warning)`] },
  {
    name: 'warnings do not stop the features',
    annotations: { [`${PREFIX}/ssl-prefer-server-ciphers`]: 'true', [`${PREFIX}/proxy-body-size`]: '8m', [`${PREFIX}/canary`]: 'true' },
    warnings: [`UnsupportedAnnotation ${annotationField('ssl-prefer-server-ciphers')} (warning)`], features: ['canary', 'proxy'],
  },
  { name: 'a protection not supported fails closed', annotations: { [`${PREFIX}/enable-modsecurity`]: 'true' }, failures: [`ProtectionNotSupported ${annotationField('enable-modsecurity')}`] },
  {
    name: 'a failure keeps the warnings, after it',
    annotations: { [`${PREFIX}/ssl-prefer-server-ciphers`]: 'true', [`${PREFIX}/enable-owasp-core-rules`]: 'true' },
    failures: [`ProtectionNotSupported ${annotationField('enable-owasp-core-rules')}`, `UnsupportedAnnotation ${annotationField('ssl-prefer-server-ciphers')} (warning)`],
  },
  {
    name: 'a refused value keeps the ignored ones\' warnings',
    annotations: { [`${PREFIX}/load-balance`]: 'big', [`${PREFIX}/canary`]: 'true', [`${PREFIX}/canary-weight`]: 'half' },
    failures: [`InvalidAnnotation ${annotationField('load-balance')}`, `IgnoredInvalidAnnotation ${annotationField('canary-weight')} (warning)`],
  },
  { name: 'a protection switched off: a warning', annotations: { [`${PREFIX}/enable-modsecurity`]: 'false' }, warnings: [`UnsupportedAnnotation ${annotationField('enable-modsecurity')} (warning)`] },
  {
    name: 'an empty value never refuses the Ingress: ingress-nginx validates none', annotations: { [`${PREFIX}/load-balance`]: '' },
    warnings: [`IgnoredInvalidAnnotation ${annotationField('load-balance')} (warning)`], features: ['loadBalance'],
  },
  { name: 'non-string value for a feature', annotations: { [`${PREFIX}/load-balance`]: true }, failures: [`InvalidAnnotation ${annotationField('load-balance')}`] },
  {
    name: 'non-string value for a key that ignores invalid ones', annotations: { [`${PREFIX}/use-regex`]: true },
    warnings: [`IgnoredInvalidAnnotation ${annotationField('use-regex')} (warning)`], features: ['rewrite'],
  },
  { name: 'non-string value for an ignored key', annotations: { [`${PREFIX}/canary`]: true }, warnings: [`IgnoredInvalidAnnotation ${annotationField('canary')} (warning)`], features: ['canary'] },
  { name: 'non-string value for a protection: closed', annotations: { [`${PREFIX}/enable-modsecurity`]: false }, failures: [`ProtectionNotSupported ${annotationField('enable-modsecurity')}`] },
  { name: 'non-string value for a snippet', annotations: { [`${PREFIX}/server-snippet`]: null }, failures: [`SnippetNotAllowed ${annotationField('server-snippet')}`] },
  {
    name: 'custom prefix is honoured', annotations: { [`${OTHER_PREFIX}/load-balance`]: 'bad', [`${OTHER_PREFIX}/proxy-body-size`]: 'bad' }, prefix: OTHER_PREFIX,
    failures: [`InvalidAnnotation ${annotationField('load-balance', OTHER_PREFIX)}`, `IgnoredInvalidAnnotation ${annotationField('proxy-body-size', OTHER_PREFIX)} (warning)`],
  },
  { name: 'custom prefix reads its features', annotations: { [`${OTHER_PREFIX}/proxy-body-size`]: '8m' }, prefix: OTHER_PREFIX, features: ['proxy'] },
  { name: 'custom prefix ignores the default one', annotations: { [`${PREFIX}/proxy-body-size`]: 'bad', [`${PREFIX}/auth-url`]: 'x' }, prefix: OTHER_PREFIX },
];

void describe('parseIngressFeatures', () => {
  for (const row of ingressRows) {
    void it(row.name, () => {
      const parsed = parseIngressFeatures(row.annotations, row.prefix ?? PREFIX, INGRESS, DEFAULT_SETTINGS);
      if (row.failures) {
        assert.equal(parsed.ok, false, 'the Ingress is refused');
        if (parsed.ok) return;
        assert.deepEqual(described(parsed.failures), row.failures);
        for (const failure of parsed.failures) assertReadable(failure);
        assert.ok(parsed.failures.every((failure) => failure.ingress === INGRESS));
        return;
      }
      assert.equal(parsed.ok, true, parsed.ok ? '' : described(parsed.failures).join('; '));
      if (!parsed.ok) return;
      assert.deepEqual(described(parsed.warnings), row.warnings ?? []);
      assert.deepEqual([...Object.keys(parsed.value.policy), ...Object.keys(parsed.value.dynamic)].sort(), row.features ?? []);
      assert.ok(Object.isFrozen(parsed.value) && Object.isFrozen(parsed.value.policy) && Object.isFrozen(parsed.value.dynamic));
    });
  }

  void it('the same outcome whatever the order of the keys', () => {
    const entries = Object.entries({ 'use-regex': 'maybe', 'auth-snippet': 'x', 'ssl-prefer-server-ciphers': 'true', 'load-balance': 'x', 'satisfy': 'any' });
    const forward = parseAnnotations(Object.fromEntries(entries));
    assert.deepEqual(parseAnnotations(Object.fromEntries(entries.reverse())), forward);
  });

  void it('a long hostile value is truncated and quoted in the message', () => {
    const parsed = parseAnnotations({ 'proxy-body-size': `1m;\n${'x'.repeat(500)}` });
    const message = parsed.ok ? (parsed.warnings[0]?.message ?? '') : '';
    assert.ok(message.includes('"1m;\\nxxx'), message);
    assert.ok(message.length <= 200 && !message.includes('x'.repeat(101)), message);
    assert.doesNotMatch(message, /\n/u);
  });

  void it('an Ingress\'s config starts from the settings it is given, which it leaves alone', () => {
    const read = readConfigMap({ 'proxy-read-timeout': '120' });
    const parsed = parseAnnotations({ 'proxy-body-size': '8m' }, read.settings);
    assert.deepEqual(parsed.ok && parsed.value.policy.proxy, { ...proxyFeature.defaults, bodySize: '8m', readTimeout: 120 });
    assert.deepEqual(read.settings.proxy, { ...proxyFeature.defaults, readTimeout: 120 });
  });
});

/** A ConfigMap's data and what the engine makes of it. */
const configRows: { name: string; data: Record<string, unknown>; failures?: string[]; closed?: boolean; settings?: object }[] = [
  { name: 'an empty ConfigMap', data: {} },
  { name: 'a harmless key: nothing to say', data: { 'enable-opentelemetry': 'true' } },
  { name: 'an unknown key', data: { 'no-such-key': 'x' }, failures: [`UnknownConfigMapKey ${configField('no-such-key')} (warning)`] },
  { name: 'an annotation that is no ConfigMap key', data: { 'rewrite-target': '/' }, failures: [`UnknownConfigMapKey ${configField('rewrite-target')} (warning)`] },
  { name: 'an ingress-nginx key not supported', data: { 'enable-brotli': 'true' }, failures: [`UnsupportedConfigMapKey ${configField('enable-brotli')} (warning)`] },
  { name: 'a snippet key we do not render', data: { 'stream-snippet': 'return 200;' }, failures: [`UnsupportedConfigMapKey ${configField('stream-snippet')} (warning)`] },
  { name: 'global auth refused (a variable): closed', data: { 'global-auth-url': 'https://$host/verify' }, closed: true, failures: [`InvalidConfigMapValue ${configField('global-auth-url')}`] },
  { name: 'global auth that is no URL: closed', data: { 'global-auth-url': 'auth.example' }, closed: true, failures: [`InvalidConfigMapValue ${configField('global-auth-url')}`] },
  { name: 'global auth left empty: open, no auth', data: { 'global-auth-url': '' } },
  { name: 'global auth caching: read, nothing to say', data: { 'global-auth-cache-key': '$remote_user' }, settings: { externalAuth: { ...externalAuthFeature.defaults, cacheKey: '$remote_user' } } },
  { name: 'a WAF rule set: closed', data: { 'enable-owasp-modsecurity-crs': 'true' }, closed: true, failures: [`ProtectionNotSupported ${configField('enable-owasp-modsecurity-crs')}`] },
  { name: 'an allow-list that does not parse: closed', data: { 'whitelist-source-range': '10.0.0.0/8,nope' }, closed: true, failures: [`InvalidConfigMapValue ${configField('whitelist-source-range')}`] },
  { name: 'ModSecurity on: closed', data: { 'enable-modsecurity': 'true' }, closed: true, failures: [`ProtectionNotSupported ${configField('enable-modsecurity')}`] },
  { name: 'ModSecurity off: open', data: { 'enable-modsecurity': 'false' }, failures: [`UnsupportedConfigMapKey ${configField('enable-modsecurity')} (warning)`] },
  { name: 'a protection switched Off (any case, spaces)', data: { 'enable-owasp-modsecurity-crs': ' Off ' }, failures: [`UnsupportedConfigMapKey ${configField('enable-owasp-modsecurity-crs')} (warning)`] },
  { name: 'tuning a protection that is off: open', data: { 'limit-conn-zone-variable': '$remote_addr' }, failures: [`UnsupportedConfigMapKey ${configField('limit-conn-zone-variable')} (warning)`] },
  { name: 'closed, and the other keys still read', data: { 'enable-modsecurity': 'true', 'proxy-body-size': '8m' }, closed: true,
    failures: [`ProtectionNotSupported ${configField('enable-modsecurity')}`], settings: { proxy: { ...proxyFeature.defaults, bodySize: '8m' } } },
  { name: 'a non-string value for a feature', data: { 'proxy-read-timeout': 120 }, failures: [`InvalidConfigMapValue ${configField('proxy-read-timeout')}`] },
  { name: 'a non-string value for a protection: closed', data: { 'enable-modsecurity': 1 }, closed: true, failures: [`ProtectionNotSupported ${configField('enable-modsecurity')}`] },
  { name: 'a non-string global-auth-url: closed', data: { 'global-auth-url': 1 }, closed: true, failures: [`InvalidConfigMapValue ${configField('global-auth-url')}`] },
  {
    name: 'failures: names in key order, then refused values in registry order',
    data: { 'zz-typo': 'x', 'ssl-protocols': 'SSLv3', 'proxy-read-timeout': 'forever', 'enable-brotli': 'true' },
    failures: [`UnsupportedConfigMapKey ${configField('enable-brotli')} (warning)`, `UnknownConfigMapKey ${configField('zz-typo')} (warning)`,
      `InvalidConfigMapValue ${configField('proxy-read-timeout')}`, `InvalidConfigMapValue ${configField('ssl-protocols')}`],
  },
  {
    name: 'keys of several features at once', data: { 'proxy-body-size': '8m', 'ssl-redirect': 'false', 'force-ssl-redirect': 'true', 'load-balance': 'ewma' },
    settings: { proxy: { ...proxyFeature.defaults, bodySize: '8m' }, sslRedirect: { redirect: false, force: true }, loadBalance: { algorithm: 'ewma' } },
  },
];

void describe('readSettings', () => {
  void it('no --configmap: the defaults, nothing to say', () => {
    assert.deepEqual(readSettings([configMap({ 'proxy-body-size': '8m' })], null), { settings: DEFAULT_SETTINGS, closed: false, failures: [] });
  });

  void it('a missing ConfigMap is reported and the defaults apply', () => {
    const read = readSettings([configMap({ 'proxy-body-size': '8m' }, 'resty-ingress', 'other'), configMap({}, 'other')], CONFIG_MAP_KEY);
    assert.deepEqual(read.settings, DEFAULT_SETTINGS);
    assert.deepEqual(described(read.failures), ['ConfigMapNotFound --configmap']);
    assert.equal(read.failures[0]?.ingress, null);
  });

  for (const row of configRows) {
    void it(row.name, () => {
      const read = readConfigMap(row.data);
      assert.deepEqual(described(read.failures), row.failures ?? []);
      for (const failure of read.failures) assertReadable(failure);
      assert.ok(read.failures.every((failure) => failure.ingress === null));
      assert.equal(read.closed, row.closed ?? false);
      assert.deepEqual(read.settings, { ...DEFAULT_SETTINGS, ...row.settings });
      assert.ok(Object.isFrozen(read.settings) && Object.values(read.settings).every((config) => Object.isFrozen(config)));
    });
  }

  void it('a long hostile value: the reason first, the value truncated', () => {
    const [failure] = readConfigMap({ 'proxy-body-size': `1m;\n${'x'.repeat(500)}` }).failures;
    assert.match(failure?.message ?? '', /^ConfigMap key proxy-body-size: expected an NGINX size/u);
    assertReadable(failure);
  });

  void it('reading a ConfigMap changes no module\'s defaults', () => {
    const before = structuredClone(DEFAULT_SETTINGS);
    readConfigMap({ 'proxy-body-size': '8m', 'hsts-max-age': '5', 'ssl-protocols': 'TLSv1.3' });
    assert.deepEqual(DEFAULT_SETTINGS, before);
    assert.equal(proxyFeature.defaults.bodySize, '1m');
  });
});

void describe('the ConfigMap reaches the model; annotations override it', () => {
  void it('ssl-redirect and proxy-body-size from the ConfigMap, overridden per Ingress', () => {
    const plain = ingress('plain', { rules: [rule('a.example.com', path('/', svc('web', 80)))] });
    const annotated = ingress('annotated', {
      annotations: { [`${PREFIX}/ssl-redirect`]: 'true', [`${PREFIX}/proxy-body-size`]: '2m' },
      rules: [rule('b.example.com', path('/', svc('web', 80)))],
    });
    const result = buildModel(deepFreeze(snapshot({
      ingresses: [plain, annotated], services: [service('web', [{ port: 80 }])],
      configMaps: [configMap({ 'ssl-redirect': 'false', 'proxy-body-size': '16m', 'hsts': 'false' })],
    })), options({ configMap: CONFIG_MAP_KEY }));
    const configs = (host: string): unknown[] => {
      const location = findLocation(result, host, '/');
      return [configOf(result, location, 'sslRedirect')?.redirect, configOf(result, location, 'proxy')?.bodySize];
    };
    assert.deepEqual(configs('a.example.com'), [false, '16m']);
    assert.deepEqual(configs('b.example.com'), [true, '2m']);
    assert.equal(result.model.settings.tls.hsts.enabled, false);
    assert.deepEqual(result.failures, []);
  });
});
