// auth-* and the ConfigMap's global-auth-*: external authentication with
// NGINX's auth_request, as ingress-nginx v1.15.1 (annotations/authreq,
// authreqglobal, template/configmap.go, nginx.tmpl). Each request of a
// protected location first goes, without its body, to an internal location of
// its server that proxies to the auth service: 2xx lets it through (with
// auth-response-headers copied from the auth answer into the request sent
// upstream), 401 and 403 go to the client (401 becomes a 302 to auth-signin
// when set), anything else, and an auth service that cannot be reached, is a
// 500 (auth_request's rule, as in ingress-nginx).
//
// One feature for both sources: the ConfigMap's global-auth-* make the global
// config; an Ingress with auth-url replaces it whole (`finish`: its unset keys
// take the defaults, as ingress-nginx uses the Ingress's config alone), an
// Ingress without auth-url keeps the global one, and enable-global-auth:
// "false" turns that off for it. auth-* without auth-url refuse the Ingress
// (ingress-nginx drops them silently). Every value is parsed into a typed value
// (external-auth-url.ts); no user string reaches nginx.conf as text.

import { createHash } from 'node:crypto';
import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { ExternalAuthConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { DEFAULT_CACHE_DURATION, parseCacheDuration, parseCacheKey } from './external-auth-cache.ts';
import { finishKeepalive, KEEPALIVE_DEFAULTS, parseKeepaliveConnections, parseKeepaliveRequests, parseKeepaliveTimeout } from './external-auth-keepalive.ts';
import { parseAuthUrl, parseRedirectParam, parseRequestRedirect, parseSigninUrl } from './external-auth-url.ts';
import { parseObjectReference } from './object-ref.ts';
import { parseBoolean } from './values.ts';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE']);
/** ingress-nginx's headerRegexp for auth-response-headers. */
const HEADER = /^[A-Za-z0-9_-]{1,64}$/u;
const MAX_HEADERS = 32;
/**
 * NGINX hashes the proxied header names in buckets of proxy_headers_hash_bucket_size (64, as in
 * ingress-nginx): a bucket holds a name of at most 46 characters (8-byte value pointer, the name
 * and its length aligned to 8, the 8-byte end mark); a longer one fails nginx -t.
 */
const MAX_HEADER_LENGTH = 46;
/** Headers the one header list (proxy-headers.njk) already sets: a second proxy_set_header would send them twice. */
const LISTED = new Set(['host', 'x-real-ip', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-port',
  'x-forwarded-prefix', 'upgrade', 'connection', 'proxy', 'content-length', 'transfer-encoding']);

export const DEFAULT_NO_AUTH_LOCATIONS: readonly string[] = Object.freeze(['/.well-known/acme-challenge']);

function parseMethod(raw: string): Checked<string | null> {
  const value = raw.trim();
  if (value === '') return accept(null);
  return METHODS.has(value) ? accept(value) : refuse(`expected one of ${[...METHODS].join(', ')}`);
}

/** auth-response-headers: a comma list of header names (ingress-nginx: HeadersVariable, then each name). */
function parseResponseHeaders(raw: string): Checked<readonly string[]> {
  const takes = /^[A-Za-z0-9-_, ]*$/u.test(raw);
  const names = raw.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const bad = names.find((name) => !HEADER.test(name));
  if (!takes || bad !== undefined) return refuse('expected header names of letters, digits, - and _, separated by commas');
  if (names.length > MAX_HEADERS) return unsupported(`at most ${MAX_HEADERS} headers`);
  const long = names.find((name) => name.length > MAX_HEADER_LENGTH);
  if (long !== undefined) return unsupported(`header names of at most ${MAX_HEADER_LENGTH} characters (NGINX's header hash), not ${long.length}`);
  const listed = names.find((name) => LISTED.has(name.toLowerCase()));
  if (listed !== undefined) return unsupported(`${listed} is set by the controller for every request and cannot come from the auth service`);
  return accept(Object.freeze([...new Set(names)]));
}

/** no-auth-locations: a comma list of path prefixes. */
function parseNoAuthLocations(raw: string): Checked<readonly string[]> {
  const paths = raw.split(',').map((path) => path.trim()).filter((path) => path !== '');
  const bad = paths.find((path) => !/^\/[-A-Za-z0-9._~/]{0,1023}$/u.test(path));
  return bad === undefined ? accept(Object.freeze(paths)) : refuse('expected paths starting with / (letters, digits and -._~/), separated by commas');
}

/** The name of the internal location a subrequest with this url, method and X-Auth-Request-Redirect goes through. */
export function externalAuthName(config: Pick<ExternalAuthConfig, 'url' | 'method' | 'requestRedirect' | 'cacheKey' | 'cacheDuration'>
  & Partial<Pick<ExternalAuthConfig, 'keepalive' | 'keepaliveRequests' | 'keepaliveTimeout' | 'proxySetHeaders'>>): string | null {
  if (config.url === null) return null;
  // The cache fields count only with a key: without one nothing is cached.
  const cache = config.cacheKey === null ? null : [config.cacheKey, config.cacheDuration];
  // Keepalive counts only when on (its own upstream); without it the name is what it always was.
  const keepalive = (config.keepalive ?? 0) > 0 ? [[config.keepalive, config.keepaliveRequests, config.keepaliveTimeout]] : [];
  // auth-proxy-set-headers (read at build time, model/auth-proxy-headers.ts) count once there are some.
  const headers = (config.proxySetHeaders ?? []).length > 0 ? [{ headers: config.proxySetHeaders }] : [];
  const digest = createHash('sha256').update(JSON.stringify([config.url, config.method, config.requestRedirect, cache, ...keepalive, ...headers])).digest('hex');
  return `_external-auth-${digest.slice(0, 16)}`;
}

/** The annotations that only mean something with auth-url (enable-global-auth is about the global auth). */
const NEEDS_URL = ['auth-method', 'auth-signin', 'auth-signin-redirect-param', 'auth-response-headers', 'auth-request-redirect', 'auth-always-set-cookie',
  'auth-cache-key', 'auth-cache-duration', 'auth-keepalive', 'auth-keepalive-requests', 'auth-keepalive-timeout', 'auth-keepalive-share-vars',
  'auth-proxy-set-headers'];

const DEFAULTS: ExternalAuthConfig = {
  url: null, ownUrl: null, method: null, signin: null, signinRedirectParam: 'rd', responseHeaders: [], requestRedirect: null,
  cacheKey: null, cacheDuration: DEFAULT_CACHE_DURATION, alwaysSetCookie: false, ...KEEPALIVE_DEFAULTS,
  proxySetHeadersConfigMap: null, proxySetHeaders: [], proxySetHeadersDenied: false, global: false, enableGlobal: true, noAuthLocations: DEFAULT_NO_AUTH_LOCATIONS, name: null,
};

/**
 * An Ingress with auth-url: its own config, the keys it did not set at their defaults (not the
 * ConfigMap's global-auth-*). The ConfigMap: the global config. Names the auth location.
 */
function finish(config: ExternalAuthConfig, given: ReadonlySet<string>): Checked<ExternalAuthConfig> {
  if (config.ownUrl !== null) {
    const own = { ...config, url: config.ownUrl, global: false };
    if (!given.has('auth-method')) own.method = DEFAULTS.method;
    if (!given.has('auth-signin')) own.signin = DEFAULTS.signin;
    if (!given.has('auth-signin-redirect-param')) own.signinRedirectParam = DEFAULTS.signinRedirectParam;
    if (!given.has('auth-response-headers')) own.responseHeaders = DEFAULTS.responseHeaders;
    if (!given.has('auth-request-redirect')) own.requestRedirect = DEFAULTS.requestRedirect;
    if (!given.has('auth-always-set-cookie')) own.alwaysSetCookie = DEFAULTS.alwaysSetCookie;
    if (!given.has('auth-cache-key')) own.cacheKey = DEFAULTS.cacheKey;
    if (!given.has('auth-cache-duration')) own.cacheDuration = DEFAULTS.cacheDuration;
    if (!given.has('auth-proxy-set-headers')) own.proxySetHeadersConfigMap = DEFAULTS.proxySetHeadersConfigMap;
    const withKeepalive = { ...own, ...finishKeepalive(own, given) };
    return accept({ ...withKeepalive, name: externalAuthName(withKeepalive) });
  }
  const stray = NEEDS_URL.find((name) => given.has(name));
  if (stray !== undefined) return refuse(`${stray} needs auth-url on the same Ingress`);
  // The ConfigMap's url makes this the global auth; a refused one leaves no url and nothing global.
  const global = config.global || (given.has('global-auth-url') && config.url !== null);
  return accept({ ...config, global, name: externalAuthName(config) });
}

export const externalAuthFeature = defineFeature({
  name: 'externalAuth',
  title: 'External authentication',
  doc: 'Each request first goes, without its body, to an auth service (NGINX\'s auth_request): a 2xx answer lets it through '
    + 'with auth-response-headers copied into the request sent upstream; 401 and 403 go to the client (a 401 becomes a 302 to '
    + 'auth-signin with the original URL, escaped, in `rd`); any other answer, or an auth service that cannot be reached, is a 500. '
    + 'The ConfigMap\'s global-auth-* protect every location of Ingresses without auth-url unless they say enable-global-auth: '
    + '"false"; an Ingress with auth-url uses its own keys only. The auth host is resolved when NGINX loads its configuration. '
    + 'auth-cache-key caches the auth answers (NGINX\'s proxy_cache, in the prefix). auth-keepalive proxies to an upstream of the auth '
    + 'host with keepalive, on every listener (ingress-nginx turns it off with HTTP/2); NGINX reuses a connection after an auth answer '
    + 'without a body (auth_request reads no body). auth-proxy-set-headers names a ConfigMap of headers sent to the auth service, read on '
    + 'every change of it (a reload); missing, of another namespace or refused: the paths answer 503 with a Warning Event, as ingress-nginx '
    + 'denies the location. auth-snippet is a snippet.',
  output: { kind: 'location', template: 'features/external-auth.njk' },
  defaults: DEFAULTS,
  keys: [
    field<ExternalAuthConfig, 'ownUrl'>('ownUrl', parseAuthUrl, {
      annotation: { name: 'auth-url', scope: 'location', risk: 'High' }, defaultText: '', invalid: 'fail',
      doc: 'The auth service: http(s)://host[:port][/path][?query].',
      difference: 'no NGINX variable and a strict grammar (host name or IP, path of letters, digits and -._~/:); another value ingress-nginx takes '
        + 'refuses the Ingress (its paths answer 503, as ingress-nginx answers a URL its parser refuses; the admission webhook denies it)',
    }),
    field<ExternalAuthConfig, 'url'>('url', parseAuthUrl, {
      configKey: 'global-auth-url', defaultText: '', invalid: 'fail', failClosed: true,
      doc: 'The global auth service (same grammar as auth-url): every location of Ingresses without auth-url, unless enable-global-auth is "false".',
      difference: 'a value refused (see auth-url) serves no Ingress until it is fixed (ingress-nginx serves them all without auth)',
    }),
    field<ExternalAuthConfig, 'method'>('method', parseMethod, {
      annotation: { name: 'auth-method', scope: 'location', risk: 'Low' }, configKey: 'global-auth-method', defaultText: 'the request\'s', invalid: 'fail',
      doc: 'The method of the auth subrequest (GET, HEAD, POST, …); it also sends X-Original-URI and X-Scheme.',
    }),
    field<ExternalAuthConfig, 'signin'>('signin', parseSigninUrl, {
      annotation: { name: 'auth-signin', scope: 'location', risk: 'High' }, configKey: 'global-auth-signin', defaultText: '', invalid: 'ignore',
      doc: 'Where a 401 of the auth service redirects (302), with the original URL in the auth-signin-redirect-param parameter.',
      difference: 'variables only from $host, $http_host, $scheme, $request_uri, $escaped_request_uri; a strict URL grammar: another value ingress-nginx takes refuses the Ingress',
    }),
    field<ExternalAuthConfig, 'signinRedirectParam'>('signinRedirectParam', parseRedirectParam, {
      annotation: { name: 'auth-signin-redirect-param', scope: 'location', risk: 'Medium' }, configKey: 'global-auth-signin-redirect-param',
      defaultText: 'rd', invalid: 'ignore',
      doc: 'The query parameter of the sign-in URL that carries the original URL.',
      difference: '1 to 64 letters, digits and -._~: another name ingress-nginx takes refuses the Ingress',
    }),
    field<ExternalAuthConfig, 'responseHeaders'>('responseHeaders', parseResponseHeaders, {
      annotation: { name: 'auth-response-headers', scope: 'location', risk: 'Medium' }, configKey: 'global-auth-response-headers', defaultText: '', invalid: 'fail',
      doc: 'Headers of the auth answer copied into the request sent upstream (comma list); a client\'s own are never passed.',
      difference: 'at most 32, each at most 64 characters, and none the controller sets itself (Host, X-Forwarded-*, …): otherwise the Ingress is refused',
    }),
    field<ExternalAuthConfig, 'requestRedirect'>('requestRedirect', parseRequestRedirect, {
      annotation: { name: 'auth-request-redirect', scope: 'location', risk: 'Medium' }, configKey: 'global-auth-request-redirect',
      defaultText: 'the request URI', invalid: 'fail',
      doc: 'The X-Auth-Request-Redirect header sent to the auth service.',
    }),
    field<ExternalAuthConfig, 'cacheKey'>('cacheKey', parseCacheKey, {
      annotation: { name: 'auth-cache-key', scope: 'location', risk: 'Medium' }, configKey: 'global-auth-cache-key', defaultText: '', invalid: 'ignore',
      doc: 'Caches the auth answers under this key (with the server name and the auth location), e.g. $remote_user$http_authorization.',
      difference: 'variables only from $host, $http_host, $remote_addr, $remote_user, $uri, $request_uri, $args, $request_method, $scheme and $http_*, $cookie_*, $arg_*: another key ingress-nginx takes refuses the Ingress',
    }),
    field<ExternalAuthConfig, 'cacheDuration'>('cacheDuration', parseCacheDuration, {
      annotation: { name: 'auth-cache-duration', scope: 'location', risk: 'Medium' }, configKey: 'global-auth-cache-duration',
      defaultText: '200 202 401 5m', invalid: 'fail',
      doc: 'How long cached auth answers live, per status: comma list of `[code …] time`.',
      difference: 'codes from 100 to 599 and one time per entry (NGINX takes no more): another value ingress-nginx takes refuses the Ingress',
    }),
    field<ExternalAuthConfig, 'alwaysSetCookie'>('alwaysSetCookie', parseBoolean, {
      annotation: { name: 'auth-always-set-cookie', scope: 'location', risk: 'Low' }, configKey: 'global-auth-always-set-cookie', defaultText: 'false', invalid: 'fail',
      doc: 'Pass the auth answer\'s Set-Cookie to the client whatever the status (else only on success statuses).',
    }),
    field<ExternalAuthConfig, 'keepalive'>('keepalive', parseKeepaliveConnections, {
      annotation: { name: 'auth-keepalive', scope: 'location', risk: 'Low' }, defaultText: '0', invalid: 'ignore',
      doc: 'Idle connections to the auth service kept per NGINX worker (an upstream with keepalive); 0 or less: none. Only with auth-url.',
      difference: 'on with HTTP/2 too (ingress-nginx turns it off with use-http2, its default); a connection is reused after an auth answer without a body '
        + '(auth_request reads none), closed after one with a body; more than 10000 refuses the Ingress',
    }),
    field<ExternalAuthConfig, 'keepaliveRequests'>('keepaliveRequests', parseKeepaliveRequests, {
      annotation: { name: 'auth-keepalive-requests', scope: 'location', risk: 'Low' }, defaultText: '1000', invalid: 'ignore',
      doc: 'Requests sent over one keepalive connection to the auth service; 0 or less turns auth-keepalive off.',
    }),
    field<ExternalAuthConfig, 'keepaliveTimeout'>('keepaliveTimeout', parseKeepaliveTimeout, {
      annotation: { name: 'auth-keepalive-timeout', scope: 'location', risk: 'Low' }, defaultText: '60', invalid: 'ignore',
      doc: 'Seconds an idle keepalive connection to the auth service stays open; 0 or less turns auth-keepalive off.',
    }),
    field<ExternalAuthConfig, 'keepaliveShareVars'>('keepaliveShareVars', parseBoolean, {
      annotation: { name: 'auth-keepalive-share-vars', scope: 'location', risk: 'Low' }, defaultText: 'false', invalid: 'ignore',
      doc: 'Validated (true or false).',
      difference: 'no effect: the auth subrequest is NGINX\'s auth_request, which always shares the request\'s variables (ingress-nginx\'s Lua '
        + 'subrequest with keepalive shares them only when "true"); nothing in the auth location reads or sets one',
    }),
    field<ExternalAuthConfig, 'proxySetHeadersConfigMap'>('proxySetHeadersConfigMap', (raw) => parseObjectReference(raw, true), {
      annotation: { name: 'auth-proxy-set-headers', scope: 'location', risk: 'Medium' }, defaultText: '', invalid: 'fail',
      doc: 'A ConfigMap (`name` or `namespace/name`; another namespace needs allow-cross-namespace-resources) whose keys are headers '
        + 'sent to the auth service with its values. Needs the chart\'s rbac.referencedConfigMaps to list it.',
      difference: 'values are literal text: a `$` (an NGINX variable there), `"` or `\\`, a header the auth request already carries (Host, '
        + 'X-Original-URL, X-Forwarded-*, …), a name over 46 characters or more than 32 keys deny the location (503, Warning Event)',
    }),
    field<ExternalAuthConfig, 'enableGlobal'>('enableGlobal', parseBoolean, {
      annotation: { name: 'enable-global-auth', scope: 'location', risk: 'Low' }, defaultText: 'true', invalid: 'ignore',
      doc: '"false": the ConfigMap\'s global-auth-url does not protect this Ingress.',
    }),
    field<ExternalAuthConfig, 'noAuthLocations'>('noAuthLocations', parseNoAuthLocations, {
      configKey: 'no-auth-locations', defaultText: '/.well-known/acme-challenge',
      doc: 'Paths (prefixes, comma list) that external and global auth never protect.',
    }),
  ],
  finish,
  proof: ['controller/src/model/features/external-auth.test.ts', 'controller/src/render/external-auth-render.test.ts',
    'controller/src/render/external-auth-keepalive-render.test.ts', 'controller/src/model/auth-proxy-headers.test.ts', 'e2e/external-auth.test.ts'],
});
