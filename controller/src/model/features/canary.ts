// canary-*: one feature read together. A canary Ingress adds no server or
// location of its own: each of its paths attaches to the location of the main
// Ingress with the same host and path (model/canaries.ts), and the split is
// data for Lua (Model.routes), so adding, changing or removing a canary never
// reloads. As in ingress-nginx v1.15.1, a value that does not parse is ignored
// with a warning and its default applies; a value ingress-nginx takes that this
// controller cannot honour (a weight out of range, a header name that is no HTTP
// token, a pattern that does not compile) refuses the Ingress.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { CanaryConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { atoi, parseBoolean } from './values.ts';

/** An HTTP header or cookie name (RFC 9110 token), short enough for a variable name. */
const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/u;
const MAX_WEIGHT = 1_000_000;
/** ingress-nginx's BasicCharsRegex: its validator of canary-by-header, -value and -cookie (spaces removed first). */
const INGRESS_NGINX_BASIC = /^[-/._~a-zA-Z0-9:]*$/u;
/** ingress-nginx's IsValidRegex: its validator of canary-by-header-pattern. */
const INGRESS_NGINX_PATTERN = /^[-/._~a-zA-Z0-9:^$[\](){}*+?|&=\\]*$/u;

/**
 * A refused value: unsupported when ingress-nginx would take it (its validator passes and its
 * parser keeps something), else invalid (ignored, as there).
 */
function refusal<T>(reason: string, ingressNginxTakes: boolean): Checked<T> {
  return ingressNginxTakes ? unsupported(reason) : refuse(reason);
}

/** ingress-nginx validates these names and values without their spaces and uses them trimmed. */
function basic(raw: string): { readonly value: string; readonly ingressNginxTakes: boolean } {
  const value = raw.replace(/^ +| +$/gu, '');
  return { value, ingressNginxTakes: value !== '' && INGRESS_NGINX_BASIC.test(raw.replaceAll(' ', '')) };
}

function parseToken(raw: string): Checked<string | null> {
  const { value, ingressNginxTakes } = basic(raw);
  return TOKEN.test(value) ? accept(value) : refusal('expected a header or cookie name (letters, digits, -_. and the like)', ingressNginxTakes);
}

function parseHeaderValue(raw: string): Checked<string | null> {
  const { value, ingressNginxTakes } = basic(raw);
  // Bytes, not characters: Lua (routes_api.lua) refuses a value over 1024 bytes, and with it the whole push of every route.
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  return value.length > 0 && Buffer.byteLength(value, 'utf8') <= 1024 && !/[\u0000-\u001f\u007f]/u.test(value)
    ? accept(value) : refusal('expected a header value of 1 to 1024 bytes (UTF-8) of printable characters', ingressNginxTakes);
}

/**
 * Escapes JavaScript (u flag) and PCRE2 both take and read alike: classes, controls, hex bytes,
 * back-references, general categories, escaped punctuation. Not \u or \u{...} (JavaScript only:
 * PCRE2 refuses them), \x{...}, \Q, \h, \R and the like (PCRE only), nor \v (not the same class).
 */
const SHARED_ESCAPE = /^\\(?:[dDwWsSbBfnrt0-9]|x[0-9A-Fa-f]{2}|c[A-Za-z]|[pP]\{[A-Z][a-z]?\}|[^A-Za-z0-9])/u;

/** True when JavaScript's check vouches for PCRE2 too (Lua compiles the pattern; one it refuses stops every route push). */
export function readAlike(pattern: string): boolean {
  // Printable ASCII: PCRE runs without UTF-8 in Lua, so `é+` would repeat a byte there. `[]`, `[^]` and POSIX classes read differently.
  if (!/^[\x20-\x7e]*$/u.test(pattern) || /\[\^?\]|\[[:=.]/u.test(pattern)) return false;
  for (let at = pattern.indexOf('\\'); at >= 0; at = pattern.indexOf('\\', at)) {
    const escape = SHARED_ESCAPE.exec(pattern.slice(at));
    if (escape === null) return false;
    at += escape[0].length;
  }
  return true;
}

function parsePattern(value: string): Checked<string | null> {
  const ingressNginxTakes = value !== '' && INGRESS_NGINX_PATTERN.test(value);
  if (value.length === 0 || value.length > 256) return refusal('expected a regular expression of 1 to 256 characters', ingressNginxTakes);
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001f\u007f]/u.test(value) || value.includes('(?')) return refusal('control characters and (? groups are not allowed', ingressNginxTakes);
  try {
    new RegExp(value, 'u');
  } catch {
    return refusal('not a valid regular expression', ingressNginxTakes);
  }
  if (!readAlike(value)) return refusal('only printable ASCII and escapes both JavaScript and PCRE read alike (no \\u, \\x{..}, \\v, [], POSIX classes)', ingressNginxTakes);
  return accept(value);
}

function parseCount(min: number): (value: string) => Checked<number> {
  return (value) => {
    // ingress-nginx takes any integer strconv.Atoi reads: one out of the range is unsupported.
    const read = atoi(value);
    if (read !== null && read >= BigInt(min) && read <= BigInt(MAX_WEIGHT)) return accept(Number(read));
    return refusal(`expected a whole number from ${min} to ${MAX_WEIGHT}`, read !== null);
  };
}

/**
 * What configures a canary, as ingress-nginx judges it: a weight above 0, a header, value, pattern or
 * cookie that took effect. A weight of 0 or a value ignored as invalid configures nothing.
 */
function configures(config: CanaryConfig): boolean {
  return config.weight > 0 || [config.header, config.headerValue, config.headerPattern, config.cookie].some((value) => value !== null);
}

/**
 * ingress-nginx drops canary settings without `canary: "true"`; here they refuse the Ingress.
 * A weight above the total means "always" (model/canaries.ts pushes it as the total).
 */
function finish(config: CanaryConfig): Checked<CanaryConfig> {
  if (!config.enabled && configures(config)) {
    return refuse('canary-* settings need canary: "true"');
  }
  return accept(config);
}

export const canaryFeature = defineFeature({
  name: 'canary',
  title: 'Canary',
  doc: 'A canary Ingress sends part of the traffic of the main Ingress with the same host and path to its own '
    + 'Service: by header (always/never, an exact value or a pattern), then by cookie (always/never), then by '
    + 'weight. Applied by Lua: adding, changing or removing a canary never reloads. A canary without a main '
    + 'Ingress is not served; one canary per main path (the oldest wins). A canary\'s spec.defaultBackend '
    + 'splits the catch-all server\'s / (ingress-nginx\'s default server); its spec.tls is not used (the main '
    + 'Ingress\'s certificate serves the host, as in ingress-nginx).',
  output: { kind: 'lua' },
  defaults: { enabled: false, weight: 0, weightTotal: 100, header: null, headerValue: null, headerPattern: null, cookie: null },
  keys: [
    field<CanaryConfig, 'enabled'>('enabled', parseBoolean, {
      annotation: { name: 'canary', scope: 'ingress', risk: 'Low' }, defaultText: 'false', invalid: 'ignore',
      doc: 'This Ingress is a canary of the main Ingress with the same host and path.',
      difference: 'canary-* settings without canary: "true" refuse the Ingress instead of being dropped silently; the access log\'s $proxy_alternative_upstream_name stays empty (the metrics\' canary label is filled)',
    }),
    field<CanaryConfig, 'weight'>('weight', parseCount(0), {
      annotation: { name: 'canary-weight', scope: 'ingress', risk: 'Low' }, defaultText: '0', invalid: 'ignore',
      doc: 'Requests sent to the canary, out of canary-weight-total.',
      difference: 'from 0 to 1000000 (ingress-nginx takes any integer): other integers refuse the Ingress',
    }),
    field<CanaryConfig, 'weightTotal'>('weightTotal', parseCount(1), {
      annotation: { name: 'canary-weight-total', scope: 'ingress', risk: 'Low' }, defaultText: '100', invalid: 'ignore',
      doc: 'The total canary-weight is out of.',
      difference: 'from 1 to 1000000 (ingress-nginx takes any integer): other integers refuse the Ingress',
    }),
    field<CanaryConfig, 'header'>('header', parseToken, {
      annotation: { name: 'canary-by-header', scope: 'ingress', risk: 'Medium' }, defaultText: '', invalid: 'ignore',
      doc: 'Request header that decides first: "always" → canary, "never" → main.',
      difference: 'an HTTP token of at most 128 characters: a name ingress-nginx takes beyond that (with "/", ":", a space) refuses the Ingress',
    }),
    field<CanaryConfig, 'headerValue'>('headerValue', parseHeaderValue, {
      annotation: { name: 'canary-by-header-value', scope: 'ingress', risk: 'Medium' }, defaultText: '', invalid: 'ignore',
      doc: 'The header value that routes to the canary (instead of "always").',
      difference: 'at most 1024 bytes (UTF-8): a longer value refuses the Ingress',
    }),
    field<CanaryConfig, 'headerPattern'>('headerPattern', parsePattern, {
      annotation: { name: 'canary-by-header-pattern', scope: 'ingress', risk: 'Medium' }, defaultText: '', invalid: 'ignore',
      doc: 'A regular expression the header value must match (ignored when canary-by-header-value is set).',
      difference: 'at most 256 characters of printable ASCII, no (? groups, escapes PCRE and JavaScript read alike, and it must compile: another pattern ingress-nginx takes refuses the Ingress',
    }),
    field<CanaryConfig, 'cookie'>('cookie', parseToken, {
      annotation: { name: 'canary-by-cookie', scope: 'ingress', risk: 'Medium' }, defaultText: '', invalid: 'ignore',
      doc: 'Cookie that decides after the header: "always" → canary, "never" → main.',
      difference: 'an HTTP token of at most 128 characters: a name ingress-nginx takes beyond that (with "/", ":", a space) refuses the Ingress',
    }),
  ],
  finish,
  proof: ['controller/src/model/features/canary.test.ts', 'lua/canary.test.ts', 'e2e/canary.test.ts'],
});
