// server-alias as ingress-nginx v1.15.1 reads it (annotations/alias: a comma list, trimmed,
// empty items skipped, unique and sorted; ValidateArrayOfServerName refuses other characters).
// Regex names, which its validator admits, are refused as unsupported here.

import { describe } from 'node:test';
import type { ServerAliasConfig } from '../types.ts';
import { serverAliasFeature } from './server-alias.ts';
import { testDefaults, testValueRows, type ValueRow } from './testing.ts';

const key = 'server-alias';
const values: ValueRow<ServerAliasConfig>[] = [
  { name: 'one name', key, value: 'bar', want: { names: ['bar'] } },
  { name: 'several, trimmed, sorted, unique', key, value: ' www.b.test, a.test ,,a.test', want: { names: ['a.test', 'www.b.test'] } },
  { name: 'capitals are lowercased (NGINX matches names case-insensitively)', key, value: 'Shop.Example.COM', want: { names: ['shop.example.com'] } },
  { name: 'a one-label wildcard', key, value: '*.example.com', want: { names: ['*.example.com'] } },
  { name: 'a regex: unsupported', key, value: '~^www\\d+\\.example\\.net$', want: 'unsupported' },
  { name: 'a trailing wildcard: unsupported', key, value: 'example.*', want: 'unsupported' },
  { name: 'a semicolon: refused', key, value: 'a.test;return 200', want: 'fail' },
  { name: 'a quote: refused', key, value: 'a.test"', want: 'fail' },
  { name: 'a space inside a name: refused', key, value: 'a test', want: 'fail' },
  { name: 'a newline: refused', key, value: 'a.test\nb.test', want: 'fail' },
  { name: 'only commas: no alias', key, value: ',,', want: { names: [] } },
];

void describe('server-alias: values', () => testValueRows(serverAliasFeature, values));
void describe('server-alias: defaults', () => testDefaults(serverAliasFeature, { names: [] }));
