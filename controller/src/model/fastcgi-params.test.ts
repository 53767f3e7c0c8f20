// fastcgi-params-configmap → fastcgi_param pairs (ingress-nginx v1.15.1's
// fastcgi parser: keys of [A-Za-z0-9._-], values of [A-Za-z0-9-_${}/.]; the
// same namespace unless allow-cross-namespace-resources). Braces are refused as
// unsupported here (the renderer never lets them into nginx.conf); a missing
// ConfigMap is a warning (admission lets the Ingress in) that still leaves the
// Ingress unserved until the ConfigMap is listed.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1ConfigMap, V1Ingress } from '@kubernetes/client-node';
import { readFastcgiParams, referencedConfigMaps, resolveFastcgiParams } from './fastcgi-params.ts';
import type { FastcgiConfig } from './types.ts';

const PREFIX = 'nginx.ingress.kubernetes.io';
const configMap = (namespace: string, name: string, data: Record<string, unknown>): V1ConfigMap =>
  Object.freeze({ metadata: { namespace, name }, data: data as Record<string, string> });

interface ReadRow { readonly name: string; readonly data: Record<string, unknown>; readonly want: [string, string][] | RegExp }

const readRows: ReadRow[] = [
  { name: 'names and values, sorted by name', data: { SCRIPT_FILENAME: '/srv/app$fastcgi_script_name', APP_ENV: 'prod' }, want: [['APP_ENV', 'prod'], ['SCRIPT_FILENAME', '/srv/app$fastcgi_script_name']] },
  { name: 'an empty value', data: { REDIRECT_STATUS: '' }, want: [['REDIRECT_STATUS', '']] },
  { name: 'no data', data: {}, want: [] },
  { name: 'a name with a space', data: { 'A B': 'x' }, want: /key "A B" is not a FastCGI parameter name/u },
  { name: 'a name with a quote', data: { 'A"': 'x' }, want: /is not a FastCGI parameter name/u },
  { name: '${name} (ingress-nginx takes it)', data: { X: '${host}' }, want: /the value of X is not supported: only letters/u },
  { name: 'a space in a value', data: { X: 'a b' }, want: /the value of X is not letters/u },
  { name: 'a directive in a value', data: { X: 'a;return' }, want: /the value of X is not letters/u },
  { name: 'a $ alone (ingress-nginx takes it)', data: { X: 'price$' }, want: /the value of X is not supported: only letters/u },
  { name: 'a $ before a digit (ingress-nginx takes it)', data: { X: '$1' }, want: /the value of X is not supported: only letters/u },
  { name: 'too many keys', data: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`K${i}`, 'v'])), want: /more than 100 keys/u },
];

void describe('readFastcgiParams', () => {
  for (const row of readRows) {
    void it(row.name, () => {
      const read = readFastcgiParams(configMap('apps', 'p', row.data), 'apps/p');
      if (row.want instanceof RegExp) {
        assert.equal(read.ok, false);
        assert.match(read.ok ? '' : read.reason, row.want);
        assert.match(read.ok ? '' : read.reason, /^ConfigMap apps\/p/u);
      } else {
        assert.deepEqual(read, { ok: true, params: row.want });
      }
    });
  }
});

const CONFIG: FastcgiConfig = Object.freeze({ index: null, paramsConfigMap: 'fcgi', params: null });
const INGRESS = { namespace: 'apps', name: 'php' };

interface ResolveRow {
  readonly name: string;
  readonly config: FastcgiConfig;
  readonly configMaps: readonly V1ConfigMap[];
  readonly allow?: boolean;
  /** The params, or `<reason> <warning?>: <message regex>`. */
  readonly want: readonly (readonly [string, string])[] | null | [string, RegExp];
}

const resolveRows: ResolveRow[] = [
  { name: 'no ConfigMap named: unchanged', config: Object.freeze({ ...CONFIG, paramsConfigMap: null }), configMaps: [], want: null },
  { name: 'by name: the Ingress\'s namespace', config: CONFIG, configMaps: [configMap('apps', 'fcgi', { A: '1' }), configMap('other', 'fcgi', { B: '2' })], want: [['A', '1']] },
  { name: 'by namespace/name in its own namespace', config: { ...CONFIG, paramsConfigMap: 'apps/fcgi' }, configMaps: [configMap('apps', 'fcgi', { A: '1' })], want: [['A', '1']] },
  { name: 'another namespace: refused', config: { ...CONFIG, paramsConfigMap: 'other/fcgi' }, configMaps: [configMap('other', 'fcgi', { B: '2' })], want: ['InvalidFastcgiParams', /not in the Ingress's namespace apps/u] },
  { name: 'another namespace with allow-cross-namespace-resources', config: { ...CONFIG, paramsConfigMap: 'other/fcgi' }, configMaps: [configMap('other', 'fcgi', { B: '2' })], allow: true, want: [['B', '2']] },
  { name: 'missing: a warning, and not served', config: CONFIG, configMaps: [], want: ['FastcgiParamsNotFound warning', /ConfigMap apps\/fcgi not found \(or not listed yet\); the Ingress is not served until it is/u] },
  { name: 'a bad value: refused', config: CONFIG, configMaps: [configMap('apps', 'fcgi', { A: 'x y' })], want: ['InvalidFastcgiParams', /the value of A is not letters/u] },
];

void describe('resolveFastcgiParams', () => {
  for (const row of resolveRows) {
    void it(row.name, () => {
      const resolved = resolveFastcgiParams(row.config, INGRESS, row.configMaps, row.allow === true, PREFIX);
      if (row.want !== null && typeof row.want[0] === 'string') {
        const [reason, message] = row.want as [string, RegExp];
        assert.equal(resolved.ok, false);
        if (resolved.ok) return;
        assert.equal(`${resolved.failure.reason}${resolved.failure.warning === true ? ' warning' : ''}`, reason);
        assert.match(resolved.failure.message, message);
        assert.equal(resolved.failure.field, `metadata.annotations[${PREFIX}/fastcgi-params-configmap]`);
        return;
      }
      assert.equal(resolved.ok, true);
      if (!resolved.ok) return;
      assert.deepEqual(resolved.config.params, row.want);
      assert.ok(Object.isFrozen(resolved.config));
    });
  }
});

void describe('referencedConfigMaps', () => {
  const ingress = (namespace: string, value: unknown): V1Ingress => ({ metadata: { namespace, name: 'x', annotations: { [`${PREFIX}/fastcgi-params-configmap`]: value as string } } });
  const rows: { name: string; ingresses: V1Ingress[]; allow: boolean; want: string[] }[] = [
    { name: 'by name, in the Ingress\'s namespace; deduplicated, sorted', ingresses: [ingress('b', 'p'), ingress('a', 'p'), ingress('a', 'a/p')], allow: false, want: ['a/p', 'b/p'] },
    { name: 'another namespace: not watched', ingresses: [ingress('a', 'b/p')], allow: false, want: [] },
    { name: 'another namespace, allowed: watched', ingresses: [ingress('a', 'b/p')], allow: true, want: ['b/p'] },
    { name: 'malformed references: none', ingresses: [ingress('a', 'a b'), ingress('a', 5), ingress('a', 'x/y/z')], allow: true, want: [] },
    { name: 'auth-proxy-set-headers beside fastcgi-params-configmap: both watched', allow: false, want: ['a/headers', 'a/p'],
      ingresses: [{ metadata: { namespace: 'a', name: 'x', annotations: { [`${PREFIX}/fastcgi-params-configmap`]: 'p', [`${PREFIX}/auth-proxy-set-headers`]: 'headers' } } }] },
    { name: 'auth-proxy-set-headers of another namespace: not watched', allow: false, want: [],
      ingresses: [{ metadata: { namespace: 'a', name: 'x', annotations: { [`${PREFIX}/auth-proxy-set-headers`]: 'b/headers' } } }] },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      assert.deepEqual(referencedConfigMaps(row.ingresses, PREFIX, row.allow).map((ref) => `${ref.namespace}/${ref.name}`), row.want);
    });
  }
});
