// rewrite-target and use-regex (ingress-nginx v1.15.1: internal/ingress/annotations/rewrite):
// annotations only. ingress-nginx checks rewrite-target against ^/?[A-Za-z0-9-._~/:$]*$
// and drops a refused one with a warning (its test: "/xpto/xas{445}" gives no target);
// here the target is a path whose only `$` are the captures $1..$9 (an NGINX variable
// would expand in the `rewrite` replacement), and a refused value fails the Ingress.

import { describe } from 'node:test';
import type { RewriteConfig } from '../types.ts';
import { rewriteFeature } from './rewrite.ts';
import { testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow } from './testing.ts';

const target = 'rewrite-target';
const regex = 'use-regex';

const values: ValueRow<RewriteConfig>[] = [
  { name: 'rewrite-target plain', key: target, value: '/', want: { target: '/' } },
  { name: 'rewrite-target with captures', key: target, value: '/api/$1/$2?x=1', want: { target: '/api/$1/$2?x=1' } },
  { name: 'rewrite-target as in ingress-nginx\'s test', key: target, value: '/xpto/$1/abc/$2', want: { target: '/xpto/$1/abc/$2' } },
  { name: 'rewrite-target starting with a capture', key: target, value: '$1', want: { target: '$1' } },
  { name: 'rewrite-target of 512 characters', key: target, value: `/${'a'.repeat(511)}`, want: { target: `/${'a'.repeat(511)}` } },
  { name: 'rewrite-target of 513 characters', key: target, value: `/${'a'.repeat(512)}`, want: 'fail' },
  { name: 'rewrite-target with a variable', key: target, value: '/$host', want: 'fail' },
  { name: 'rewrite-target with $0', key: target, value: '/$0', want: 'fail' },
  { name: 'rewrite-target with ${1}', key: target, value: '/${1}', want: 'fail' },
  { name: 'rewrite-target with braces (ingress-nginx refuses it too)', key: target, value: '/xpto/xas{445}', want: 'fail' },
  { name: 'rewrite-target with a space', key: target, value: '/a b', want: 'fail' },
  { name: 'rewrite-target with ; and a directive', key: target, value: '/; return 200', want: 'fail' },
  { name: 'rewrite-target with a newline', key: target, value: '/\nreturn 200;', want: 'fail' },
  { name: 'rewrite-target with a quote', key: target, value: '/"', want: 'fail' },
  { name: 'rewrite-target with a single quote', key: target, value: '/\'', want: 'fail' },
  { name: 'rewrite-target with a brace', key: target, value: '/}', want: 'fail' },
  { name: 'rewrite-target with a backslash', key: target, value: '/\\', want: 'fail' },
  { name: 'rewrite-target with a #', key: target, value: '/a#b', want: 'fail' },
  { name: 'rewrite-target relative', key: target, value: 'foo', want: 'fail' },
  { name: 'rewrite-target as an absolute URL (not yet)', key: target, value: 'https://example.com/$1', want: 'fail' },
  { name: 'rewrite-target empty', key: target, value: '', want: 'fail' },
  { name: 'use-regex true', key: regex, value: 'true', want: { useRegex: true } },
  { name: 'use-regex 1', key: regex, value: '1', want: { useRegex: true } },
  { name: 'use-regex False', key: regex, value: 'False', want: { useRegex: false } },
  { name: 'use-regex yes', key: regex, value: 'yes', want: 'fail' },
  { name: 'use-regex with a space', key: regex, value: ' true', want: 'fail' },
  { name: 'use-regex empty', key: regex, value: '', want: 'fail' },
];

// No ConfigMap keys: the global config is always the default, an Ingress sets its own.
const overrides: OverrideRow<RewriteConfig>[] = [
  { name: 'no annotation: the Ingress carries none', configMap: {}, annotations: {}, global: {}, want: null },
  { name: 'rewrite-target alone leaves use-regex false', configMap: {}, annotations: { [target]: '/$2' }, global: {}, want: { target: '/$2' } },
  {
    name: 'both together', configMap: {}, annotations: { [target]: '/$1', [regex]: 'true' }, global: {}, want: { target: '/$1', useRegex: true },
  },
];

void describe('rewrite: values', () => testValueRows(rewriteFeature, values));
void describe('rewrite: per Ingress', () => testOverrideRows(rewriteFeature, overrides));
void describe('rewrite: defaults', () => testDefaults(rewriteFeature, { target: null, useRegex: false }));
