// fastcgi-index and fastcgi-params-configmap (ingress-nginx v1.15.1:
// internal/ingress/annotations/fastcgi and its test): annotations only. The
// index is one file name (its regexValidIndexAnnotationAndKey); a value it
// refuses refuses the Ingress (its parser returns the validation error). A
// ConfigMap reference is <name> or <namespace>/<name> (its data:
// model/fastcgi-params.test.ts); a malformed one refuses the Ingress.

import { describe } from 'node:test';
import type { FastcgiConfig } from '../types.ts';
import { fastcgiFeature } from './fastcgi.ts';
import { testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow } from './testing.ts';

const index = 'fastcgi-index';
const params = 'fastcgi-params-configmap';

const values: ValueRow<FastcgiConfig>[] = [
  { name: 'index.php', key: index, value: 'index.php', want: { index: 'index.php' } },
  { name: 'spaces around it are trimmed', key: index, value: ' index.php ', want: { index: 'index.php' } },
  { name: 'dashes and underscores', key: index, value: 'my_app-v2.fcgi', want: { index: 'my_app-v2.fcgi' } },
  { name: 'a path is no file name', key: index, value: 'app/index.php', want: 'fail' },
  { name: 'parent directory', key: index, value: '../index.php', want: 'fail' },
  { name: 'a variable', key: index, value: '$uri', want: 'fail' },
  { name: 'a quote', key: index, value: 'in"dex', want: 'fail' },
  { name: 'a directive', key: index, value: 'index.php; return 200', want: 'fail' },
  { name: 'a space inside', key: index, value: 'a b', want: 'fail' },
  { name: 'too long', key: index, value: `${'a'.repeat(256)}`, want: 'fail' },
  { name: 'empty: ignored (ingress-nginx validates no empty value)', key: index, value: '', want: 'ignore' },
  { name: 'a ConfigMap by name', key: params, value: 'fcgi-params', want: { paramsConfigMap: 'fcgi-params' } },
  { name: 'a ConfigMap by namespace/name', key: params, value: 'default/fcgi-params', want: { paramsConfigMap: 'default/fcgi-params' } },
  { name: 'a ConfigMap with spaces around it', key: params, value: ' fcgi-params ', want: { paramsConfigMap: 'fcgi-params' } },
  { name: 'three parts (ingress-nginx\'s validator takes it, its parser not)', key: params, value: 'a/b/c', want: 'unsupported' },
  { name: 'upper case (no Kubernetes name)', key: params, value: 'Params', want: 'unsupported' },
  { name: 'a quote', key: params, value: 'a"b', want: 'fail' },
  { name: 'a space inside a name', key: params, value: 'a b;', want: 'fail' },
];

const overrides: OverrideRow<FastcgiConfig>[] = [
  { name: 'no annotation: none', configMap: {}, annotations: {}, global: {}, want: null },
  { name: 'an index for one Ingress', configMap: {}, annotations: { [index]: 'index.php' }, global: {}, want: { index: 'index.php' } },
];

void describe('fastcgi: values', () => testValueRows(fastcgiFeature, values));
void describe('fastcgi: per Ingress', () => testOverrideRows(fastcgiFeature, overrides));
void describe('fastcgi: defaults', () => testDefaults(fastcgiFeature, { index: null, paramsConfigMap: null, params: null }));
