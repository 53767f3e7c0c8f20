// auth-proxy-set-headers → the headers an Ingress's auth subrequests send to the auth service,
// read per build from the ConfigMap it names (ingress-nginx v1.15.1, annotations/authreq: the
// Ingress's namespace unless allow-cross-namespace-resources; every key a header name of
// letters, digits, - and _). ingress-nginx denies the location (503) when the ConfigMap is
// missing, of another namespace, or has a bad name: so does this, with a Warning Event. The
// ConfigMap is watched by name (referencedConfigMaps in fastcgi-params.ts), so it can be
// listed only after the first build that names it: until then the location answers 503.
//
// Values are sent as literal text: ingress-nginx prints them into nginx.conf (%q), where NGINX
// would expand a `$variable`; here a `$` is not supported (the location is denied, saying so),
// nor `;{}` or an empty value (render refuses them in any string),
// nor is a header the auth location already sets (a second line would send it twice).

import type { V1ConfigMap } from '@kubernetes/client-node';
import { makeWarning, quoteValue } from './failure.ts';
import { splitObjectReference } from './features/object-ref.ts';
import type { ExternalAuthConfig, Failure, IngressRef } from './types.ts';

/** ingress-nginx's headerRegexp; at most 46 characters (NGINX's proxy header hash bucket, as auth-response-headers). */
const HEADER_NAME = /^[A-Za-z0-9_-]{1,46}$/u;
/**
 * 1 to 1024 of printable ASCII and spaces, not starting or ending with a space, without `"`, `\\`
 * and `$` (NGINX's quoting and variables) nor `;{}` (render refuses them in any string).
 */
const HEADER_VALUE = /^[!#%-:<-[\]-z|~](?:[ !#%-:<-[\]-z|~]{0,1022}[!#%-:<-[\]-z|~])?$/u;
const MAX_HEADERS = 32;
/** What the auth location sets itself (features/external-auth-location.njk). */
export const AUTH_LOCATION_HEADERS: ReadonlySet<string> = new Set(['content-length', 'x-forwarded-proto', 'x-request-id', 'x-original-uri', 'x-scheme',
  'host', 'x-original-url', 'x-original-method', 'x-sent-from', 'x-real-ip', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-port',
  'x-auth-request-redirect', 'proxy', 'connection']);

/** Whether `name: value` may be sent to the auth service (render checks again). */
export function validAuthProxyHeader(name: string, value: unknown): boolean {
  return HEADER_NAME.test(name) && !AUTH_LOCATION_HEADERS.has(name.toLowerCase()) && typeof value === 'string' && HEADER_VALUE.test(value);
}

/** The headers of a ConfigMap, sorted by name, or why they cannot be sent (naming the key, never quoting a whole value). */
export function readAuthProxyHeaders(configMap: V1ConfigMap, id: string): { ok: true; headers: [string, string][] } | { ok: false; reason: string } {
  const data: Readonly<Record<string, unknown>> = configMap.data ?? {};
  const names = Object.keys(data).sort();
  if (names.length > MAX_HEADERS) return { ok: false, reason: `ConfigMap ${id} has more than ${MAX_HEADERS} keys` };
  const headers: [string, string][] = [];
  for (const name of names) {
    const value = data[name];
    if (!HEADER_NAME.test(name)) return { ok: false, reason: `ConfigMap ${id}: key ${quoteValue(name)} is not a header name (letters, digits, - and _, at most 46)` };
    if (AUTH_LOCATION_HEADERS.has(name.toLowerCase())) return { ok: false, reason: `ConfigMap ${id}: ${name} is set by the controller for every auth request` };
    if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      return { ok: false, reason: `ConfigMap ${id}: the value of ${name} is not 1 to 1024 printable characters without ", \\, $, ; or braces (NGINX variables are not supported)` };
    }
    headers.push([name, value]);
  }
  return { ok: true, headers };
}

/**
 * `config` with the headers of the ConfigMap it names, or denied (503) with the warning that says
 * why. `name` is the auth location's name for a config (it covers the headers).
 */
export function resolveAuthProxyHeaders(
  config: ExternalAuthConfig, ingress: IngressRef, configMaps: readonly V1ConfigMap[], allowCrossNamespace: boolean, annotationsPrefix: string,
  name: (config: ExternalAuthConfig) => string | null,
): { config: ExternalAuthConfig; failure: Failure | null } {
  if (config.proxySetHeadersConfigMap === null) return { config, failure: null };
  const field = `metadata.annotations[${annotationsPrefix}/auth-proxy-set-headers]`;
  const deny = (reason: string): { config: ExternalAuthConfig; failure: Failure } => ({
    config: Object.freeze({ ...config, proxySetHeaders: [], proxySetHeadersDenied: true }),
    failure: makeWarning(ingress, 'AuthProxyHeadersUnusable', field, `${reason}; its paths answer 503`),
  });
  const ref = splitObjectReference(config.proxySetHeadersConfigMap, ingress.namespace);
  const id = `${ref.namespace}/${ref.name}`;
  if (ref.namespace !== ingress.namespace && !allowCrossNamespace) return deny(`ConfigMap ${id} is not in the Ingress's namespace ${ingress.namespace}`);
  const found = configMaps.find((item) => item?.metadata?.namespace === ref.namespace && item?.metadata?.name === ref.name);
  if (found === undefined) return deny(`ConfigMap ${id} not found (or not listed yet)`);
  const read = readAuthProxyHeaders(found, id);
  if (!read.ok) return deny(read.reason);
  const resolved = { ...config, proxySetHeaders: Object.freeze(read.headers.map((pair) => Object.freeze(pair))), proxySetHeadersDenied: false };
  return { config: Object.freeze({ ...resolved, name: name(resolved) }), failure: null };
}
