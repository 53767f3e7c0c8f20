// rewrite-target and use-regex (ingress-nginx v1.15.1: internal/ingress/annotations/rewrite
// and its test): annotations only. ingress-nginx checks rewrite-target against its
// RegexPathWithCapture, ^/?[-._~a-zA-Z0-9/:$]*$, and ignores a value outside it with a
// warning (its test: "/xpto/xas{445}" gives no target): the same here. This controller's
// target is a path whose only `$` are the captures $1..$9 (an NGINX variable would expand
// in the `rewrite` replacement): a value ingress-nginx takes and this grammar does not
// (a variable, a relative path) is unsupported, and the Ingress is not served.

import { describe } from 'node:test';
import type { RewriteConfig } from '../types.ts';
import { rewriteFeature } from './rewrite.ts';
import { testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow } from './testing.ts';

const target = 'rewrite-target';
const regex = 'use-regex';

const values: ValueRow<RewriteConfig>[] = [
  { name: 'rewrite-target plain', key: target, value: '/', want: { target: '/' } },
  { name: 'rewrite-target as in ingress-nginx\'s TestRedirect', key: target, value: '/demo', want: { target: '/demo' } },
  { name: 'rewrite-target as in ingress-nginx\'s TestSSLRedirect', key: target, value: '/xpto/$1/abc/$2', want: { target: '/xpto/$1/abc/$2' } },
  // Beyond ingress-nginx's grammar (which has no `?`, `=`): it would ignore this target, here it applies.
  { name: 'rewrite-target with captures and a query', key: target, value: '/api/$1/$2?x=1', want: { target: '/api/$1/$2?x=1' } },
  { name: 'rewrite-target starting with a capture', key: target, value: '$1', want: { target: '$1' } },
  { name: 'rewrite-target of 512 characters', key: target, value: `/${'a'.repeat(511)}`, want: { target: `/${'a'.repeat(511)}` } },
  // In ingress-nginx's grammar, refused by this one: unsupported.
  { name: 'rewrite-target of 513 characters', key: target, value: `/${'a'.repeat(512)}`, want: 'unsupported' },
  { name: 'rewrite-target with a variable', key: target, value: '/$host', want: 'unsupported' },
  { name: 'rewrite-target with $0', key: target, value: '/$0', want: 'unsupported' },
  { name: 'rewrite-target with a lone $', key: target, value: '/a$', want: 'unsupported' },
  { name: 'rewrite-target relative', key: target, value: 'foo', want: 'unsupported' },
  { name: 'rewrite-target as an absolute URL (not yet)', key: target, value: 'https://example.com/$1', want: 'unsupported' },
  { name: 'rewrite-target relative with a colon', key: target, value: 'foo:bar', want: 'unsupported' },
  // Outside ingress-nginx's grammar too: ignored, no rewrite.
  { name: 'rewrite-target with ${1}', key: target, value: '/${1}', want: 'ignore' },
  { name: 'rewrite-target with braces (ingress-nginx\'s TestSSLRedirect: no target)', key: target, value: '/xpto/xas{445}', want: 'ignore' },
  { name: 'rewrite-target with a space', key: target, value: '/a b', want: 'ignore' },
  { name: 'rewrite-target with a leading space (validated untrimmed)', key: target, value: ' /demo', want: 'ignore' },
  { name: 'rewrite-target with ; and a directive', key: target, value: '/; return 200', want: 'ignore' },
  { name: 'rewrite-target with a newline', key: target, value: '/\nreturn 200;', want: 'ignore' },
  { name: 'rewrite-target with a quote', key: target, value: '/"', want: 'ignore' },
  { name: 'rewrite-target with a single quote', key: target, value: '/\'', want: 'ignore' },
  { name: 'rewrite-target with a brace', key: target, value: '/}', want: 'ignore' },
  { name: 'rewrite-target with a backslash', key: target, value: '/\\', want: 'ignore' },
  { name: 'rewrite-target with a #', key: target, value: '/a#b', want: 'ignore' },
  // ingress-nginx validates no empty value; its parser then leaves the target empty: no rewrite.
  { name: 'rewrite-target empty', key: target, value: '', want: 'ignore' },
  { name: 'use-regex true (ingress-nginx\'s TestUseRegex)', key: regex, value: 'true', want: { useRegex: true } },
  { name: 'use-regex 1', key: regex, value: '1', want: { useRegex: true } },
  { name: 'use-regex TRUE', key: regex, value: 'TRUE', want: { useRegex: true } },
  { name: 'use-regex False', key: regex, value: 'False', want: { useRegex: false } },
  { name: 'use-regex yes', key: regex, value: 'yes', want: 'ignore' },
  { name: 'use-regex on', key: regex, value: 'on', want: 'ignore' },
  { name: 'use-regex with a space', key: regex, value: ' true', want: 'ignore' },
  { name: 'use-regex empty', key: regex, value: '', want: 'ignore' },
];

// No ConfigMap keys: the global config is always the default, an Ingress sets its own.
const overrides: OverrideRow<RewriteConfig>[] = [
  { name: 'no annotation: the Ingress carries none', configMap: {}, annotations: {}, global: {}, want: null },
  { name: 'rewrite-target alone leaves use-regex false', configMap: {}, annotations: { [target]: '/$2' }, global: {}, want: { target: '/$2' } },
  {
    name: 'both together', configMap: {}, annotations: { [target]: '/$1', [regex]: 'true' }, global: {}, want: { target: '/$1', useRegex: true },
  },
  {
    name: 'an ignored rewrite-target leaves use-regex to apply',
    configMap: {}, annotations: { [target]: '/xpto/xas{445}', [regex]: 'true' }, global: {}, want: { useRegex: true }, ignored: [target],
  },
  {
    name: 'an ignored use-regex leaves rewrite-target to apply',
    configMap: {}, annotations: { [target]: '/$1', [regex]: 'maybe' }, global: {}, want: { target: '/$1' }, ignored: [regex],
  },
];

void describe('rewrite: values', () => testValueRows(rewriteFeature, values));
void describe('rewrite: per Ingress', () => testOverrideRows(rewriteFeature, overrides));
void describe('rewrite: defaults', () => testDefaults(rewriteFeature, { target: null, useRegex: false }));
