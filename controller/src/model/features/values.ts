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
 * ingress-nginx would take (strconv.Atoi reads it: no `s`) is unsupported, not invalid.
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
