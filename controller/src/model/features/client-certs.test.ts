// auth-tls-* (ingress-nginx v1.15.1: internal/ingress/annotations/authtls, parser/validators.go).
// ingress-nginx falls back to "on" for an invalid verify-client and to 1 for an invalid or 0
// depth (ignored here with a warning, the same values); an invalid secret, error page,
// pass-certificate or match-cn makes it drop client auth for the Ingress, which would serve
// the host without verification: here the Ingress is refused (fails closed).

import { describe } from 'node:test';
import type { ClientCertsConfig } from '../types.ts';
import { clientCertsFeature } from './client-certs.ts';
import { testDefaults, testValueRows, type ValueRow } from './testing.ts';

const values: ValueRow<ClientCertsConfig>[] = [
  { name: 'secret by name', key: 'auth-tls-secret', value: 'ca-secret', want: { secret: { namespace: null, name: 'ca-secret' } } },
  { name: 'secret by namespace/name', key: 'auth-tls-secret', value: 'shop/ca-secret', want: { secret: { namespace: 'shop', name: 'ca-secret' } } },
  { name: 'secret with two slashes', key: 'auth-tls-secret', value: 'a/b/c', want: 'fail' },
  { name: 'secret with upper case', key: 'auth-tls-secret', value: 'CA', want: 'fail' },
  { name: 'secret with a quote', key: 'auth-tls-secret', value: 'ca";', want: 'fail' },
  { name: 'secret with an empty namespace', key: 'auth-tls-secret', value: '/ca', want: 'fail' },
  { name: 'secret empty: off', key: 'auth-tls-secret', value: '', want: 'ignore' },
  ...(['on', 'off', 'optional', 'optional_no_ca'] as const).map((verify) => ({ name: `verify ${verify}`, key: 'auth-tls-verify-client', value: verify, want: { verify } })),
  { name: 'verify in upper case: on, as ingress-nginx', key: 'auth-tls-verify-client', value: 'ON', want: 'ignore' },
  { name: 'verify with a directive: on', key: 'auth-tls-verify-client', value: 'on; return 200', want: 'ignore' },
  { name: 'depth 2', key: 'auth-tls-verify-depth', value: '2', want: { depth: 2 } },
  { name: 'depth 0 reads as 1', key: 'auth-tls-verify-depth', value: '0', want: { depth: 1 } },
  { name: 'depth 100', key: 'auth-tls-verify-depth', value: '100', want: { depth: 100 } },
  { name: 'depth 101', key: 'auth-tls-verify-depth', value: '101', want: 'ignore' },
  { name: 'depth negative', key: 'auth-tls-verify-depth', value: '-1', want: 'ignore' },
  { name: 'depth not a number', key: 'auth-tls-verify-depth', value: 'two', want: 'ignore' },
  { name: 'error page URL', key: 'auth-tls-error-page', value: 'https://errors.example.com/cert', want: { errorPage: 'https://errors.example.com/cert' } },
  { name: 'error page with a port', key: 'auth-tls-error-page', value: 'http://errors.test:8080/a/b.html', want: { errorPage: 'http://errors.test:8080/a/b.html' } },
  { name: 'error page path (an internal redirect in ingress-nginx): unsupported', key: 'auth-tls-error-page', value: '/cert-error', want: 'unsupported' },
  { name: 'error page without a scheme: unsupported', key: 'auth-tls-error-page', value: 'errors.test/cert', want: 'unsupported' },
  { name: 'error page named location: unsupported', key: 'auth-tls-error-page', value: '@cert', want: 'unsupported' },
  { name: 'error page with a query', key: 'auth-tls-error-page', value: 'https://e.test/?a=b', want: 'fail' },
  { name: 'error page with a space', key: 'auth-tls-error-page', value: 'https://e.test/a b', want: 'fail' },
  { name: 'error page with a directive', key: 'auth-tls-error-page', value: 'https://e.test; return 200', want: 'fail' },
  { name: 'pass-certificate true', key: 'auth-tls-pass-certificate-to-upstream', value: 'true', want: { passCertificate: true } },
  { name: 'pass-certificate false', key: 'auth-tls-pass-certificate-to-upstream', value: 'false', want: { passCertificate: false } },
  { name: 'pass-certificate yes', key: 'auth-tls-pass-certificate-to-upstream', value: 'yes', want: 'fail' },
  { name: 'match-cn a name', key: 'auth-tls-match-cn', value: 'CN=alice', want: { matchCn: 'CN=alice' } },
  { name: 'match-cn alternatives (ingress-nginx\'s e2e test)', key: 'auth-tls-match-cn', value: 'CN=(ingress|foo|bar)', want: { matchCn: 'CN=(ingress|foo|bar)' } },
  { name: 'match-cn anchored class', key: 'auth-tls-match-cn', value: 'CN=[a-z]+\\.example\\.com$', want: { matchCn: 'CN=[a-z]+\\.example\\.com$' } },
  { name: 'match-cn escapes both engines read alike', key: 'auth-tls-match-cn', value: 'CN=\\w+\\.\\d\\s?\\b\\W\\(', want: { matchCn: 'CN=\\w+\\.\\d\\s?\\b\\W\\(' } },
  { name: 'match-cn a JavaScript-only escape (PCRE refuses \\u)', key: 'auth-tls-match-cn', value: 'CN=\\u{41}', want: 'fail' },
  { name: 'match-cn a back-reference', key: 'auth-tls-match-cn', value: 'CN=(a)\\1', want: 'fail' },
  { name: 'match-cn a lookbehind (PCRE refuses variable length)', key: 'auth-tls-match-cn', value: 'CN=(?<=a+)b', want: 'fail' },
  { name: 'match-cn without CN=', key: 'auth-tls-match-cn', value: 'alice', want: 'fail' },
  { name: 'match-cn not a regex', key: 'auth-tls-match-cn', value: 'CN=(', want: 'fail' },
  { name: 'match-cn nested quantifiers (ReDoS)', key: 'auth-tls-match-cn', value: 'CN=(a+)+$', want: 'fail' },
  { name: 'match-cn overlapping alternation (ReDoS)', key: 'auth-tls-match-cn', value: 'CN=(a|a)*$', want: 'fail' },
  { name: 'match-cn with a quote and a directive', key: 'auth-tls-match-cn', value: 'CN=a") { return 200; } #', want: 'fail' },
  { name: 'match-cn with a newline', key: 'auth-tls-match-cn', value: 'CN=a\nb', want: 'fail' },
  { name: 'match-cn non-ASCII', key: 'auth-tls-match-cn', value: 'CN=bücher', want: 'fail' },
  { name: 'match-cn longer than 1024', key: 'auth-tls-match-cn', value: `CN=${'a'.repeat(1022)}`, want: 'fail' },
];

void describe('client-certs feature', () => {
  testDefaults(clientCertsFeature, { secret: null, verify: 'on', depth: 1, errorPage: null, passCertificate: false, matchCn: null });
  testValueRows(clientCertsFeature, values);
});
