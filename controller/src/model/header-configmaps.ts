// ConfigMaps of headers: the data of a ConfigMap read by name, each key a
// header name and each value its value (ingress-nginx v1.15.1's
// proxy-set-headers and add-headers; auth-proxy-set-headers has the same
// shape). ingress-nginx pastes both into nginx.conf unchecked; here a name is
// an RFC 9110 token without `$` or `'`, and a value printable ASCII without `"` or
// `\` whose `$` only starts a variable NGINX 1.26 (or our nginx.conf) knows,
// as `$name` or `${name}`: NGINX interpolates the value (ingress-nginx's own
// example sends `t=${msec}`), and an unknown variable would fail `nginx -t`.
// A refused entry is left out with its own failure; the others are used.

import type { V1ConfigMap } from '@kubernetes/client-node';
import { makeFailure, makeWarning, quoteValue } from './failure.ts';
import { isLogFormatVariable } from './log-format.ts';
import type { Failure } from './types.ts';

/**
 * RFC 9110 token characters but `$` (NGINX would read a variable there) and `'` (no header needs it;
 * no ConfigMap key can hold it), at most 46: proxy_set_header and proxy_hide_header names go into
 * NGINX's header hash, whose 64-byte buckets (proxy_headers_hash_bucket_size, as ingress-nginx) hold
 * no longer name, and a longer one fails nginx -t, so every reload (external-auth.ts has the same cap).
 */
const HEADER_NAME = /^[!#%&*+.^_`|~0-9A-Za-z-]{1,46}$/u;
/** Printable ASCII without the quote render uses and NGINX's escape character. */
const VALUE_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/u;
/** `$name` or `${name}`; a `$` followed by neither is reported as such. */
const VARIABLE = /\$(?:\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))?/gu;
const MAX_VALUE_LENGTH = 4000;
const MAX_HEADERS = 100;

/**
 * Headers that frame the message or the connection: sent by a user, they would desynchronise
 * NGINX and the peer (request smuggling towards backends, broken responses towards clients).
 */
const FRAMING_HEADERS: ReadonlySet<string> = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade']);

/**
 * The request headers the controller sends itself (rootfs/etc/nginx/template/proxy-headers.njk,
 * the one list; header-configmaps.test.ts reads the template to keep the two equal), lower case.
 * NGINX sends a proxy_set_header twice when it is given twice, so in ingress-nginx a
 * proxy-set-headers entry with one of these names reaches the backend as a second header beside
 * the controller's (two Host headers: most servers answer 400). Here the controller's stays and
 * the entry is refused with a warning.
 */
export const CONTROLLER_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  'host', 'x-request-id', 'x-real-ip', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-port', 'x-forwarded-proto',
  'x-forwarded-scheme', 'x-original-uri', 'x-scheme', 'x-original-forwarded-for', 'x-original-forwarded-host',
  'x-forwarded-prefix', 'upgrade', 'connection', 'proxy', 'ssl-client-verify', 'ssl-client-subject-dn',
  'ssl-client-issuer-dn', 'ssl-client-cert',
]);

/** An HTTP header name this controller prints: token characters without `$`, at most 46. */
export function isHeaderName(name: string): boolean {
  return HEADER_NAME.test(name);
}

/** Why `value` cannot be a header value (one line, never quoting it whole), or null when it can. */
export function headerValueProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'is not a string';
  if (value.length > MAX_VALUE_LENGTH) return `is longer than ${MAX_VALUE_LENGTH} characters`;
  if (!VALUE_TEXT.test(value)) return 'holds a control character, a non-ASCII character, " or \\';
  for (const match of value.matchAll(VARIABLE)) {
    const name = match[1] ?? match[2];
    if (name === undefined) return 'has a "$" that starts no variable ($name or ${name})';
    if (!isLogFormatVariable(name)) return `names the variable ${quoteValue(`$${name}`)}, which NGINX does not know`;
  }
  return null;
}

/** What a ConfigMap of headers is read for: its key in messages, and the names it may not set. */
export interface HeaderConfigMapUse {
  /** The setting that names the ConfigMap, e.g. `proxy-set-headers` (messages only). */
  readonly key: string;
  /** Lower-case names refused as the controller's own (null: none). */
  readonly reserved: ReadonlySet<string> | null;
}

/** The headers of a ConfigMap named `id` (`namespace/name`), sorted by name, and why each refused entry was left out. */
export function readHeaderConfigMap(configMap: V1ConfigMap, id: string, use: HeaderConfigMapUse): { headers: [string, string][]; problems: string[] } {
  const data: Readonly<Record<string, unknown>> = configMap.data ?? {};
  const names = Object.keys(data).sort();
  const headers: [string, string][] = [];
  const problems: string[] = [];
  for (const name of names) {
    const lower = name.toLowerCase();
    const value = data[name];
    const valueProblem = headerValueProblem(value);
    if (!isHeaderName(name)) problems.push(`key ${quoteValue(name)} is not an HTTP header name`);
    else if (FRAMING_HEADERS.has(lower)) problems.push(`${name} frames the message and cannot be set`);
    else if (use.reserved?.has(lower) === true) problems.push(`${name} is a header the controller sends itself; its value stays`);
    else if (valueProblem !== null) problems.push(`the value of ${name} ${valueProblem}`);
    else if (headers.length >= MAX_HEADERS) problems.push(`${name}: more than ${MAX_HEADERS} headers`);
    else headers.push([name, value as string]);
  }
  return { headers, problems };
}

/**
 * The headers of the ConfigMap `ref` (`namespace/name`) names, read from `configMaps`, and the
 * failures to report (ingress null: they are the ConfigMap's). A missing ConfigMap gives no headers
 * and one failure; everything else keeps being served.
 */
export function resolveHeaderConfigMap(
  ref: string | null, configMaps: readonly V1ConfigMap[], use: HeaderConfigMapUse,
): { headers: readonly (readonly [string, string])[]; failures: Failure[] } {
  if (ref === null) return { headers: [], failures: [] };
  const slash = ref.indexOf('/');
  const namespace = ref.slice(0, slash);
  const name = ref.slice(slash + 1);
  const found = configMaps.find((item) => item?.metadata?.namespace === namespace && item?.metadata?.name === name);
  if (found === undefined) {
    return {
      headers: [],
      failures: [makeFailure(null, 'HeadersConfigMapNotFound', use.key, `ConfigMap ${ref} named by ${use.key} not found (or not listed yet); no header of it is sent until it is`)],
    };
  }
  const read = readHeaderConfigMap(found, ref, use);
  const failures = read.problems.map((problem) => makeWarning(null, 'InvalidHeader', `ConfigMap ${ref}`, `${use.key}: ${problem}; the entry is left out`));
  return { headers: Object.freeze(read.headers.map((pair) => Object.freeze(pair))), failures };
}
