// Small grammar helpers shared by feature keys. Each returns Checked so the
// engine (parse.ts) can turn a refusal into a failure.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';

/** strconv.ParseBool's spellings, which ingress-nginx users already write. */
const TRUE_WORDS = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);
const FALSE_WORDS = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

/** A boolean in Go's ParseBool spellings. */
export function parseBoolean(value: string): Checked<boolean> {
  if (TRUE_WORDS.has(value)) return accept(true);
  if (FALSE_WORDS.has(value)) return accept(false);
  return refuse('expected true or false');
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The integer strconv.Atoi reads from `value` (ingress-nginx's ValidateInt and GetIntAnnotation:
 * an optional sign, decimal digits, within int64), or null.
 */
export function atoi(value: string): bigint | null {
  if (!/^[+-]?\d+$/.test(value)) return null;
  const read = BigInt(value);
  return read >= INT64_MIN && read <= INT64_MAX ? read : null;
}

/**
 * Whole seconds with an optional `s` suffix, within [min, max]. An integer out of the range that
 * ingress-nginx would take (strconv.Atoi reads it: no `s`) is unsupported, not invalid. NGINX's
 * msec directives (proxy_read_timeout…) refuse more than NGX_MAX_INT_T_VALUE / 1000 s
 * (ngx_parse_time): `max` must stay a safe integer, and every value accepted is within it.
 */
export function parseSeconds(value: string, min: number, max: number): Checked<number> {
  const match = /^([+-]?\d+)(s?)$/.exec(value);
  if (!match) return refuse('expected whole seconds, optionally followed by "s"');
  const seconds = BigInt(match[1] as string);
  if (seconds >= BigInt(min) && seconds <= BigInt(max)) return accept(Number(seconds));
  const reason = `expected a value from ${min} to ${max} seconds`;
  return match[2] === '' && atoi(value) !== null ? unsupported(reason) : refuse(reason);
}

/** One of a fixed set of words (exact spelling). */
export function parseOneOf<T extends string>(value: string, allowed: readonly T[]): Checked<T> {
  const found = allowed.find((word) => word === value);
  return found === undefined ? refuse(`expected one of ${allowed.join(', ')}`) : accept(found);
}

/** NGX_MAX_OFF_T_VALUE and NGX_MAX_INT_T_VALUE on 64-bit Linux (off_t and ngx_int_t are int64). */
const NGINX_MAX_INT64 = 2n ** 63n - 1n;

/** NGINX's scale of each size unit (ngx_parse_offset: k, m, g in either case; none = bytes). */
const OFFSET_SCALE: Readonly<Record<string, bigint>> = Object.freeze({ '': 1n, k: 1024n, m: 1024n ** 2n, g: 1024n ** 3n });

/**
 * The largest number NGINX takes before each unit of an offset (client_max_body_size and the
 * other off_t sizes): ngx_parse_offset refuses a number above NGX_MAX_OFF_T_VALUE / scale,
 * e.g. 8589934591g; 8589934592g fails `nginx -t` with "invalid value".
 */
export function nginxOffsetLimit(unit: string): bigint {
  const scale = OFFSET_SCALE[unit.toLowerCase()];
  if (scale === undefined) throw new RangeError(`not an NGINX offset unit: ${unit}`);
  return NGINX_MAX_INT64 / scale;
}

/**
 * An NGINX offset (ngx_parse_offset's grammar: digits and an optional k, m or g in either case)
 * of at most `maxDigits` digits and within NGINX's own limit for its unit.
 */
export function parseNginxOffset(value: string, maxDigits: number): Checked<string> {
  const match = /^(\d+)([kKmMgG]?)$/u.exec(value);
  if (!match) return refuse('expected an NGINX size such as 0, 512k, 8m or 1g');
  if (match[1]!.length > maxDigits) return refuse(`expected an NGINX size of at most ${maxDigits} digits`);
  const limit = nginxOffsetLimit(match[2]!);
  if (BigInt(match[1]!) > limit) return refuse(`too large for NGINX: at most ${limit}${match[2]!}`);
  return accept(value);
}
