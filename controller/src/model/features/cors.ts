// enable-cors and cors-*, with ingress-nginx v1.15.1's defaults and validation
// (internal/ingress/annotations/cors, nginx.tmpl's CORS block): each value is
// checked as ingress-nginx checks it (its regexes rewritten without nested
// quantifiers: JavaScript backtracks where Go's RE2 does not), an invalid one
// is ignored with a warning and its default applies — for cors-allow-origin
// that default is `*`, as there. Origins are matched by an anchored,
// case-insensitive regex built here from escaped parts (originRegex), never
// from user text.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { CorsConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { atoi, parseBoolean } from './values.ts';

export const DEFAULT_METHODS = 'GET, PUT, POST, DELETE, PATCH, OPTIONS';
export const DEFAULT_HEADERS = 'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization';
export const DEFAULT_MAX_AGE = 1_728_000;
/** Origins one Ingress may list: each is a branch of the regex every request of its paths runs. */
export const MAX_ORIGINS = 100;
/** NGINX reads no token past 4094 characters (nginx -t would fail for everyone): the origin regex and each header list stay well within. */
export const MAX_ORIGIN_REGEX = 4000;
export const MAX_LIST_LENGTH = 1024;

/** Go's regexp \s: what ingress-nginx's `\s?` separators take besides the space. */
const GO_SPACE = '[\\t\\n\\f\\r ]';
const SEPARATOR = `(?:,${GO_SPACE}?|${GO_SPACE})`;
/** ^([A-Za-z]+,?\s?)+$ (corsMethodsRegex), as the same language without nested quantifiers. */
const METHODS = new RegExp(`^[A-Za-z]+(?:${SEPARATOR}[A-Za-z]+)*${SEPARATOR}?$`, 'u');
/** ^(([A-Za-z0-9\-\_]+|\*),?\s?)+$ (corsExposeHeadersRegex), likewise. */
const EXPOSE = new RegExp(`^[A-Za-z0-9_*-]+(?:${SEPARATOR}[A-Za-z0-9_*-]+)*${SEPARATOR}?$`, 'u');
/** parser.HeadersVariable. */
const HEADERS = /^[A-Za-z0-9_, -]*$/u;
/** corsOriginRegex: one origin ingress-nginx keeps (others in a valid list are skipped). */
const ORIGIN = /^(?:[a-z]+:\/\/(?:\*\.)?[A-Za-z0-9.-]*(?::\d+)?|null)$/u;

/** ingress-nginx's normalizeString: each line trimmed with Go's TrimSpace. */
function normalize(raw: string): string {
  return raw.split('\n').map((line) => line.replace(/^[\t\n\v\f\r \u0085\u00a0]+|[\t\n\v\f\r \u0085\u00a0]+$/gu, '')).join('\n');
}

/**
 * corsOriginRegexValidator (spaces removed first), read as its rules: the characters of origins and
 * commas; `/` only in `://` after a lower-case scheme letter; `:` before a port's digits or `//`;
 * `*` only as `*.`. (The regex repeats groups that may match nothing: origins may run together.)
 */
function originListValid(spaceless: string): boolean {
  if (spaceless === '*') return true;
  if (!/^[A-Za-z0-9.:/*,-]*$/u.test(spaceless)) return false;
  const withoutSchemes = spaceless.replace(/(?<=[a-z]):\/\//gu, '');
  return !withoutSchemes.includes('/') && !/:(?!\d)/u.test(withoutSchemes) && !/\*(?!\.)/u.test(withoutSchemes);
}

function parseOrigins(raw: string): Checked<readonly string[]> {
  // Validated as written (spaces removed), then read trimmed, as ingress-nginx does.
  if (!originListValid(raw.replaceAll(' ', '')) || /[\r\n]/u.test(raw)) return refuse('expected origins such as https://app.example.com, https://*.example.com:8443, null or *');
  const origins: string[] = [];
  for (const item of normalize(raw).split(',').map((origin) => origin.trim())) {
    if (item === '*') return accept(Object.freeze(['*']));
    // ingress-nginx skips the items of a valid list that are no origin (e.g. without a scheme).
    if (item === '' || !ORIGIN.test(item) || origins.includes(item)) continue;
    origins.push(item);
  }
  if (origins.length > MAX_ORIGINS) return unsupported(`at most ${MAX_ORIGINS} origins`);
  if (origins.length > 0 && originRegex(origins).length > MAX_ORIGIN_REGEX) return unsupported(`the origins make a regex of more than ${MAX_ORIGIN_REGEX} characters, longer than NGINX reads`);
  return accept(Object.freeze(origins));
}

/**
 * The regex of an origin list (not `*`): anchored, one branch per origin, built from the origin's
 * parts with `.` written `[.]` (no backslash reaches nginx.conf); `*.` stands for one label, as
 * ingress-nginx's `[A-Za-z0-9\-]+`. NGINX runs it case-insensitively (`~*`), as ingress-nginx does.
 */
export function originRegex(origins: readonly string[]): string {
  const branches = origins.map((origin) => origin.replace('*.', '\u0000').replaceAll('.', '[.]').replace('\u0000', '[A-Za-z0-9-]+[.]'));
  return `^(?:${branches.join('|')})$`;
}

/** A list validated by ingress-nginx's regex (spaces removed), used as written (trimmed) when it also matches with its spaces. */
function listOf(pattern: RegExp, what: string): (raw: string) => Checked<string> {
  return (raw) => {
    const value = normalize(raw);
    // Validated as written (spaces removed; no line break), then matched again as read (trimmed), as ingress-nginx does.
    if (value === '' || /[\r\n]/u.test(raw) || !pattern.test(raw.replaceAll(' ', '')) || !pattern.test(value)) return refuse(`expected ${what}`);
    // ingress-nginx pastes the value into the header: a tab or form feed would reach the response.
    if (!/^[A-Za-z0-9_*, -]+$/u.test(value)) return unsupported(`${what}, separated by commas and spaces only`);
    if (value.length > MAX_LIST_LENGTH) return unsupported(`at most ${MAX_LIST_LENGTH} characters`);
    return accept(value);
  };
}

function parseMaxAge(raw: string): Checked<number> {
  const read = atoi(raw);
  if (read === null) return refuse('expected whole seconds');
  return Number.isSafeInteger(Number(read)) ? accept(Number(read)) : unsupported('expected whole seconds within 2^53');
}

const ingressKey = (name: string, risk: 'Low' | 'Medium') => ({ name, scope: 'ingress' as const, risk });

export const corsFeature = defineFeature({
  name: 'cors',
  title: 'CORS',
  doc: 'Cross-Origin Resource Sharing as ingress-nginx answers it: with enable-cors, a request whose Origin matches cors-allow-origin '
    + '(a comma list of scheme://host[:port], scheme://*.host[:port] for one subdomain label, null, or * for any) gets the CORS '
    + 'headers with its Origin echoed (`*` for *), and such a preflight (OPTIONS) is answered 204 without reaching the backend. '
    + 'Invalid values are ignored with a warning and their defaults apply (for cors-allow-origin: *). A preflight is answered '
    + 'before allow lists and authentication, as in ingress-nginx: browsers send it without credentials.',
  output: { kind: 'location', template: 'features/cors.njk' },
  defaults: {
    enabled: false, allowOrigin: Object.freeze(['*']), allowMethods: DEFAULT_METHODS, allowHeaders: DEFAULT_HEADERS,
    exposeHeaders: '', allowCredentials: true, maxAge: DEFAULT_MAX_AGE,
  },
  keys: [
    field<CorsConfig, 'enabled'>('enabled', parseBoolean, { annotation: ingressKey('enable-cors', 'Low'), defaultText: 'false', doc: 'Turns CORS on for the Ingress\'s paths.', invalid: 'ignore' }),
    field<CorsConfig, 'allowOrigin'>('allowOrigin', parseOrigins, {
      annotation: ingressKey('cors-allow-origin', 'Medium'), defaultText: '*', invalid: 'ignore',
      doc: 'Origins allowed: comma-separated scheme://host[:port], scheme://*.host[:port] (one label), null, or * (any).',
      difference: `the match is anchored at both ends (ingress-nginx's regex only at the end); at most ${MAX_ORIGINS} origins, ${MAX_ORIGIN_REGEX} characters of regex`,
    }),
    field<CorsConfig, 'allowMethods'>('allowMethods', listOf(METHODS, 'methods (letters)'), {
      annotation: ingressKey('cors-allow-methods', 'Medium'), defaultText: DEFAULT_METHODS, doc: 'Access-Control-Allow-Methods.', invalid: 'ignore',
    }),
    field<CorsConfig, 'allowHeaders'>('allowHeaders', listOf(HEADERS, 'header names (letters, digits, - and _)'), {
      annotation: ingressKey('cors-allow-headers', 'Medium'), defaultText: DEFAULT_HEADERS, doc: 'Access-Control-Allow-Headers.', invalid: 'ignore',
    }),
    field<CorsConfig, 'exposeHeaders'>('exposeHeaders', listOf(EXPOSE, 'header names (letters, digits, - and _) or *'), {
      annotation: ingressKey('cors-expose-headers', 'Medium'), defaultText: '', doc: 'Access-Control-Expose-Headers (not sent when empty).', invalid: 'ignore',
    }),
    field<CorsConfig, 'allowCredentials'>('allowCredentials', parseBoolean, {
      annotation: ingressKey('cors-allow-credentials', 'Low'), defaultText: 'true', doc: 'Sends Access-Control-Allow-Credentials: true.', invalid: 'ignore',
    }),
    field<CorsConfig, 'maxAge'>('maxAge', parseMaxAge, {
      annotation: ingressKey('cors-max-age', 'Low'), defaultText: String(DEFAULT_MAX_AGE), doc: 'Access-Control-Max-Age in seconds.', invalid: 'ignore',
    }),
  ],
  proof: ['controller/src/model/features/cors.test.ts', 'controller/src/render/access-values.test.ts', 'e2e/cors.test.ts'],
});
