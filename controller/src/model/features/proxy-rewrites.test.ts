// proxy-cookie-domain, proxy-cookie-path, proxy-redirect-from, proxy-redirect-to, as annotations
// and as the ConfigMap keys of the same names (ingress-nginx v1.15.1: annotations/proxy/main.go:
// cookieDomainRegex ^(off|[chars]+\s+[chars]+)$ on the raw value; URLIsValidRegex on the value
// without its spaces for the path and the redirects; nginx.tmpl prints the trimmed value). The
// proxy parser ignores an invalid value. A value it takes that NGINX refuses (one word where
// NGINX needs `off` or two, a space inside a redirect) is unsupported.

import { describe } from 'node:test';
import type { ProxyRewritesConfig } from '../types.ts';
import { proxyRewritesFeature } from './proxy-rewrites.ts';
import { testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow } from './testing.ts';

const domain = 'proxy-cookie-domain';
const path = 'proxy-cookie-path';
const from = 'proxy-redirect-from';
const to = 'proxy-redirect-to';

const values: ValueRow<ProxyRewritesConfig>[] = [
  { name: 'cookie domain off', key: domain, value: 'off', want: { cookieDomain: null } },
  { name: 'cookie domain localhost example.org (ingress-nginx\'s test)', key: domain, value: 'localhost example.org', want: { cookieDomain: { from: 'localhost', to: 'example.org' } } },
  { name: 'cookie domain with a tab between', key: domain, value: 'a.internal\tb.example', want: { cookieDomain: { from: 'a.internal', to: 'b.example' } } },
  { name: 'cookie domain as a regex', key: domain, value: '~.internal example.org', want: { cookieDomain: { from: '~.internal', to: 'example.org' } } },
  { name: 'cookie domain of one word', key: domain, value: 'example.org', want: 'ignore' },
  { name: 'cookie domain of three words', key: domain, value: 'a b c', want: 'ignore' },
  { name: 'cookie domain with spaces around (ingress-nginx does not trim before its check)', key: domain, value: ' a b', want: 'ignore' },
  { name: 'cookie domain with a variable', key: domain, value: '$host example.org', want: 'ignore' },
  { name: 'cookie domain with ;', key: domain, value: 'a b;', want: 'ignore' },
  { name: 'cookie domain with a newline between', key: domain, value: 'a\nb', want: 'ignore' },
  { name: 'cookie path off', key: path, value: 'off', want: { cookiePath: null } },
  { name: 'cookie path / /foo', key: path, value: '/ /foo', want: { cookiePath: { from: '/', to: '/foo' } } },
  { name: 'cookie path with spaces around and between', key: path, value: '  /one/  /two/ ', want: { cookiePath: { from: '/one/', to: '/two/' } } },
  { name: 'cookie path as a regex', key: path, value: '~/app/ /', want: { cookiePath: { from: '~/app/', to: '/' } } },
  { name: 'cookie path: a regex that does not compile', key: path, value: '~?x /', want: 'unsupported' },
  { name: 'cookie path of one word (ingress-nginx\'s check takes it, NGINX does not)', key: path, value: '/foo', want: 'unsupported' },
  { name: 'cookie path of three words', key: path, value: '/a /b /c', want: 'unsupported' },
  { name: 'cookie path with a tab', key: path, value: '/a\t/b', want: 'ignore' },
  { name: 'cookie path with a quote', key: path, value: '/a "/b"', want: 'ignore' },
  { name: 'cookie path with a brace', key: path, value: '/a /b}', want: 'ignore' },
  { name: 'redirect from off', key: from, value: 'off', want: { redirectFrom: 'off' } },
  { name: 'redirect from default', key: from, value: 'default', want: { redirectFrom: 'default' } },
  { name: 'redirect from a URL (ingress-nginx\'s e2e)', key: from, value: 'http://www.example.com/', want: { redirectFrom: 'http://www.example.com/' } },
  { name: 'redirect from with a query', key: from, value: 'http://a:8080/x?y=1&z=2', want: { redirectFrom: 'http://a:8080/x?y=1&z=2' } },
  { name: 'redirect from trimmed', key: from, value: ' http://a/ ', want: { redirectFrom: 'http://a/' } },
  { name: 'redirect from as a regex', key: from, value: '~http://a.?/', want: { redirectFrom: '~http://a.?/' } },
  { name: 'redirect from: a regex that does not compile', key: from, value: '~a???', want: 'unsupported' },
  { name: 'redirect from with a space inside', key: from, value: 'http://a/ http://b/', want: 'unsupported' },
  { name: 'redirect from with a variable', key: from, value: 'http://$host/', want: 'ignore' },
  { name: 'redirect from with a newline', key: from, value: 'http://a/\nreturn', want: 'ignore' },
  { name: 'redirect from of 1024 characters (the most)', key: from, value: `/${'a'.repeat(1023)}`, want: { redirectFrom: `/${'a'.repeat(1023)}` } },
  { name: 'redirect from of 1025 characters (NGINX: too long parameter past its buffer)', key: from, value: `/${'a'.repeat(1024)}`, want: 'unsupported' },
  { name: 'cookie path with a word of 1025 characters', key: path, value: `/ /${'a'.repeat(1024)}`, want: 'unsupported' },
  { name: 'redirect to a path', key: to, value: '/', want: { redirectTo: '/' } },
  { name: 'redirect to a URL', key: to, value: 'https://example.org/app/', want: { redirectTo: 'https://example.org/app/' } },
  { name: 'redirect to off', key: to, value: 'off', want: { redirectTo: 'off' } },
  { name: 'redirect to with a quote', key: to, value: '"/"', want: 'ignore' },
  { name: 'redirect to with a semicolon', key: to, value: '/;', want: 'ignore' },
];

const overrides: OverrideRow<ProxyRewritesConfig>[] = [
  {
    name: 'no annotation: the ConfigMap\'s cookie path applies', configMap: { [path]: '/ /app/' }, annotations: {},
    global: { cookiePath: { from: '/', to: '/app/' } }, want: null,
  },
  {
    name: 'a redirect-from annotation takes the ConfigMap\'s redirect-to', configMap: { [to]: '/' }, annotations: { [from]: 'http://backend/' },
    global: { redirectTo: '/' }, want: { redirectFrom: 'http://backend/' },
  },
  {
    name: 'off in an annotation beats the ConfigMap', configMap: { [domain]: 'a b' }, annotations: { [domain]: 'off' },
    global: { cookieDomain: { from: 'a', to: 'b' } }, want: { cookieDomain: null },
  },
];

void describe('proxy rewrites: values', () => testValueRows(proxyRewritesFeature, values));
void describe('proxy rewrites: the ConfigMap\'s global value, an Ingress\'s override', () => testOverrideRows(proxyRewritesFeature, overrides));
void describe('proxy rewrites: defaults', () => testDefaults(proxyRewritesFeature, { cookieDomain: null, cookiePath: null, redirectFrom: 'off', redirectTo: 'off' }));
