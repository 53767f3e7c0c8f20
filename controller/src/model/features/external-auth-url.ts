// The grammars of auth-url and auth-signin (and their global-auth-* keys).
// ingress-nginx checks both with URLWithNginxVariableRegex (letters, digits,
// -._~/:, comma, space, ?&= and `$`) and pastes them into nginx.conf: any NGINX
// variable gets through, and the auth-url/auth-snippet CVEs (CVE-2025-1097,
// -1098, -24514) lived there. Here auth-url is a URL without any variable whose
// every part matches a strict grammar; auth-signin may also use a few
// variables from an allow-list (oauth2-proxy's documented
// `https://$host/oauth2/start?rd=$escaped_request_uri`). A value ingress-nginx's
// validator refuses is invalid; one it takes that these grammars do not is
// unsupported (the Ingress is not served).

import { isIPv4, isIPv6 } from 'node:net';
import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { AuthUrl } from '../types.ts';

/** ingress-nginx's URLWithNginxVariableRegex: its validator of auth-url, auth-signin (trimmed). */
const INGRESS_NGINX_URL = /^[-._~a-zA-Z0-9/:, ?&=$]*$/u;
/** ingress-nginx's URLIsValidRegex: auth-signin-redirect-param and auth-request-redirect. */
const INGRESS_NGINX_PLAIN_URL = /^[-._~a-zA-Z0-9/:,?&=]*$/u;

const LABEL = '[A-Za-z0-9](?:[-A-Za-z0-9]{0,61}[A-Za-z0-9])?';
const HOST_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`, 'u');
/** scheme, authority, path, query: each part checked after. */
const URL_SHAPE = /^(https?):\/\/([^/?]+)(\/[^?]*)?(?:\?(.*))?$/u;
const PATH = /^(?:\/[-A-Za-z0-9._~/:]*)?$/u;
const QUERY = /^[-A-Za-z0-9._~/:=&,]*$/u;
const MAX_URL = 2048;

/** The variables auth-signin may use: request facts NGINX fills in, never configuration. */
export const SIGNIN_VARIABLES: ReadonlySet<string> = new Set(['host', 'http_host', 'scheme', 'request_uri', 'escaped_request_uri']);

function refusal<T>(reason: string, ingressNginxTakes: boolean): Checked<T> {
  return ingressNginxTakes ? unsupported(reason) : refuse(reason);
}

/** `host[:port]`: a host name, IPv4 address or bracketed IPv6 address, or why not. */
function parseAuthority(text: string): { host: string; port: number | null } | string {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:]+)(?::([0-9]{1,5}))?$/u.exec(text);
  if (match === null) return 'expected a host, optionally with :port';
  const host = match[1] as string;
  if (host.startsWith('[')) {
    if (!isIPv6(host.slice(1, -1))) return 'expected an IPv6 address inside [ ]';
  } else if (host.length > 253 || !HOST_NAME.test(host)) {
    return 'expected a host name (letters, digits, - and dots) or an IP address';
  } else if (/^[0-9.]+$/u.test(host) && !isIPv4(host)) {
    return 'expected an IPv4 address of four numbers from 0 to 255';
  }
  if (match[2] === undefined) return { host, port: null };
  const port = Number(match[2]);
  return port >= 1 && port <= 65535 ? { host, port } : 'expected a port from 1 to 65535';
}

/** Trimmed as ingress-nginx reads it, and whether its validator and URL parser take it. */
function trimmed(raw: string): { value: string; ingressNginxTakes: boolean } {
  const value = raw.trim();
  return { value, ingressNginxTakes: value !== '' && INGRESS_NGINX_URL.test(value) && /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?]/u.test(value) };
}

/** auth-url: `http(s)://host[:port][/path][?query]`, no variable. */
export function parseAuthUrl(raw: string): Checked<AuthUrl | null> {
  const { value, ingressNginxTakes } = trimmed(raw);
  if (value === '') return accept(null);
  if (value.length > MAX_URL) return refusal(`expected at most ${MAX_URL} characters`, ingressNginxTakes);
  if (value.includes('$')) return refusal('NGINX variables are not allowed in the auth URL', ingressNginxTakes);
  const shape = URL_SHAPE.exec(value);
  if (shape === null) return refusal('expected http:// or https://, a host, an optional :port, path and query', ingressNginxTakes);
  const authority = parseAuthority(shape[2] as string);
  if (typeof authority === 'string') return refusal(authority, ingressNginxTakes);
  const path = shape[3] ?? '';
  const query = shape[4] ?? null;
  if (!PATH.test(path)) return refusal('the path may hold letters, digits and -._~/: only', ingressNginxTakes);
  if (query !== null && !QUERY.test(query)) return refusal('the query may hold letters, digits and -._~/:=&, only', ingressNginxTakes);
  return accept({ scheme: shape[1] as 'http' | 'https', host: authority.host, port: authority.port, path, query });
}

/**
 * The URL NGINX's proxy_pass gets (no variable: the host resolves when NGINX loads the
 * configuration). Without a path it asks for `/`: NGINX would pass the internal location's URI
 * (`/_external-auth-…`, as ingress-nginx does), and refuses a query without a path.
 */
export function authUrlText(url: AuthUrl): string {
  return `${url.scheme}://${url.host}${url.port === null ? '' : `:${url.port}`}${url.path === '' ? '/' : url.path}${url.query === null ? '' : `?${url.query}`}`;
}

/** Every `$name` in `text` (NGINX reads the longest run of letters, digits and _), or the first not allowed. */
function checkVariables(text: string): string | null {
  for (const match of text.matchAll(/\$([A-Za-z0-9_]*)/gu)) {
    const name = match[1] as string;
    if (!SIGNIN_VARIABLES.has(name)) return `the variable "$${name}" is not allowed (only ${[...SIGNIN_VARIABLES].map((item) => `$${item}`).join(', ')})`;
  }
  return null;
}

/** auth-signin: like auth-url, with allow-listed variables in the host, path and query. */
export function parseSigninUrl(raw: string): Checked<string | null> {
  const { value, ingressNginxTakes } = trimmed(raw);
  if (value === '') return accept(null);
  if (value.length > MAX_URL) return refusal(`expected at most ${MAX_URL} characters`, ingressNginxTakes);
  const badVariable = checkVariables(value);
  if (badVariable !== null) return refusal(badVariable, ingressNginxTakes);
  // The variables stand for request facts: check the shape with a placeholder of their grammar.
  const shape = URL_SHAPE.exec(value.replace(/\$[A-Za-z0-9_]+/gu, 'v'));
  if (shape === null) return refusal('expected http:// or https://, a host, an optional :port, path and query', ingressNginxTakes);
  const authority = parseAuthority(shape[2] as string);
  if (typeof authority === 'string') return refusal(authority, ingressNginxTakes);
  if (!PATH.test(shape[3] ?? '')) return refusal('the path may hold letters, digits, -._~/: and allowed variables only', ingressNginxTakes);
  if (shape[4] !== undefined && !QUERY.test(shape[4])) return refusal('the query may hold letters, digits, -._~/:=&, and allowed variables only', ingressNginxTakes);
  return accept(value);
}

/** auth-signin-redirect-param: a query parameter name. */
export function parseRedirectParam(raw: string): Checked<string> {
  const value = raw.trim();
  if (value === '') return accept('rd');
  if (/^[A-Za-z0-9._~-]{1,64}$/u.test(value)) return accept(value);
  return refusal('expected a query parameter name of 1 to 64 letters, digits and -._~', value !== '' && INGRESS_NGINX_PLAIN_URL.test(value));
}

/** auth-request-redirect: the X-Auth-Request-Redirect value (ingress-nginx's grammar, bounded). */
export function parseRequestRedirect(raw: string): Checked<string | null> {
  const value = raw.trim();
  if (value === '') return accept(null);
  if (value.length <= 1024 && INGRESS_NGINX_PLAIN_URL.test(value) && value !== '') return accept(value);
  return refusal('expected at most 1024 letters, digits and -._~/:,?&=', value !== '' && INGRESS_NGINX_PLAIN_URL.test(value));
}

/**
 * The sign-in redirect as ingress-nginx's buildAuthSignURL makes it: the original URL appended as
 * `<param>=$scheme://$http_host$escaped_request_uri` (after `?`, or `&` when the URL has a query),
 * unless the query already gives the parameter a value.
 */
export function signinRedirect(signin: string, param: string): string {
  const queryAt = signin.indexOf('?');
  const original = `${param}=$scheme://$http_host$escaped_request_uri`;
  // Go's url.Query(): pairs split on `&`, empty ones skipped; no pair at all appends `?` (also after a bare `?`).
  const pairs = queryAt < 0 ? [] : signin.slice(queryAt + 1).split('&').filter((pair) => pair !== '');
  if (pairs.length === 0) return `${signin}?${original}`;
  const given = pairs.some((pair) => {
    const [name, ...rest] = pair.split('=');
    return name === param && rest.join('=') !== '';
  });
  return given ? signin : `${signin}&${original}`;
}
