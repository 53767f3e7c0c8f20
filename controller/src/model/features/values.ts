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

/**
 * Whole seconds with an optional `s` suffix, within [min, max]. An integer out of the range is
 * one ingress-nginx accepts (it takes any integer): unsupported, not invalid.
 */
export function parseSeconds(value: string, min: number, max: number): Checked<number> {
  const match = /^(-?\d{1,15})s?$/.exec(value);
  if (!match) return refuse('expected whole seconds, optionally followed by "s"');
  const seconds = Number(match[1]);
  if (seconds < min || seconds > max) return unsupported(`expected a value from ${min} to ${max} seconds`);
  return accept(seconds);
}

/** One of a fixed set of words (exact spelling). */
export function parseOneOf<T extends string>(value: string, allowed: readonly T[]): Checked<T> {
  const found = allowed.find((word) => word === value);
  return found === undefined ? refuse(`expected one of ${allowed.join(', ')}`) : accept(found);
}
