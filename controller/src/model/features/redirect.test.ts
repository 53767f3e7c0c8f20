// Redirects as ingress-nginx v1.15.1 reads them: annotations/redirect (permanent-redirect,
// temporal-redirect and their codes, relative-redirects; URLIsValidRegex, the code ranges,
// temporal first, isValidURL on the temporal URL only), annotations/rewrite (app-root: a request
// URI that is not absolute, else ignored; preserve-trailing-slash: the ConfigMap's value when
// invalid) and annotations/portinredirect (use-port-in-redirects, likewise). Each accepted URL is
// held as its parsed parts, never as the annotation's text.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { RedirectConfig, RedirectTarget } from '../types.ts';
import { redirectFeature } from './redirect.ts';
import { parseRedirectTarget, redirectTargetText } from './redirect-url.ts';
import { ingressConfig, parseAnnotations, testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow } from './testing.ts';

function url(scheme: 'http' | 'https' | null, host: string | null, port: number | null, path: string, query: string | null = null): RedirectTarget {
  return { scheme, host, port, path, query };
}

const GOOGLE = url('https', 'www.google.com', null, '');

const values: ValueRow<RedirectConfig>[] = [
  { name: 'permanent-redirect: an https URL without a path', key: 'permanent-redirect', value: 'https://www.google.com', want: { permanent: GOOGLE } },
  {
    name: 'permanent-redirect: port, path and query', key: 'permanent-redirect', value: 'http://redirect.example.com:8080/a/b?x=1&y=2,3',
    want: { permanent: url('http', 'redirect.example.com', 8080, '/a/b', 'x=1&y=2,3') },
  },
  { name: 'permanent-redirect: a path (relative redirect, as ingress-nginx\'s e2e)', key: 'permanent-redirect', value: '/new-location', want: { permanent: url(null, null, null, '/new-location') } },
  { name: 'permanent-redirect: a space (outside URLIsValidRegex)', key: 'permanent-redirect', value: 'https://a.test/ x', want: 'fail' },
  { name: 'permanent-redirect: a directive smuggled in', key: 'permanent-redirect', value: 'https://a.test/;return 200 x', want: 'fail' },
  { name: 'permanent-redirect: a variable', key: 'permanent-redirect', value: 'https://$host/x', want: 'fail' },
  { name: 'permanent-redirect: a quote', key: 'permanent-redirect', value: 'https://a.test/"x', want: 'fail' },
  { name: 'permanent-redirect: a newline', key: 'permanent-redirect', value: 'https://a.test/\nx', want: 'fail' },
  { name: 'permanent-redirect: percent-encoding (outside URLIsValidRegex)', key: 'permanent-redirect', value: 'https://a.test/%20', want: 'fail' },
  { name: 'permanent-redirect: a scheme other than http(s)', key: 'permanent-redirect', value: 'ftp://a.test/x', want: 'unsupported' },
  { name: 'permanent-redirect: a relative word', key: 'permanent-redirect', value: 'elsewhere', want: 'unsupported' },
  { name: 'permanent-redirect: protocol-relative', key: 'permanent-redirect', value: '//evil.test/x', want: 'unsupported' },
  { name: 'permanent-redirect: port 0', key: 'permanent-redirect', value: 'http://a.test:0/', want: 'unsupported' },
  { name: 'permanent-redirect: port 70000', key: 'permanent-redirect', value: 'http://a.test:70000/', want: 'unsupported' },
  { name: 'permanent-redirect: an empty label', key: 'permanent-redirect', value: 'http://a..test/', want: 'unsupported' },
  { name: 'permanent-redirect: empty (ignored, as every empty value)', key: 'permanent-redirect', value: '', want: 'ignore' },
  { name: 'permanent-redirect-code 308', key: 'permanent-redirect-code', value: '308', want: { permanentCode: 308 } },
  { name: 'permanent-redirect-code 300 (the range\'s start)', key: 'permanent-redirect-code', value: '300', want: { permanentCode: 300 } },
  { name: 'permanent-redirect-code 309: out of range is 301', key: 'permanent-redirect-code', value: '309', want: { permanentCode: 301 } },
  { name: 'permanent-redirect-code 200: out of range is 301', key: 'permanent-redirect-code', value: '200', want: { permanentCode: 301 } },
  { name: 'permanent-redirect-code -302: out of range is 301', key: 'permanent-redirect-code', value: '-302', want: { permanentCode: 301 } },
  { name: 'permanent-redirect-code +302 (Atoi takes the sign)', key: 'permanent-redirect-code', value: '+302', want: { permanentCode: 302 } },
  { name: 'permanent-redirect-code 3O1: no integer', key: 'permanent-redirect-code', value: '3O1', want: 'fail' },
  { name: 'permanent-redirect-code 0x12d: no integer', key: 'permanent-redirect-code', value: '0x12d', want: 'fail' },
  { name: 'temporal-redirect: an https URL', key: 'temporal-redirect', value: 'https://www.google.com', want: { temporal: GOOGLE } },
  { name: 'temporal-redirect: a hostile value', key: 'temporal-redirect', value: 'https://a.test/}\nlocation', want: 'fail' },
  { name: 'temporal-redirect-code 307', key: 'temporal-redirect-code', value: '307', want: { temporalCode: 307 } },
  { name: 'temporal-redirect-code 308: out of its range (300..307) is 302', key: 'temporal-redirect-code', value: '308', want: { temporalCode: 302 } },
  { name: 'temporal-redirect-code x: no integer', key: 'temporal-redirect-code', value: 'x', want: 'fail' },
  { name: 'relative-redirects true', key: 'relative-redirects', value: 'true', want: { relative: true } },
  { name: 'relative-redirects yes: refused (GetBoolAnnotation\'s validation error)', key: 'relative-redirects', value: 'yes', want: 'fail' },
  { name: 'use-port-in-redirects true', key: 'use-port-in-redirects', value: 'true', want: { usePort: true } },
  { name: 'use-port-in-redirects on: the default', key: 'use-port-in-redirects', value: 'on', want: 'ignore' },
  { name: 'preserve-trailing-slash true', key: 'preserve-trailing-slash', value: 'true', want: { preserveTrailingSlash: true } },
  { name: 'preserve-trailing-slash 1', key: 'preserve-trailing-slash', value: '1', want: { preserveTrailingSlash: true } },
  { name: 'preserve-trailing-slash maybe: the default', key: 'preserve-trailing-slash', value: 'maybe', want: 'ignore' },
  { name: 'from-to-www-redirect true', key: 'from-to-www-redirect', value: 'true', want: { fromToWww: true } },
  { name: 'from-to-www-redirect yes: refused (GetBoolAnnotation\'s validation error)', key: 'from-to-www-redirect', value: 'yes', want: 'fail' },
  { name: 'app-root /foo', key: 'app-root', value: '/foo', want: { appRoot: '/foo' } },
  { name: 'app-root with dots, dashes and colons', key: 'app-root', value: '/app-v1.2/a:b/', want: { appRoot: '/app-v1.2/a:b/' } },
  { name: 'app-root foo: not a request URI, ignored', key: 'app-root', value: 'foo', want: 'ignore' },
  { name: 'app-root an absolute URL: ignored (only paths)', key: 'app-root', value: 'http://a.test/foo', want: 'ignore' },
  { name: 'app-root with a query: ignored (outside its grammar)', key: 'app-root', value: '/foo?x=1', want: 'ignore' },
  { name: 'app-root with a directive: ignored', key: 'app-root', value: '/foo;return 200', want: 'ignore' },
  { name: 'app-root with a variable: unsupported', key: 'app-root', value: '/foo$host', want: 'unsupported' },
];

void describe('redirect: values', () => testValueRows(redirectFeature, values));
void describe('redirect: defaults', () => testDefaults(redirectFeature, {
  permanent: null, permanentCode: 301, temporal: null, temporalCode: 302, relative: false,
  usePort: false, preserveTrailingSlash: false, appRoot: null, fromToWww: false,
}));

const overrides: OverrideRow<RedirectConfig>[] = [
  {
    name: 'use-port-in-redirects: the annotation beats the ConfigMap', configMap: { 'use-port-in-redirects': 'true' },
    annotations: { 'use-port-in-redirects': 'false' }, global: { usePort: true }, want: { usePort: false },
  },
  {
    name: 'preserve-trailing-slash invalid: the ConfigMap\'s value stays', configMap: { 'preserve-trailing-slash': 'true' },
    annotations: { 'preserve-trailing-slash': 'nope' }, global: { preserveTrailingSlash: true }, want: {}, ignored: ['preserve-trailing-slash'],
  },
  { name: 'relative-redirects from the ConfigMap', configMap: { 'relative-redirects': 'true' }, annotations: {}, global: { relative: true }, want: null },
];
void describe('redirect: the ConfigMap, an Ingress over it', () => testOverrideRows(redirectFeature, overrides));

void describe('redirect: keys read together', () => {
  const rows: { name: string; annotations: Record<string, string>; want: Partial<RedirectConfig> }[] = [
    {
      name: 'temporal-redirect wins over permanent-redirect (both kept, the template prints temporal)',
      annotations: { 'permanent-redirect': 'https://p.test', 'temporal-redirect': 'https://t.test' },
      want: { permanent: url('https', 'p.test', null, ''), temporal: url('https', 't.test', null, '') },
    },
    {
      name: 'a temporal path (isValidURL: not http) drops the redirect group, as ingress-nginx\'s extractor',
      annotations: { 'temporal-redirect': '/t', 'permanent-redirect': 'https://p.test', 'relative-redirects': 'true', 'use-port-in-redirects': 'true' },
      want: { usePort: true },
    },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const parsed = parseAnnotations(row.annotations);
      assert.equal(parsed.ok, true);
      if (!parsed.ok) return;
      assert.deepEqual(ingressConfig(parsed, 'redirect'), { ...redirectFeature.defaults, ...row.want });
    });
  }
});

void describe('redirect URLs: the parts print back as the annotation was written', () => {
  for (const raw of ['https://www.google.com', 'http://redirect.example.com', 'http://a.test:8080/x/?q=1&r=2', '/new-location', '/a?b', 'https://a.test?x']) {
    void it(raw, () => {
      const parsed = parseRedirectTarget(raw);
      assert.ok(parsed.ok);
      if (parsed.ok) assert.equal(redirectTargetText(parsed.value), raw);
    });
  }
});
