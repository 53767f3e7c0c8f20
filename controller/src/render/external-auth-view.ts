// What external auth (model/features/external-auth.ts) prints, checked again
// here (render is the second wall): per protected location, the auth_request
// lines (features/external-auth.njk); per server, one internal location per
// distinct auth subrequest (`location = /_external-auth-<hash>`, as
// ingress-nginx's buildAuthLocation; features/external-auth-location.njk) and
// one named location per sign-in redirect (`@resty_auth_signin_<hash>`). An
// Ingress's own auth wins over the ConfigMap's global one; enable-global-auth
// "false" and no-auth-locations (a prefix of the Ingress path, ingress-nginx's
// isLocationInLocationList) leave a location without auth.

import { createHash } from 'node:crypto';
import { parseCacheDuration, parseCacheKey } from '../model/features/external-auth-cache.ts';
import { authUrlText, parseAuthUrl, parseRedirectParam, parseSigninUrl, signinRedirect } from '../model/features/external-auth-url.ts';
import type { ExternalAuthConfig, GlobalSettings, Location } from '../model/types.ts';
import { authUpstreamName, upstreamProxyPass } from './external-auth-upstream-view.ts';
import { RenderError } from './nginx-values.ts';
import { validAuthProxyHeader } from '../model/auth-proxy-headers.ts';

/** One header of the auth answer copied into the request sent upstream. */
export interface AuthResponseHeaderView {
  readonly name: string;
  /** `$resty_auth_<i>`: set by auth_request_set in the location. */
  readonly variable: string;
  /** `$upstream_http_<name, lower case, - as _>`: the auth answer's header. */
  readonly source: string;
}

/** The auth lines of one protected location (the partial's `feature.config`). */
export interface ExternalAuthPartialView {
  /** `/_external-auth-<16 hex>`: the server's internal location of this subrequest. */
  readonly authPath: string;
  /** The named sign-in location a 401 goes to, or null (the 401 is passed). */
  readonly signinLocation: string | null;
  readonly responseHeaders: readonly AuthResponseHeaderView[];
  readonly alwaysSetCookie: boolean;
  /** auth-proxy-set-headers could not be read: the location answers 503 (ingress-nginx's location denied). */
  readonly denied: boolean;
}

/** One internal auth location of a server. */
export interface AuthLocationView {
  readonly path: string;
  /** `proxy_pass` of the auth service (no variable: resolved when NGINX loads the configuration), or of its keepalive upstream. */
  readonly proxyPass: string;
  /** auth-keepalive: proxy_pass goes to an upstream with keepalive (HTTP/1.1, Connection cleared). */
  readonly keepalive: boolean;
  /** The Host header: the auth URL's host (ingress-nginx: its Hostname(), no port). */
  readonly host: string;
  /** https: the TLS server name sent. */
  readonly sslName: string | null;
  readonly method: string | null;
  /** X-Auth-Request-Redirect: null = $request_uri. */
  readonly requestRedirect: string | null;
  /** auth-proxy-set-headers: sent to the auth service (literal values, model/auth-proxy-headers.ts). */
  readonly proxySetHeaders: readonly { readonly name: string; readonly value: string }[];
  /** auth-cache-key: proxy_cache's key (server name, auth location, the validated key) and its proxy_cache_valid lines; null = no cache. */
  readonly cache: { readonly key: string; readonly valid: readonly string[] } | null;
  /** auth-snippet's lines (features/snippets.ts; the `snippet` filter reads them again), [] = none. */
  readonly snippet: readonly string[];
}

/** The shared cache of auth answers (http {}: proxy_cache_path), in the prefix. */
export const AUTH_CACHE_ZONE = 'resty_auth_cache';

/** One sign-in named location of a server. */
export interface SigninLocationView {
  readonly name: string;
  /** The `return 302` target: the sign-in URL with the original URL (external-auth-url.ts signinRedirect). */
  readonly redirect: string;
}

const NAME = /^_external-auth-[0-9a-f]{16}$/u;
const HEADER = /^[A-Za-z0-9_-]{1,64}$/u;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE']);

function unsafe(location: Location, what: string): never {
  throw new RenderError('UnsafeValue', `location ${location.path}: external auth ${what} breaks its grammar`);
}

/** The auth that protects `location`, checked again, or null. */
export function effectiveAuth(location: Location, settings: GlobalSettings): ExternalAuthConfig | null {
  if (location.route.kind !== 'backend') return null;
  const config = location.policy.externalAuth ?? settings.externalAuth;
  if (config === undefined || config.url === null || config.name === null) return null;
  if (config.global && !config.enableGlobal) return null;
  // Generated locations (the default backend's) are no Ingress's: ingress-nginx's global auth skips them too.
  if (config.global && location.ingress === null) return null;
  if (config.noAuthLocations.some((prefix) => location.path.startsWith(prefix))) return null;
  if (!NAME.test(config.name)) unsafe(location, 'name');
  const url = parseAuthUrl(authUrlText(config.url));
  if (!url.ok || authUrlText(config.url) !== authUrlText(url.value as NonNullable<typeof url.value>)) unsafe(location, 'url');
  if (config.method !== null && !METHODS.has(config.method)) unsafe(location, 'method');
  if (config.signin !== null && !(parseSigninUrl(config.signin).ok && parseRedirectParam(config.signinRedirectParam).ok)) unsafe(location, 'auth-signin');
  if (!config.responseHeaders.every((name) => HEADER.test(name))) unsafe(location, 'response header');
  if (config.requestRedirect !== null && !/^[-._~a-zA-Z0-9/:,?&=]{1,1024}$/u.test(config.requestRedirect)) unsafe(location, 'request redirect');
  if (!Array.isArray(config.proxySetHeaders) || !config.proxySetHeaders.every((pair) => Array.isArray(pair) && validAuthProxyHeader(pair[0], pair[1]))) {
    unsafe(location, 'auth-proxy-set-headers');
  }
  if (config.cacheKey !== null) {
    if (typeof config.cacheKey !== 'string' || !Array.isArray(config.cacheDuration)) unsafe(location, 'cache');
    const key = parseCacheKey(config.cacheKey);
    const valid = parseCacheDuration(config.cacheDuration.join(','));
    if (!key.ok || key.value !== config.cacheKey || !valid.ok || valid.value.join(',') !== config.cacheDuration.join(',')) unsafe(location, 'cache');
  }
  return config;
}

const NO_SNIPPET: readonly string[] = Object.freeze([]);

/** The auth-snippet of `location`'s Ingress ([] = none). */
function authSnippetOf(location: Location): readonly string[] {
  return location.policy.snippets?.auth ?? NO_SNIPPET;
}

/**
 * The auth location's name: config.name, and with an auth-snippet the snippet's hash after it, so that
 * locations sharing an auth config but not a snippet never share a location (nor a snippet).
 */
function authLocationName(config: ExternalAuthConfig, location: Location): string {
  const snippet = authSnippetOf(location);
  if (snippet.length === 0) return config.name ?? '';
  return `${config.name}-${createHash('sha256').update(JSON.stringify(snippet)).digest('hex').slice(0, 8)}`;
}

function signinName(config: ExternalAuthConfig): string | null {
  if (config.signin === null) return null;
  const digest = createHash('sha256').update(JSON.stringify([config.signin, config.signinRedirectParam])).digest('hex');
  return `@resty_auth_signin_${digest.slice(0, 16)}`;
}

/** The partial's view of `config` for `location`: null when the location is not protected. */
export function externalAuthPartialView(location: Location, settings: GlobalSettings): ExternalAuthPartialView | null {
  const config = effectiveAuth(location, settings);
  if (config === null || config.name === null) return null;
  return {
    authPath: `/${authLocationName(config, location)}`,
    signinLocation: signinName(config),
    responseHeaders: config.responseHeaders.map((name, index) => ({
      name, variable: `$resty_auth_${index}`, source: `$upstream_http_${name.toLowerCase().replaceAll('-', '_')}`,
    })),
    alwaysSetCookie: config.alwaysSetCookie,
    denied: config.proxySetHeadersDenied === true,
  };
}

/** The internal auth locations and sign-in locations of one server's locations, one per name, in location order. */
export function externalAuthServerViews(hostname: string, locations: readonly Location[], settings: GlobalSettings): { auth: AuthLocationView[]; signin: SigninLocationView[] } {
  const auth = new Map<string, AuthLocationView>();
  const signin = new Map<string, SigninLocationView>();
  for (const location of locations) {
    const config = effectiveAuth(location, settings);
    if (config === null || config.url === null || config.name === null || config.proxySetHeadersDenied) continue;
    const locationName = authLocationName(config, location);
    if (!auth.has(locationName)) {
      const { url } = config;
      const upstream = authUpstreamName(config);
      auth.set(locationName, {
        path: `/${locationName}`, proxyPass: upstream === null ? authUrlText(url) : upstreamProxyPass(url, upstream), keepalive: upstream !== null, host: url.host, sslName: url.scheme === 'https' ? url.host : null,
        method: config.method, requestRedirect: config.requestRedirect,
        proxySetHeaders: config.proxySetHeaders.map(([name, value]) => ({ name, value })),
        cache: config.cacheKey === null ? null : { key: `${hostname}/${config.name}${config.cacheKey}`, valid: config.cacheDuration },
        snippet: authSnippetOf(location),
      });
    }
    const name = signinName(config);
    if (name !== null && config.signin !== null && !signin.has(name)) {
      signin.set(name, { name, redirect: signinRedirect(config.signin, config.signinRedirectParam) });
    }
  }
  return { auth: [...auth.values()], signin: [...signin.values()] };
}

/** One open block of nginx.conf as conf-owners.ts reads it. */
interface OpenBlock {
  readonly words: readonly string[];
  readonly serverName?: string;
}

/**
 * The Ingresses behind an auth location open at a line (`location = /_external-auth-…` of a
 * server: e.g. `nginx -t` cannot resolve the auth host), or null when the line is in none: the
 * sync leaves them out, not everyone. An Ingress protected by the ConfigMap's global auth owns it
 * too (a global-auth-url NGINX refuses leaves every such Ingress out).
 */
export function externalAuthOwners(model: { readonly servers: readonly { readonly hostname: string; readonly locations: readonly Location[] }[]; readonly settings: GlobalSettings }, stack: readonly OpenBlock[]): { namespace: string; name: string }[] | null {
  const top = stack.at(-1);
  if (top?.words[0] !== 'location' || top.words[1] !== '=' || !top.words[2]?.startsWith('/_external-auth-')) return null;
  const name = top.words[2].slice(1);
  const hostname = stack.findLast((frame) => frame.words[0] === 'server')?.serverName;
  const owners = new Map<string, { namespace: string; name: string }>();
  for (const location of model.servers.find((server) => server.hostname === hostname)?.locations ?? []) {
    const config = location.ingress === null ? null : effectiveAuth(location, model.settings);
    if (location.ingress !== null && config !== null && authLocationName(config, location) === name) {
      owners.set(`${location.ingress.namespace}/${location.ingress.name}`, location.ingress);
    }
  }
  return owners.size === 0 ? null : [...owners.values()];
}

/** Whether some protected location of `model` caches its auth answers (http {} then declares the cache). */
export function usesAuthCache(model: { readonly servers: readonly { readonly locations: readonly Location[] }[]; readonly settings: GlobalSettings }): boolean {
  return model.servers.some((server) => server.locations.some((location) => {
    const config = effectiveAuth(location, model.settings);
    return config !== null && config.cacheKey !== null;
  }));
}
