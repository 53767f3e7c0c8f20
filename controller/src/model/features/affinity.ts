// affinity and session-cookie-*: session affinity by cookie, one feature read
// together. Set per Ingress (annotations only, as in ingress-nginx), applied
// per Backend (model/backends.ts: the oldest Ingress with affinity: cookie
// decides), and pushed to Lua with the endpoints: adding, changing or removing
// it never reloads. As in ingress-nginx v1.15.1 (its sessionaffinity parser
// logs and falls back to the default for every key), an invalid value is
// ignored with a warning; a value ingress-nginx takes that this controller
// cannot honour (a cookie name that is no RFC 6265 token, a space inside a
// value, a lifetime beyond 32 bits) refuses the Ingress. Without
// affinity: cookie the other keys change nothing (ingress-nginx reads them only
// with it).

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { AffinityConfig, AffinityMode } from '../types.ts';
import { defineFeature, field, type FeatureKey } from './feature.ts';
import { parseBoolean } from './values.ts';

/** RFC 6265 cookie-name (an RFC 9110 token), short enough for a header. */
const COOKIE_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/u;
/** ingress-nginx's BasicCharsRegex (session-cookie-name, -domain), checked without spaces. */
const INGRESS_NGINX_BASIC = /^[/\-._~a-zA-Z0-9:]*$/u;
/** ingress-nginx's URLIsValidRegex (session-cookie-path), checked without spaces. */
const INGRESS_NGINX_URL = /^[-._~a-zA-Z0-9/:,?&=]*$/u;
/** A 32-bit lifetime: ngx.cookie_time() must still print a date for now + expires. */
const MAX_SECONDS = 2_147_483_647;
const MAX_ATTRIBUTE = 1024;

/** ingress-nginx's ValidateOptions(options, caseSensitive, trimSpace = true), keeping the value as written (trimmed). */
function oneOf<T extends string>(options: readonly T[], caseSensitive: boolean): (raw: string) => Checked<T> {
  return (raw) => {
    const value = raw.trim();
    const compared = caseSensitive ? value : value.toLowerCase();
    return options.includes(compared as T) ? accept(value as T) : refuse(`expected one of ${options.join(', ')}`);
  };
}

function parseType(raw: string): Checked<boolean> {
  return raw.trim() === 'cookie' ? accept(true) : refuse('expected cookie (the only affinity type)');
}

/**
 * A value ingress-nginx validates with its spaces removed and uses trimmed: `ingressNginx` says
 * whether it would take it, `ours` whether it is safe here. Taken there but not here: unsupported.
 */
function attribute(raw: string, ingressNginx: RegExp, ours: RegExp, what: string): Checked<string> {
  const value = raw.trim();
  const taken = value !== '' && ingressNginx.test(raw.replaceAll(' ', ''));
  if (taken && value.length <= MAX_ATTRIBUTE && ours.test(value)) return accept(value);
  return taken ? unsupported(`expected ${what}`) : refuse(`expected ${what}`);
}

function parseCookieName(raw: string): Checked<string> {
  return attribute(raw, INGRESS_NGINX_BASIC, COOKIE_NAME, 'a cookie name: 1 to 128 letters, digits or !#$%&\'*+.^_`|~-');
}

function parseCookiePath(raw: string): Checked<string | null> {
  return attribute(raw, INGRESS_NGINX_URL, /^[-._~a-zA-Z0-9/:,?&=]+$/u, 'a path of letters, digits and -._~/:,?&= without spaces');
}

function parseCookieDomain(raw: string): Checked<string | null> {
  return attribute(raw, INGRESS_NGINX_BASIC, /^[-._~a-zA-Z0-9/:]+$/u, 'a domain of letters, digits and -._~/: without spaces');
}

/**
 * Whole seconds. ingress-nginx's check (`(^0|-?[1-9]\d*$)`, unanchored) lets through values its
 * Lua cannot read (`0abc`: a run-time error there); only integers are taken here, others are
 * ignored as invalid.
 */
function parseSeconds(raw: string): Checked<number | null> {
  const value = raw.trim();
  if (!/^[+-]?\d+$/u.test(value)) return refuse('expected whole seconds');
  const seconds = Number(value);
  return Math.abs(seconds) <= MAX_SECONDS ? accept(seconds) : unsupported(`expected seconds from -${MAX_SECONDS} to ${MAX_SECONDS}`);
}

const MODES: readonly AffinityMode[] = ['balanced', 'persistent'];

type Key = FeatureKey<AffinityConfig>;

function key<K extends keyof AffinityConfig>(
  name: K, parse: (raw: string) => Checked<AffinityConfig[K]>, annotation: string, risk: 'Low' | 'Medium', defaultText: string, doc: string, difference?: string,
): Key {
  return field<AffinityConfig, K>(name, parse, {
    annotation: { name: annotation, scope: 'ingress', risk }, defaultText, doc, invalid: 'ignore', ...(difference === undefined ? {} : { difference }),
  });
}

export const affinityFeature = defineFeature({
  name: 'affinity',
  title: 'Session affinity',
  doc: 'affinity: cookie pins a client to one endpoint of the backend by a cookie the balancer sets (HttpOnly, Path = the '
    + 'location\'s path unless session-cookie-path says otherwise; its value is a hash, never the endpoint\'s address). '
    + 'balanced rebalances some sessions when endpoints are added, persistent keeps every session on its endpoint while it '
    + 'exists. Per backend: when several Ingresses route to one Service port, the oldest with affinity: cookie decides. '
    + 'Applied by Lua: adding, changing or removing it never reloads.',
  output: { kind: 'lua' },
  defaults: {
    enabled: false, mode: 'balanced', canaryBehavior: 'sticky', cookieName: 'INGRESSCOOKIE', cookiePath: null, cookieDomain: null,
    cookieExpires: null, cookieMaxAge: null, cookieSecure: false, cookieSameSite: null, cookieConditionalSameSiteNone: false, cookieChangeOnFailure: false,
  },
  keys: [
    key('enabled', parseType, 'affinity', 'Low', '', 'cookie: session affinity by cookie (the only type).'),
    key('mode', oneOf(MODES, true), 'affinity-mode', 'Medium', 'balanced',
      'balanced: sessions are rebalanced when endpoints are added; persistent: a session keeps its endpoint while it exists.'),
    key('canaryBehavior', oneOf(['sticky', 'legacy'] as const, true), 'affinity-canary-behavior', 'Low', 'sticky',
      'On the canary Ingress: sticky keeps a client on the canary once it was sent there; legacy lets the canary rules ignore affinity.'),
    key('cookieName', parseCookieName, 'session-cookie-name', 'Medium', 'INGRESSCOOKIE', 'The cookie\'s name.',
      'an RFC 6265 cookie name of at most 128 characters: a name ingress-nginx takes with "/", ":" or a space refuses the Ingress; '
      + 'the request\'s cookie is found by NGINX\'s $cookie_ lookup, which ignores case'),
    key('cookiePath', parseCookiePath, 'session-cookie-path', 'Medium', '',
      'The cookie\'s Path (default: the location\'s path; set it with use-regex, or the regular expression becomes the Path).',
      'a path with a space inside refuses the Ingress'),
    key('cookieDomain', parseCookieDomain, 'session-cookie-domain', 'Medium', '', 'The cookie\'s Domain (default: none).',
      'a domain with a space inside refuses the Ingress'),
    key('cookieExpires', parseSeconds, 'session-cookie-expires', 'Medium', '', 'Seconds until the cookie expires, sent as Expires (default: none).',
      'whole seconds within 32 bits: a larger integer refuses the Ingress, a value ingress-nginx\'s loose check lets through but its Lua cannot read is ignored'),
    key('cookieMaxAge', parseSeconds, 'session-cookie-max-age', 'Medium', '', 'The cookie\'s Max-Age in seconds (default: none).',
      'whole seconds within 32 bits: a larger integer refuses the Ingress'),
    key('cookieSecure', parseBoolean, 'session-cookie-secure', 'Low', 'false', 'Secure on every response (without it, only on HTTPS requests).'),
    key('cookieSameSite', oneOf(['none', 'lax', 'strict'], false), 'session-cookie-samesite', 'Low', '', 'The cookie\'s SameSite: None, Lax or Strict, as written (another spelling, e.g. lax, sends none: lua-resty-cookie\'s rule in ingress-nginx).'),
    key('cookieConditionalSameSiteNone', parseBoolean, 'session-cookie-conditional-samesite-none', 'Low', 'false',
      'Leave out SameSite=None for user agents known to reject it.'),
    key('cookieChangeOnFailure', parseBoolean, 'session-cookie-change-on-failure', 'Low', 'false',
      'A retry after a failed try goes to another endpoint and sets a new cookie (without it, the retry stays on the cookie\'s endpoint).'),
  ],
  proof: ['controller/src/model/features/affinity.test.ts', 'controller/src/model/affinity-backends.test.ts', 'lua/sticky.test.ts', 'lua/sticky-cookie.test.ts', 'lua/sticky-ring.test.ts', 'controller/src/diff/decide-affinity.test.ts', 'e2e/affinity.test.ts'],
});
