// enable-cors and cors-*, as ingress-nginx v1.15.1 reads them
// (internal/ingress/annotations/cors and its test, test/e2e/annotations/cors.go):
// invalid values are ignored with a warning and the default applies (for
// cors-allow-origin: `*`); origins that fail corsOriginRegex inside a valid
// list are skipped. Values ingress-nginx would paste into a header with a tab
// are unsupported.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { isSafePattern } from 'redos-detector';
import type { CorsConfig } from '../types.ts';
import { corsFeature, DEFAULT_HEADERS, DEFAULT_MAX_AGE, DEFAULT_METHODS, MAX_LIST_LENGTH, MAX_ORIGINS, originRegex } from './cors.ts';
import { testDefaults, testValueRows, type ValueRow } from './testing.ts';

const origin = 'cors-allow-origin';
const methods = 'cors-allow-methods';
const headers = 'cors-allow-headers';
const expose = 'cors-expose-headers';

const values: ValueRow<CorsConfig>[] = [
  { name: 'enable-cors true', key: 'enable-cors', value: 'true', want: { enabled: true } },
  { name: 'enable-cors in ParseBool\'s spelling', key: 'enable-cors', value: 'T', want: { enabled: true } },
  { name: 'enable-cors invalid: false', key: 'enable-cors', value: 'yes', want: 'ignore' },
  { name: 'one origin with a port (e2e "should allow origin for cors")', key: origin, value: 'https://origin.cors.com:8080', want: { allowOrigin: ['https://origin.cors.com:8080'] } },
  { name: 'origins with spaces', key: origin, value: 'https://origin.cors.com:8080, https://origin2.cors.com', want: { allowOrigin: ['https://origin.cors.com:8080', 'https://origin2.cors.com'] } },
  { name: 'wildcard subdomains', key: origin, value: 'http://*.origin.cors.com, http://*.origin.com:8080', want: { allowOrigin: ['http://*.origin.cors.com', 'http://*.origin.com:8080'] } },
  { name: 'other schemes (tauri://)', key: origin, value: 'test://localhost, tauri://localhost:3000', want: { allowOrigin: ['test://localhost', 'tauri://localhost:3000'] } },
  { name: 'null', key: origin, value: 'null', want: { allowOrigin: ['null'] } },
  { name: '*', key: origin, value: '*', want: { allowOrigin: ['*'] } },
  { name: 'trailing and empty items skipped', key: origin, value: 'https://origin-123.cors.com:8080,   ,https://origin-321.cors.com:8080,', want: { allowOrigin: ['https://origin-123.cors.com:8080', 'https://origin-321.cors.com:8080'] } },
  { name: 'an item without a scheme is skipped (valid list, corsOriginRegex fails it)', key: origin, value: 'foo.bar.com, https://a.com', want: { allowOrigin: ['https://a.com'] } },
  { name: 'only items without a scheme: no origin matches', key: origin, value: 'foo.bar.com', want: { allowOrigin: [] } },
  { name: '"*, foo.bar.com" is invalid: * (e2e "with extra domain")', key: origin, value: '*, foo.bar.com', want: 'ignore' },
  { name: 'a path is invalid: *', key: origin, value: 'https://a.com/path', want: 'ignore' },
  { name: 'an upper-case scheme is invalid', key: origin, value: 'HTTPS://a.com', want: 'ignore' },
  { name: 'a regex is invalid', key: origin, value: 'https://.*\\.com', want: 'ignore' },
  { name: 'a newline is invalid', key: origin, value: 'https://a.com\nhttps://b.com', want: 'ignore' },
  { name: 'a variable is invalid', key: origin, value: '$http_origin', want: 'ignore' },
  { name: 'origins longer than NGINX reads in one token', key: origin, value: Array.from({ length: 20 }, (_, i) => `https://${'a'.repeat(200)}${i}.com`).join(','), want: 'unsupported' },
  { name: `more than ${MAX_ORIGINS} origins`, key: origin, value: Array.from({ length: MAX_ORIGINS + 1 }, (_, i) => `https://o${i}.com`).join(','), want: 'unsupported' },
  { name: 'methods (e2e "only allow POST, GET")', key: methods, value: 'POST, GET', want: { allowMethods: 'POST, GET' } },
  { name: 'methods without spaces', key: methods, value: 'GET,POST', want: { allowMethods: 'GET,POST' } },
  { name: 'methods with two spaces: invalid as read (ingress-nginx\'s second check)', key: methods, value: 'GET,  POST', want: 'ignore' },
  { name: 'methods with a digit', key: methods, value: 'GET, P0ST', want: 'ignore' },
  { name: 'methods with a quote', key: methods, value: 'GET\'; add_header X 1', want: 'ignore' },
  { name: 'methods with a tab ingress-nginx would paste', key: methods, value: 'GET,\tPOST', want: 'unsupported' },
  { name: 'headers (e2e "allow headers")', key: headers, value: 'DNT, User-Agent', want: { allowHeaders: 'DNT, User-Agent' } },
  { name: 'headers with _', key: headers, value: 'X_Custom,X-Other', want: { allowHeaders: 'X_Custom,X-Other' } },
  { name: 'headers with *: invalid', key: headers, value: '*', want: 'ignore' },
  { name: `headers longer than ${MAX_LIST_LENGTH} characters`, key: headers, value: 'X-Custom,'.repeat(120), want: 'unsupported' },
  { name: `methods of ${MAX_LIST_LENGTH} characters (the most)`, key: methods, value: 'A'.repeat(MAX_LIST_LENGTH), want: { allowMethods: 'A'.repeat(MAX_LIST_LENGTH) } },
  { name: `methods of ${MAX_LIST_LENGTH + 1} characters`, key: methods, value: 'A'.repeat(MAX_LIST_LENGTH + 1), want: 'unsupported' },
  { name: 'headers with ;: invalid', key: headers, value: 'X-A;X-B', want: 'ignore' },
  { name: 'expose headers (e2e)', key: expose, value: 'X-CustomResponseHeader, X-CustomSecondHeader', want: { exposeHeaders: 'X-CustomResponseHeader, X-CustomSecondHeader' } },
  { name: 'expose *', key: expose, value: '*', want: { exposeHeaders: '*' } },
  { name: 'expose with a dot: invalid', key: expose, value: 'X.A', want: 'ignore' },
  { name: 'allow-credentials false', key: 'cors-allow-credentials', value: 'false', want: { allowCredentials: false } },
  { name: 'allow-credentials invalid: true', key: 'cors-allow-credentials', value: 'nope', want: 'ignore' },
  { name: 'max-age', key: 'cors-max-age', value: '86400', want: { maxAge: 86_400 } },
  { name: 'max-age -1 (browsers: no caching)', key: 'cors-max-age', value: '-1', want: { maxAge: -1 } },
  { name: 'max-age with a unit: invalid', key: 'cors-max-age', value: '1d', want: 'ignore' },
  { name: 'max-age past 2^53', key: 'cors-max-age', value: '9007199254740993', want: 'unsupported' },
];

void describe('cors: values', () => testValueRows(corsFeature, values));
void describe('cors: defaults', () => testDefaults(corsFeature, {
  enabled: false, allowOrigin: ['*'], allowMethods: DEFAULT_METHODS, allowHeaders: DEFAULT_HEADERS, exposeHeaders: '', allowCredentials: true, maxAge: DEFAULT_MAX_AGE,
}));

void describe('originRegex: built from escaped parts, anchored, linear', () => {
  const rows: { name: string; origins: string[]; match: string[]; miss: string[] }[] = [
    { name: 'one origin, exactly (port included)', origins: ['https://origin.cors.com:8080'], match: ['https://origin.cors.com:8080', 'HTTPS://ORIGIN.CORS.COM:8080'], miss: ['https://origin.cors.com', 'https://origin.cors.com:80801', 'http://evilhttps://origin.cors.com:8080', 'https://originxcors.com:8080'] },
    { name: 'a wildcard is one label', origins: ['http://*.origin.cors.com'], match: ['http://foo.origin.cors.com', 'http://bar-foo.origin.cors.com'], miss: ['http://origin.cors.com', 'http://a.b.origin.cors.com', 'http://foo.origin.cors.com.evil.com', 'http://foo.origin.cors.com:8080'] },
    { name: 'a wildcard with a port', origins: ['http://*.origin.com:8080'], match: ['http://a.origin.com:8080'], miss: ['http://a.origin.com'] },
    { name: 'several, and null', origins: ['https://a.com', 'null', 'tauri://localhost:3000'], match: ['https://a.com', 'null', 'tauri://localhost:3000'], miss: ['https://b.com', 'nullx', ''] },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const source = originRegex(row.origins);
      assert.doesNotMatch(source, /\\/u, 'no backslash reaches nginx.conf');
      const regex = new RegExp(source, 'i');
      for (const text of row.match) assert.match(text, regex);
      for (const text of row.miss) assert.doesNotMatch(text, regex);
      assert.equal(isSafePattern(source, { caseInsensitive: true }).safe, true, 'no catastrophic backtracking');
    });
  }
});
