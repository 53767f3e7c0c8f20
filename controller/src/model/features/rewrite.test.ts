// rewrite-target and use-regex (ingress-nginx v1.15.1: internal/ingress/annotations/rewrite
// and its test): annotations only. ingress-nginx checks rewrite-target against its
// RegexPathWithCapture, ^/?[-._~a-zA-Z0-9/:$]*$, and ignores a value outside it with a
// warning (its test: "/xpto/xas{445}" gives no target): the same here. Every value of its
// grammar that NGINX compiles as a `rewrite` replacement is taken (absolute URLs: NGINX
// redirects; variables NGINX knows; relative paths); one NGINX would refuse (a `$` that
// starts neither a capture $1..$9 nor a known variable) is unsupported: the Ingress is not
// served, where ingress-nginx would fail every reload.

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
  // Absolute URLs: NGINX answers with a redirect to them (e2e/regex-hosts.test.ts).
  { name: 'rewrite-target as an absolute URL with a capture', key: target, value: 'https://other.example/$1', want: { target: 'https://other.example/$1' } },
  { name: 'rewrite-target as an http URL with a port and captures', key: target, value: 'http://other.example:8080/a/$2/$1', want: { target: 'http://other.example:8080/a/$2/$1' } },
  { name: 'rewrite-target as a URL of $scheme and $host', key: target, value: '$scheme://$host/new/$1', want: { target: '$scheme://$host/new/$1' } },
  { name: 'rewrite-target with a variable', key: target, value: '/$host', want: { target: '/$host' } },
  { name: 'rewrite-target with a header variable', key: target, value: '/$http_x_tenant/$1', want: { target: '/$http_x_tenant/$1' } },
  { name: 'rewrite-target capture then letters ($1 is one digit)', key: target, value: '/$1abc', want: { target: '/$1abc' } },
  { name: 'rewrite-target $10 is $1 then 0', key: target, value: '/$10', want: { target: '/$10' } },
  { name: 'rewrite-target relative', key: target, value: 'foo', want: { target: 'foo' } },
  { name: 'rewrite-target relative with a colon', key: target, value: 'foo:bar', want: { target: 'foo:bar' } },
  // In ingress-nginx's grammar, refused by NGINX (nginx -t): unsupported, the Ingress is not served.
  { name: 'rewrite-target of 513 characters', key: target, value: `/${'a'.repeat(512)}`, want: 'unsupported' },
  { name: 'rewrite-target with $0 (no such variable)', key: target, value: '/$0', want: 'unsupported' },
  { name: 'rewrite-target with a lone $', key: target, value: '/a$', want: 'unsupported' },
  { name: 'rewrite-target with $ then a slash', key: target, value: '/$/x', want: 'unsupported' },
  { name: 'rewrite-target with $$', key: target, value: '/$$1', want: 'unsupported' },
  { name: 'rewrite-target with an unknown variable', key: target, value: 'https://x/$zqx_unknown', want: 'unsupported' },
  { name: 'rewrite-target with a variable read greedily ($host1)', key: target, value: '/$host1', want: 'unsupported' },
  { name: 'rewrite-target with a prefix family and no name (NGINX takes it, always empty)', key: target, value: '/$http_', want: { target: '/$http_' } },
  { name: 'rewrite-target with an upper-case variable (NGINX reads names case-insensitively)', key: target, value: '/$HOST', want: { target: '/$HOST' } },
  { name: 'rewrite-target with an unknown upper-case variable', key: target, value: '/$HOST_', want: 'unsupported' },
  // Outside ingress-nginx's grammar too: ignored, no rewrite.
  { name: 'rewrite-target with ${1}', key: target, value: '/${1}', want: 'ignore' },
  { name: 'rewrite-target with ${host}', key: target, value: 'https://${host}/$1', want: 'ignore' },
  { name: 'rewrite-target URL with a directive after ;', key: target, value: 'https://x/$1; return 200 x', want: 'ignore' },
  { name: 'rewrite-target URL with a quote', key: target, value: 'https://x/"$1', want: 'ignore' },
  { name: 'rewrite-target URL with a space and redirect flag', key: target, value: 'https://x/$1 permanent', want: 'ignore' },
  { name: 'rewrite-target with a tab', key: target, value: '/a\tb', want: 'ignore' },
  { name: 'rewrite-target with a NUL byte', key: target, value: '/a\u0000b', want: 'ignore' },
  { name: 'rewrite-target with non-ASCII', key: target, value: '/caf\u00e9', want: 'ignore' },
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
