// auth-* and global-auth-* (ingress-nginx v1.15.1: annotations/authreq, authreqglobal,
// parser/validators.go URLWithNginxVariableRegex / URLIsValidRegex / HeadersVariable,
// template/configmap.go). Invalid auth-url, -method, -response-headers, -request-redirect,
// -always-set-cookie refuse the Ingress there (validation error or location denied);
// invalid auth-signin, -signin-redirect-param and enable-global-auth are ignored with a
// warning. What ingress-nginx takes that these grammars do not (NGINX variables, spaces,
// commas in a URL) is unsupported: the Ingress is not served. A refused global-auth-url
// serves no Ingress (parse.test.ts).

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { AuthUrl, ExternalAuthConfig } from '../types.ts';
import { externalAuthFeature, externalAuthName } from './external-auth.ts';
import { signinRedirect } from './external-auth-url.ts';
import { annotationField, described, ingressConfig, parseAnnotations, readConfigMap, testDefaults, testValueRows, type ValueRow } from './testing.ts';

const url = (host: string, path = '', port: number | null = null, query: string | null = null, scheme: 'http' | 'https' = 'http'): AuthUrl =>
  ({ scheme, host, port, path, query });

/** Rows whose Ingress also has an auth-url (the other auth-* need one). */
const withUrl = { 'auth-url': 'http://auth.example/verify' };
const base: Partial<ExternalAuthConfig> = {
  ownUrl: url('auth.example', '/verify'), url: url('auth.example', '/verify'), global: false,
  name: externalAuthName({ url: url('auth.example', '/verify'), method: null, requestRedirect: null, cacheKey: null, cacheDuration: ['200 202 401 5m'] }),
};

const values: ValueRow<ExternalAuthConfig>[] = [
  { name: 'oauth2-proxy in the cluster', key: 'auth-url', value: 'http://oauth2-proxy.auth.svc.cluster.local:4180/oauth2/auth',
    want: { ownUrl: url('oauth2-proxy.auth.svc.cluster.local', '/oauth2/auth', 4180), url: url('oauth2-proxy.auth.svc.cluster.local', '/oauth2/auth', 4180) } },
  { name: 'https with a query (ingress-nginx\'s e2e test)', key: 'auth-url', value: 'https://httpbin.org/basic-auth/user/password?a=b&c=d',
    want: { ownUrl: url('httpbin.org', '/basic-auth/user/password', null, 'a=b&c=d', 'https'), url: url('httpbin.org', '/basic-auth/user/password', null, 'a=b&c=d', 'https') } },
  { name: 'an IPv4 address and port, no path', key: 'auth-url', value: ' http://127.0.0.1:9000 ', want: { ownUrl: url('127.0.0.1', '', 9000), url: url('127.0.0.1', '', 9000) } },
  { name: 'an IPv6 address', key: 'auth-url', value: 'http://[::1]:9000/auth', want: { ownUrl: url('[::1]', '/auth', 9000), url: url('[::1]', '/auth', 9000) } },
  { name: 'a variable in the host (oauth2-proxy\'s docs: ingress-nginx takes it)', key: 'auth-url', value: 'https://$host/oauth2/auth', want: 'unsupported' },
  { name: 'a variable in the query', key: 'auth-url', value: 'http://auth/verify?uri=$request_uri', want: 'unsupported' },
  { name: 'a space inside', key: 'auth-url', value: 'http://auth/a b', want: 'unsupported' },
  { name: 'a comma in the path', key: 'auth-url', value: 'http://auth/a,b', want: 'unsupported' },
  { name: 'another scheme', key: 'auth-url', value: 'ftp://auth/verify', want: 'unsupported' },
  { name: 'port 0', key: 'auth-url', value: 'http://auth:0/verify', want: 'unsupported' },
  { name: 'a label starting with -', key: 'auth-url', value: 'http://-auth/verify', want: 'unsupported' },
  { name: 'digits that are no IPv4 address', key: 'auth-url', value: 'http://999.1.1.1/verify', want: 'unsupported' },
  { name: 'no scheme (ingress-nginx: location denied, 503)', key: 'auth-url', value: 'auth.example/verify', want: 'fail' },
  { name: 'a quote (CVE-2025-24514\'s way in)', key: 'auth-url', value: 'http://auth/"; return 200; #', want: 'fail' },
  { name: 'a brace', key: 'auth-url', value: 'http://auth/{x}', want: 'fail' },
  { name: 'a semicolon', key: 'auth-url', value: 'http://auth/a;b', want: 'fail' },
  { name: 'a newline', key: 'auth-url', value: 'http://auth/\nproxy_pass http://evil', want: 'fail' },
  { name: 'a percent escape', key: 'auth-url', value: 'http://auth/a%20b', want: 'fail' },
  { name: 'the global auth service', key: 'global-auth-url', value: 'http://auth.example/verify', want: { url: url('auth.example', '/verify'), global: true, name: externalAuthName({ url: url('auth.example', '/verify'), method: null, requestRedirect: null, cacheKey: null, cacheDuration: ['200 202 401 5m'] }) } },
  { name: 'a method', key: 'auth-method', value: 'POST', with: withUrl, base, want: { method: 'POST' } },
  { name: 'a method in lower case (ingress-nginx refuses it)', key: 'auth-method', value: 'post', with: withUrl, base, want: 'fail' },
  { name: 'no such method', key: 'auth-method', value: 'PROPFIND', with: withUrl, base, want: 'fail' },
  { name: 'a global method', key: 'global-auth-method', value: 'GET', want: { method: 'GET' } },
  { name: 'a sign-in page', key: 'auth-signin', value: 'https://login.example/start', with: withUrl, base, want: { signin: 'https://login.example/start' } },
  { name: 'oauth2-proxy\'s sign-in with allowed variables', key: 'auth-signin', value: 'https://$host/oauth2/start?rd=$escaped_request_uri', with: withUrl, base,
    want: { signin: 'https://$host/oauth2/start?rd=$escaped_request_uri' } },
  { name: 'a sign-in with a variable not allowed', key: 'auth-signin', value: 'https://login.example/start?s=$cookie_session', with: withUrl, base, want: 'unsupported' },
  { name: 'a variable glued to an allowed one', key: 'auth-signin', value: 'https://$hostx/start', with: withUrl, base, want: 'unsupported' },
  { name: 'a sign-in with a quote (ignored there)', key: 'auth-signin', value: 'https://login/"x', with: withUrl, base, want: 'ignore' },
  { name: 'a global sign-in page', key: 'global-auth-signin', value: 'https://login.example/start', want: { signin: 'https://login.example/start' } },
  { name: 'a redirect parameter', key: 'auth-signin-redirect-param', value: 'next', with: withUrl, base, want: { signinRedirectParam: 'next' } },
  { name: 'a redirect parameter with / (ingress-nginx takes it)', key: 'auth-signin-redirect-param', value: 'a/b', with: withUrl, base, want: 'unsupported' },
  { name: 'a redirect parameter with a quote', key: 'auth-signin-redirect-param', value: 'a"b', with: withUrl, base, want: 'ignore' },
  { name: 'response headers, trimmed', key: 'auth-response-headers', value: 'X-User, X-Auth-Request-Email ,', with: withUrl, base, want: { responseHeaders: ['X-User', 'X-Auth-Request-Email'] } },
  { name: 'a header name with a space inside', key: 'auth-response-headers', value: 'X User', with: withUrl, base, want: 'fail' },
  { name: 'a header name with a colon', key: 'auth-response-headers', value: 'X-User:1', with: withUrl, base, want: 'fail' },
  { name: 'a header the controller sets itself', key: 'auth-response-headers', value: 'X-User, Host', with: withUrl, base, want: 'unsupported' },
  { name: 'more than 32 headers', key: 'auth-response-headers', value: Array.from({ length: 33 }, (_, i) => `X-H${i}`).join(','), with: withUrl, base, want: 'unsupported' },
  { name: 'a response header of 46 characters', key: 'auth-response-headers', value: `X-${'a'.repeat(44)}`, with: withUrl, base, want: { responseHeaders: [`X-${'a'.repeat(44)}`] } },
  { name: 'a response header of 47 characters: NGINX\'s header hash would refuse it', key: 'auth-response-headers', value: `X-${'a'.repeat(45)}`, with: withUrl, base, want: 'unsupported' },
  { name: 'global response headers', key: 'global-auth-response-headers', value: 'X-User', want: { responseHeaders: ['X-User'] } },
  { name: 'a request redirect', key: 'auth-request-redirect', value: 'https://app.example/back?x=1', with: withUrl, base, want: { requestRedirect: 'https://app.example/back?x=1' } },
  { name: 'a request redirect with a variable', key: 'auth-request-redirect', value: '$request_uri', with: withUrl, base, want: 'fail' },
  { name: 'a cache key of allowed variables', key: 'auth-cache-key', value: '$remote_user$http_authorization', with: withUrl, base, want: { cacheKey: '$remote_user$http_authorization' } },
  { name: 'a cache key with braces and literals: the braces dropped (render lets none in)', key: 'auth-cache-key', value: 'k-${cookie_session}-1${host}', with: withUrl, base, want: { cacheKey: 'k-$cookie_session-1$host' } },
  { name: 'braces ending a variable before a letter, digit or _ (only braces can say that)', key: 'auth-cache-key', value: 'k-${cookie_session}_1', with: withUrl, base, want: 'unsupported' },
  { name: 'a cache key with a variable not allowed', key: 'auth-cache-key', value: '$request_body', with: withUrl, base, want: 'unsupported' },
  { name: 'a cache key variable glued to a longer name', key: 'auth-cache-key', value: '$remote_userx', with: withUrl, base, want: 'unsupported' },
  { name: 'a cache key with an unclosed brace', key: 'auth-cache-key', value: '${host', with: withUrl, base, want: 'unsupported' },
  { name: 'a cache key with a quote (ignored there)', key: 'auth-cache-key', value: '$host"', with: withUrl, base, want: 'ignore' },
  { name: 'a global cache key', key: 'global-auth-cache-key', value: '$http_authorization', want: { cacheKey: '$http_authorization' } },
  { name: 'keepalive connections', key: 'auth-keepalive', value: '10', with: withUrl, base, want: { keepalive: 10 } },
  { name: 'keepalive negative (ingress-nginx: 0)', key: 'auth-keepalive', value: '-5', with: withUrl, base, want: { keepalive: 0 } },
  { name: 'keepalive with a plus sign (strconv.Atoi)', key: 'auth-keepalive', value: '+3', with: withUrl, base, want: { keepalive: 3 } },
  { name: 'keepalive above 10000 (ingress-nginx takes it)', key: 'auth-keepalive', value: '10001', with: withUrl, base, want: 'unsupported' },
  { name: 'keepalive not an integer (ignored there)', key: 'auth-keepalive', value: '10; proxy_pass http://evil', with: withUrl, base, want: 'ignore' },
  { name: 'keepalive beyond int64', key: 'auth-keepalive', value: '99999999999999999999', with: withUrl, base, want: 'ignore' },
  { name: 'keepalive requests alone: keepalive stays off', key: 'auth-keepalive-requests', value: '50', with: withUrl, base, want: { keepaliveRequests: 50 } },
  { name: 'keepalive requests above 2^31-1', key: 'auth-keepalive-requests', value: '2147483648', with: withUrl, base, want: 'unsupported' },
  { name: 'keepalive requests a float', key: 'auth-keepalive-requests', value: '1.5', with: withUrl, base, want: 'ignore' },
  { name: 'keepalive timeout 0', key: 'auth-keepalive-timeout', value: '0', with: withUrl, base, want: { keepaliveTimeout: 0 } },
  { name: 'keepalive timeout with a unit (strconv.Atoi refuses it)', key: 'auth-keepalive-timeout', value: '60s', with: withUrl, base, want: 'ignore' },
  { name: 'keepalive timeout of 25 days', key: 'auth-keepalive-timeout', value: '2160000', with: withUrl, base, want: 'unsupported' },
  { name: 'share-vars true', key: 'auth-keepalive-share-vars', value: 'true', with: withUrl, base, want: { keepaliveShareVars: true } },
  { name: 'share-vars not a boolean', key: 'auth-keepalive-share-vars', value: 'yes', with: withUrl, base, want: 'ignore' },
  { name: 'auth-proxy-set-headers by name', key: 'auth-proxy-set-headers', value: 'auth-headers', with: withUrl, base, want: { proxySetHeadersConfigMap: 'auth-headers' } },
  { name: 'auth-proxy-set-headers with a namespace, trimmed', key: 'auth-proxy-set-headers', value: ' auth/auth-headers ', with: withUrl, base, want: { proxySetHeadersConfigMap: 'auth/auth-headers' } },
  { name: 'auth-proxy-set-headers naming no valid object (ingress-nginx takes it)', key: 'auth-proxy-set-headers', value: 'Auth_Headers', with: withUrl, base, want: 'unsupported' },
  { name: 'auth-proxy-set-headers with a quote', key: 'auth-proxy-set-headers', value: 'a"; proxy_pass x', with: withUrl, base, want: 'fail' },
  { name: 'cache durations', key: 'auth-cache-duration', value: '200 202 10m, 401 30s', with: withUrl, base, want: { cacheDuration: ['200 202 10m', '401 30s'] } },
  { name: 'a duration alone', key: 'auth-cache-duration', value: '5m', with: withUrl, base, want: { cacheDuration: ['5m'] } },
  { name: 'two times in one entry (NGINX takes one)', key: 'auth-cache-duration', value: '200 1h 30m', with: withUrl, base, want: 'unsupported' },
  { name: 'a status code out of range', key: 'auth-cache-duration', value: '999 5m', with: withUrl, base, want: 'unsupported' },
  { name: 'no time', key: 'auth-cache-duration', value: '200 202', with: withUrl, base, want: 'fail' },
  { name: 'a semicolon', key: 'auth-cache-duration', value: '200 5m; proxy_pass x', with: withUrl, base, want: 'fail' },
  { name: 'always set cookie', key: 'auth-always-set-cookie', value: 'true', with: withUrl, base, want: { alwaysSetCookie: true } },
  { name: 'always set cookie, not a boolean', key: 'auth-always-set-cookie', value: 'yes', with: withUrl, base, want: 'fail' },
  { name: 'opting out of global auth', key: 'enable-global-auth', value: 'false', want: { enableGlobal: false } },
  { name: 'enable-global-auth not a boolean: the default (true)', key: 'enable-global-auth', value: 'nope', want: 'ignore' },
  { name: 'no-auth-locations', key: 'no-auth-locations', value: '/public, /.well-known/acme-challenge', want: { noAuthLocations: ['/public', '/.well-known/acme-challenge'] } },
  { name: 'no-auth-locations with a quote', key: 'no-auth-locations', value: '/a"b', want: 'fail' },
];

/** `name` is derived: the rows above leave it out where the config has a url; fill it in. */
function named(rows: ValueRow<ExternalAuthConfig>[]): ValueRow<ExternalAuthConfig>[] {
  return rows.map((row) => {
    if (typeof row.want === 'string' || row.want.name !== undefined) return row;
    const config = { ...externalAuthFeature.defaults, ...row.base, ...row.want };
    const global = row.key.startsWith('global-') || row.key === 'no-auth-locations' || row.key === 'enable-global-auth';
    const fixed = global ? { ...config } : { ...config, global: false };
    return { ...row, want: { ...row.want, ...(global ? {} : { global: false }), name: externalAuthName(fixed) }, base: row.base };
  });
}

void describe('external auth: values', () => testValueRows(externalAuthFeature, named(values)));
void describe('external auth: defaults', () => testDefaults(externalAuthFeature, {
  url: null, ownUrl: null, method: null, signin: null, signinRedirectParam: 'rd', responseHeaders: [], requestRedirect: null,
  cacheKey: null, cacheDuration: ['200 202 401 5m'], alwaysSetCookie: false, keepalive: 0, keepaliveRequests: 1000, keepaliveTimeout: 60, keepaliveShareVars: false,
  proxySetHeadersConfigMap: null, proxySetHeaders: [], proxySetHeadersDenied: false, global: false, enableGlobal: true, noAuthLocations: ['/.well-known/acme-challenge'], name: null,
}));

void describe('external auth: the global config and an Ingress\'s own', () => {
  const global = readConfigMap({
    'global-auth-url': 'http://global.example/verify', 'global-auth-method': 'POST', 'global-auth-signin': 'https://login.example/',
    'global-auth-response-headers': 'X-User', 'no-auth-locations': '/public',
  });
  const rows: { name: string; annotations: Record<string, string>; want: Partial<ExternalAuthConfig> | 'refused' | 'global' }[] = [
    { name: 'no annotation: the global auth applies', annotations: {}, want: 'global' },
    { name: 'an own auth-url: its keys alone, the global ones at their defaults', annotations: { 'auth-url': 'http://own.example/check' },
      want: { url: url('own.example', '/check'), ownUrl: url('own.example', '/check'), method: null, signin: null, responseHeaders: [], global: false, noAuthLocations: ['/public'] } },
    { name: 'an empty auth-url (ingress-nginx ignores it): the global auth applies', annotations: { 'auth-url': '' }, want: { url: url('global.example', '/verify'), global: true } },
    { name: 'opting out', annotations: { 'enable-global-auth': 'false' }, want: { enableGlobal: false, global: true } },
    { name: 'auth-* without auth-url: refused', annotations: { 'auth-signin': 'https://login.example/' }, want: 'refused' },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      assert.deepEqual(global.failures, []);
      const parsed = parseAnnotations(row.annotations, global.settings);
      if (row.want === 'refused') {
        assert.equal(parsed.ok, false);
        if (!parsed.ok) assert.deepEqual(described(parsed.failures), [`InvalidAnnotation ${annotationField('auth-signin')}`]);
        return;
      }
      assert.equal(parsed.ok, true, JSON.stringify(parsed));
      const config = ingressConfig(parsed, 'externalAuth');
      if (row.want === 'global') {
        assert.equal(config, undefined);
        return;
      }
      const want = { ...global.settings.externalAuth, ...row.want };
      assert.deepEqual(config, { ...want, name: externalAuthName(want) });
    });
  }
});

void describe('external auth: the sign-in redirect (ingress-nginx\'s buildAuthSignURL)', () => {
  const rows: { name: string; signin: string; param: string; want: string }[] = [
    { name: 'no query: ?rd=', signin: 'https://login/start', param: 'rd', want: 'https://login/start?rd=$scheme://$http_host$escaped_request_uri' },
    { name: 'a query: &rd=', signin: 'https://login/start?a=b', param: 'rd', want: 'https://login/start?a=b&rd=$scheme://$http_host$escaped_request_uri' },
    { name: 'the parameter given: kept as is', signin: 'https://$host/start?rd=$escaped_request_uri', param: 'rd', want: 'https://$host/start?rd=$escaped_request_uri' },
    { name: 'the parameter empty: appended', signin: 'https://login/start?rd=', param: 'rd', want: 'https://login/start?rd=&rd=$scheme://$http_host$escaped_request_uri' },
    { name: 'another parameter name', signin: 'https://login/start?rd=x', param: 'next', want: 'https://login/start?rd=x&next=$scheme://$http_host$escaped_request_uri' },
    { name: 'a bare ?: Go sees no query', signin: 'https://login/start?', param: 'rd', want: 'https://login/start??rd=$scheme://$http_host$escaped_request_uri' },
  ];
  for (const row of rows) void it(row.name, () => assert.equal(signinRedirect(row.signin, row.param), row.want));
});

void describe('external auth: keepalive as ingress-nginx combines its keys', () => {
  const rows: { name: string; annotations: Record<string, string>; want: Partial<ExternalAuthConfig> | 'refused' }[] = [
    { name: 'keepalive with its defaults', annotations: { 'auth-keepalive': '10' }, want: { keepalive: 10, keepaliveRequests: 1000, keepaliveTimeout: 60 } },
    { name: 'all three given', annotations: { 'auth-keepalive': '4', 'auth-keepalive-requests': '5', 'auth-keepalive-timeout': '30' },
      want: { keepalive: 4, keepaliveRequests: 5, keepaliveTimeout: 30 } },
    { name: 'requests 0 turns keepalive off', annotations: { 'auth-keepalive': '10', 'auth-keepalive-requests': '0' }, want: { keepalive: 0, keepaliveRequests: 0 } },
    { name: 'a negative timeout turns keepalive off', annotations: { 'auth-keepalive': '10', 'auth-keepalive-timeout': '-1' }, want: { keepalive: 0, keepaliveTimeout: 0 } },
    { name: 'an invalid timeout is ignored: keepalive stays on', annotations: { 'auth-keepalive': '10', 'auth-keepalive-timeout': 'soon' }, want: { keepalive: 10, keepaliveTimeout: 60 } },
    { name: 'keepalive without auth-url: refused', annotations: { 'auth-keepalive': '10' }, want: 'refused' },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const annotations = row.want === 'refused' ? row.annotations : { ...withUrl, ...row.annotations };
      const parsed = parseAnnotations(annotations, readConfigMap({}).settings);
      if (row.want === 'refused') {
        assert.equal(parsed.ok, false);
        if (!parsed.ok) assert.deepEqual(described(parsed.failures), [`InvalidAnnotation ${annotationField('auth-keepalive')}`]);
        return;
      }
      assert.equal(parsed.ok, true, JSON.stringify(parsed));
      const config = ingressConfig(parsed, 'externalAuth');
      assert.deepEqual(config && { keepalive: config.keepalive, keepaliveRequests: config.keepaliveRequests, keepaliveTimeout: config.keepaliveTimeout },
        { keepalive: 0, keepaliveRequests: 1000, keepaliveTimeout: 60, ...row.want });
    });
  }

  void it('keepalive on names another auth location (its own upstream); off keeps the name it had', () => {
    const plain = { url: url('auth.example', '/verify'), method: null, requestRedirect: null, cacheKey: null, cacheDuration: ['200 202 401 5m'] };
    assert.equal(externalAuthName({ ...plain, keepalive: 0, keepaliveRequests: 5, keepaliveTimeout: 5 }), externalAuthName(plain));
    const on = externalAuthName({ ...plain, keepalive: 10, keepaliveRequests: 1000, keepaliveTimeout: 60 });
    assert.notEqual(on, externalAuthName(plain));
    assert.notEqual(on, externalAuthName({ ...plain, keepalive: 10, keepaliveRequests: 1000, keepaliveTimeout: 61 }));
  });
});
