// The `upstream` of each auth service with keepalive (auth-keepalive; model/features/external-auth-keepalive.ts),
// in http {} (features/external-auth-http.njk): one per auth location name (its hash covers the url and the
// keepalive numbers), so two servers asking the same share it. The auth location proxies to it over HTTP/1.1
// with Connection cleared (features/external-auth-location.njk), as NGINX's keepalive needs.

import { MAX_KEEPALIVE_CONNECTIONS, MAX_KEEPALIVE_REQUESTS, MAX_KEEPALIVE_TIMEOUT } from '../model/features/external-auth-keepalive.ts';
import type { AuthUrl, ExternalAuthConfig, GlobalSettings, Location } from '../model/types.ts';
import { effectiveAuth } from './external-auth-view.ts';
import { RenderError } from './nginx-values.ts';

export interface AuthUpstreamView {
  /** `resty_auth_<16 hex>`, from the auth location's name. */
  readonly name: string;
  /** `host:port` of the auth URL (the scheme's port when it has none). */
  readonly server: string;
  readonly connections: number;
  readonly requests: number;
  readonly timeout: number;
}

const within = (value: unknown, min: number, max: number): boolean => Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;

/** The upstream name of `config`'s auth location when it keeps connections, else null (checked again: render is the second wall). */
export function authUpstreamName(config: ExternalAuthConfig): string | null {
  if (config.keepalive === 0 || config.name === null) return null;
  if (!within(config.keepalive, 1, MAX_KEEPALIVE_CONNECTIONS) || !within(config.keepaliveRequests, 1, MAX_KEEPALIVE_REQUESTS)
    || !within(config.keepaliveTimeout, 1, MAX_KEEPALIVE_TIMEOUT)) {
    throw new RenderError('UnsafeValue', `external auth ${config.name}: keepalive numbers out of range`);
  }
  return `resty_auth_${config.name.slice('_external-auth-'.length)}`;
}

/** The proxy_pass target through the upstream `name` (the URL's path and query kept). */
export function upstreamProxyPass(url: AuthUrl, name: string): string {
  return `${url.scheme}://${name}${url.path === '' ? '/' : url.path}${url.query === null ? '' : `?${url.query}`}`;
}

/** Every auth upstream of the model, one per name, sorted by name. */
export function authUpstreamsOf(model: { readonly servers: readonly { readonly locations: readonly Location[] }[]; readonly settings: GlobalSettings }): AuthUpstreamView[] {
  const upstreams = new Map<string, AuthUpstreamView>();
  for (const server of model.servers) {
    for (const location of server.locations) {
      const config = effectiveAuth(location, model.settings);
      if (config === null || config.url === null || config.proxySetHeadersDenied) continue;
      const name = authUpstreamName(config);
      if (name === null || upstreams.has(name)) continue;
      const port = config.url.port ?? (config.url.scheme === 'https' ? 443 : 80);
      upstreams.set(name, { name, server: `${config.url.host}:${port}`, connections: config.keepalive, requests: config.keepaliveRequests, timeout: config.keepaliveTimeout });
    }
  }
  return [...upstreams.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The Ingresses behind the auth upstream open at a line (`upstream resty_auth_…`: e.g. `nginx -t`
 * cannot resolve the auth host), or null when the line is in none: the sync leaves them out, not everyone.
 */
export function authUpstreamOwners(model: { readonly servers: readonly { readonly locations: readonly Location[] }[]; readonly settings: GlobalSettings },
  stack: readonly { readonly words: readonly string[] }[]): { namespace: string; name: string }[] | null {
  const top = stack.at(-1);
  if (top?.words[0] !== 'upstream' || !top.words[1]?.startsWith('resty_auth_')) return null;
  const owners = new Map<string, { namespace: string; name: string }>();
  for (const server of model.servers) {
    for (const location of server.locations) {
      const config = location.ingress === null ? null : effectiveAuth(location, model.settings);
      if (location.ingress !== null && config !== null && authUpstreamName(config) === top.words[1]) {
        owners.set(`${location.ingress.namespace}/${location.ingress.name}`, location.ingress);
      }
    }
  }
  return owners.size === 0 ? null : [...owners.values()];
}
