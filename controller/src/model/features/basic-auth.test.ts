// auth-type, auth-secret, auth-secret-type and auth-realm
// (ingress-nginx v1.15.1: annotations/auth/main.go,
// its validators `basic|digest` and `auth-file|auth-map` (unanchored, spaces removed),
// BasicChars for auth-secret, CharsWithSpace for auth-realm; config.go's default
// false for allow-cross-namespace-resources). A value its validator refuses refuses
// the Ingress; auth-secret is checked only when the Secret is looked up
// (model/credentials.test.ts: a bad name answers 503, as ingress-nginx's denied location).

import { describe } from 'node:test';
import type { BasicAuthConfig } from '../types.ts';
import { basicAuthFeature } from './basic-auth.ts';
import { testDefaults, testValueRows, type ValueRow } from './testing.ts';

const values: ValueRow<BasicAuthConfig>[] = [
  { name: 'basic', key: 'auth-type', value: 'basic', want: { type: 'basic' } },
  { name: 'digest', key: 'auth-type', value: 'digest', want: { type: 'digest' } },
  { name: 'upper case', key: 'auth-type', value: 'BASIC', want: 'fail' },
  { name: 'another scheme', key: 'auth-type', value: 'ntlm', want: 'fail' },
  { name: 'a directive', key: 'auth-type', value: 'basic; return 200', want: 'fail' },
  { name: 'basic with a suffix (ingress-nginx\'s unanchored regex takes it, then reads it as digest)', key: 'auth-type', value: 'basicx', want: 'unsupported' },
  { name: 'basic with a space (passes ingress-nginx\'s validator)', key: 'auth-type', value: 'basic ', want: 'unsupported' },
  { name: 'a Secret name', key: 'auth-secret', value: 'users', want: { secret: { namespace: null, name: 'users' } } },
  { name: 'namespace/name', key: 'auth-secret', value: 'other/users', want: { secret: { namespace: 'other', name: 'users' } } },
  { name: '/name: the Ingress\'s namespace (SplitMetaNamespaceKey)', key: 'auth-secret', value: '/users', want: { secret: { namespace: null, name: 'users' } } },
  { name: 'a dotted name', key: 'auth-secret', value: 'basic.users', want: { secret: { namespace: null, name: 'basic.users' } } },
  ...[['a space', 'a b'], ['a quote', 'a"b'], ['a semicolon', 'users;x'], ['two slashes', 'a/b/c'], ['upper case', 'Users'],
    ['a bad namespace', 'a.b/users'], ['an empty name', 'ns/'], ['a colon', 'ns:users']].map(([what, value]) => ({
    name: `a name with ${what as string}: kept as invalid, not refused (ingress-nginx denies the paths: 503)`, key: 'auth-secret', value, want: { secret: 'invalid' as const },
  })),
  { name: 'auth-file', key: 'auth-secret-type', value: 'auth-file', want: { secretType: 'auth-file' } },
  { name: 'auth-map', key: 'auth-secret-type', value: 'auth-map', want: { secretType: 'auth-map' } },
  { name: 'a secret type with a suffix (passes ingress-nginx\'s unanchored regex)', key: 'auth-secret-type', value: 'auth-files', want: 'unsupported' },
  { name: 'another secret type', key: 'auth-secret-type', value: 'opaque', want: 'fail' },
  { name: 'a realm with spaces', key: 'auth-realm', value: 'Authentication Required - foo', want: { realm: 'Authentication Required - foo' } },
  { name: 'a realm with ~/:._', key: 'auth-realm', value: 'a.b_c~d/e:f', want: { realm: 'a.b_c~d/e:f' } },
  { name: 'a realm with a quote', key: 'auth-realm', value: 'a"b', want: 'fail' },
  { name: 'a realm with a backslash', key: 'auth-realm', value: 'a\\b', want: 'fail' },
  { name: 'a realm with a newline', key: 'auth-realm', value: 'a\nb', want: 'fail' },
  { name: 'a realm with a semicolon', key: 'auth-realm', value: 'a; deny all', want: 'fail' },
  { name: 'a realm with a dollar', key: 'auth-realm', value: '$host', want: 'fail' },
  { name: 'a realm of 257 characters', key: 'auth-realm', value: 'r'.repeat(257), want: 'unsupported' },
];

void describe('basic-auth: values', () => testValueRows(basicAuthFeature, values));
void describe('basic-auth: defaults', () => testDefaults(basicAuthFeature, {
  type: null, secret: null, secretType: 'auth-file', realm: '',
}));
