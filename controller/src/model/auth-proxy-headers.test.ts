// auth-proxy-set-headers: the ConfigMap's headers as ingress-nginx v1.15.1 reads them (annotations/authreq:
// a key not a header name denies the location; a missing ConfigMap or one of another namespace, without
// allow-cross-namespace-resources, too), with literal values only (a `$` would be an NGINX variable there).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { readAuthProxyHeaders, resolveAuthProxyHeaders } from './auth-proxy-headers.ts';
import { externalAuthFeature, externalAuthName } from './features/external-auth.ts';
import type { ExternalAuthConfig } from './types.ts';

const configMap = (data: Record<string, unknown>, namespace = 'shop', name = 'auth-headers'): V1ConfigMap =>
  ({ metadata: { namespace, name }, data: data as Record<string, string> });

void describe('readAuthProxyHeaders', () => {
  const rows: { name: string; data: Record<string, unknown>; want: [string, string][] | RegExp }[] = [
    { name: 'ingress-nginx\'s e2e value, sorted by name', data: { 'My-Custom-Header': '42', 'A_Header': 'x y' }, want: [['A_Header', 'x y'], ['My-Custom-Header', '42']] },
    { name: 'none', data: {}, want: [] },
    { name: 'quotes and punctuation that NGINX reads literally', data: { 'X-Tenant': 'acme \'x\' & co <1>' }, want: [['X-Tenant', 'acme \'x\' & co <1>']] },
    { name: 'a name with a space (ingress-nginx denies it)', data: { 'My Header': '1' }, want: /is not a header name/u },
    { name: 'a name with a colon', data: { 'X:Y': '1' }, want: /is not a header name/u },
    { name: 'a name of 47 characters (NGINX\'s header hash)', data: { [`X-${'a'.repeat(45)}`]: '1' }, want: /is not a header name/u },
    { name: 'a header the auth request already carries', data: { 'x-original-url': 'http://evil/' }, want: /set by the controller/u },
    { name: 'Host', data: { Host: 'evil' }, want: /set by the controller/u },
    { name: 'a variable (ingress-nginx would expand it)', data: { 'X-Client': '$remote_addr' }, want: /NGINX variables are not supported/u },
    { name: 'a double quote', data: { 'X-A': 'a"; proxy_pass http://evil; #' }, want: /the value of X-A/u },
    { name: 'a backslash', data: { 'X-A': 'a\\' }, want: /the value of X-A/u },
    { name: 'a semicolon', data: { 'X-A': 'a;b' }, want: /the value of X-A/u },
    { name: 'a brace', data: { 'X-A': '{a}' }, want: /the value of X-A/u },
    { name: 'a newline', data: { 'X-A': 'a\nproxy_pass x' }, want: /the value of X-A/u },
    { name: 'empty', data: { 'X-A': '' }, want: /the value of X-A/u },
    { name: 'a space at the end', data: { 'X-A': 'a ' }, want: /the value of X-A/u },
    { name: 'longer than 1024', data: { 'X-A': 'a'.repeat(1025) }, want: /the value of X-A/u },
    { name: 'not a string', data: { 'X-A': 5 }, want: /the value of X-A/u },
    { name: 'more than 32 keys', data: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`X-H${i}`, '1'])), want: /more than 32 keys/u },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const read = readAuthProxyHeaders(configMap(row.data), 'shop/auth-headers');
      if (row.want instanceof RegExp) {
        assert.equal(read.ok, false);
        if (!read.ok) assert.match(read.reason, row.want);
      } else {
        assert.deepEqual(read, { ok: true, headers: row.want });
      }
    });
  }
});

void describe('resolveAuthProxyHeaders', () => {
  const base: ExternalAuthConfig = { ...externalAuthFeature.defaults, url: { scheme: 'http', host: 'auth', port: null, path: '/v', query: null } };
  const named = { ...base, name: externalAuthName(base) };
  const ingress = { namespace: 'shop', name: 'web' };
  const maps = [configMap({ 'X-Client': 'shop' }), configMap({ 'X-Other': 'o' }, 'auth')];
  const rows: { name: string; ref: string; allow?: boolean; want: [string, string][] | RegExp }[] = [
    { name: 'by name in the Ingress\'s namespace', ref: 'auth-headers', want: [['X-Client', 'shop']] },
    { name: 'the namespace written out', ref: 'shop/auth-headers', want: [['X-Client', 'shop']] },
    { name: 'another namespace: denied', ref: 'auth/auth-headers', want: /not in the Ingress's namespace shop/u },
    { name: 'another namespace, allowed by allow-cross-namespace-resources', ref: 'auth/auth-headers', allow: true, want: [['X-Other', 'o']] },
    { name: 'missing: denied (ingress-nginx: location denied, 503)', ref: 'nope', want: /ConfigMap shop\/nope not found/u },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const { config, failure } = resolveAuthProxyHeaders({ ...named, proxySetHeadersConfigMap: row.ref }, ingress, maps, row.allow === true, 'nginx.ingress.kubernetes.io', externalAuthName);
      if (row.want instanceof RegExp) {
        assert.deepEqual([config.proxySetHeadersDenied, config.proxySetHeaders], [true, []]);
        assert.equal(failure?.warning, true);
        assert.equal(failure?.reason, 'AuthProxyHeadersUnusable');
        assert.match(failure?.message ?? '', row.want);
        assert.match(failure?.message ?? '', /answer 503/u);
      } else {
        assert.equal(failure, null);
        assert.deepEqual([config.proxySetHeadersDenied, config.proxySetHeaders], [false, row.want]);
        assert.notEqual(config.name, named.name, 'the headers name another auth location');
        assert.equal(config.name, externalAuthName(config));
      }
    });
  }

  void it('no annotation: the config as it was', () => {
    assert.deepEqual(resolveAuthProxyHeaders(named, ingress, maps, false, 'nginx.ingress.kubernetes.io', externalAuthName), { config: named, failure: null });
  });
});
