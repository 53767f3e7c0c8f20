// Test-only fast-check arbitraries for the raw material of user values: a
// marker that the property tests look for in nginx.conf, strings built to
// break out of an NGINX token (quotes, `;{}`, `$var`, newlines, NUL, unicode
// that changes case or direction, very long), regular expressions of the
// constructs where PCRE2 and JavaScript disagree, and values stretched to
// the bounds of their grammar. field-values.ts combines them per field.

import fc from 'fast-check';

/**
 * Planted in every generated string that could carry it: each occurrence in a
 * rendered nginx.conf must sit inside a token the quoting filters produced
 * (render/properties.test.ts). No template contains it.
 */
export const MARKER = 'zqx';

/** Pieces that end, escape or bend an NGINX token, a Lua pattern, a log line or a JSON string. */
const BREAKOUTS: readonly string[] = [
  '"', '\'', ';', '{', '}', '$host', '${uri}', '$1', '$', '\\', '\\"', '\n', '\r\n', '\0', '\t', ' ', '#', '`',
  '\u2028', '\u0085', '\u00a0', 'é', 'İ', '\u212a', '\u202e', '\ud83d\ude00', '\uff0f', '%00', '%0a', '..', '/', ':',
  '*', '(', ')', '[', ']', '|', '^', '?', '+', '=', ',', '&', '@', '~', '-', '.', '\x7f', '\x1b[31m',
  '";\n    return 302 "http://evil', '}\n    location / { return 200 "owned"; }\n    #', ' include /etc/passwd;',
];

/** A string made to break out of whatever quoting it meets, with MARKER at both ends and inside. */
export const hostileString: fc.Arbitrary<string> = fc
  .array(fc.oneof({ arbitrary: fc.constantFrom(...BREAKOUTS), weight: 4 }, fc.constant(MARKER), fc.string({ unit: 'binary', maxLength: 4 })),
    { minLength: 1, maxLength: 10 })
  .map((pieces) => `${MARKER}${pieces.join('')}${MARKER}`);

/** Any string, code points of the whole Unicode range included. */
export const anyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
);

/** Lengths at and around the bounds the model and NGINX set on strings. */
const EDGE_LENGTHS = [63, 64, 253, 254, 256, 257, 512, 513, 1024, 1025, 2000, 2001, 4090, 4093, 4094, 4095, 4096, 4097, 8200] as const;

/** `piece` repeated to one of `lengths` (cut to exactly that many characters). */
export function stretched(piece: fc.Arbitrary<string>, prefix = '', lengths: readonly number[] = EDGE_LENGTHS): fc.Arbitrary<string> {
  return fc.tuple(piece.filter((p) => p.length > 0), fc.constantFrom(...lengths))
    .map(([p, length]) => (prefix + p.repeat(Math.ceil(length / p.length) + 1)).slice(0, length));
}

/**
 * Mostly `valid`, else hostile, any string, or stretched past its bounds (one
 * part in `validWeight + 3` each): 8 for values, more for the names and
 * hosts an Ingress needs before any of its values is read.
 */
export function userValue(valid: fc.Arbitrary<string>, validWeight = 8): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: valid, weight: validWeight },
    { arbitrary: hostileString, weight: 1 },
    { arbitrary: anyString, weight: 1 },
    { arbitrary: stretched(valid), weight: 1 },
  );
}

/** Pieces of regular expressions: what both engines read alike, and what only one of them takes. */
const REGEX_ATOMS: readonly string[] = [
  'a', 'b', MARKER, '-', '_', '.', '/', ':', '%', '!', '=', '@', ',', '&', '<', '>',
  '.', '.*', '.+', '[a-z]', '[^/]', '[0-9]+', '[a-z-]', '[-a]', '[]a]', '[^]a]', '[[]', '[[:alpha:]]', '[a-Z]', '[Z-a]',
  '(', ')', '(?:', '(?=', '(?!', '(?<=', '(?<!', '(?<n>', '(?i)', '(?|', '(*ACCEPT)', '(*', '(?#', ')',
  '|', '*', '+', '?', '*?', '+?', '++', '?+', '{2}', '{2,}', '{2,1}', '{,2}', '^', '$', '$', '(/|$)', '(.*)',
  '\\d', '\\w', '\\s', '\\b', '\\B', '\\1', '\\2', '\\k<n>', '\\u0041', '\\u{41}', '\\x41', '\\x{41}', '\\p{L}',
  '\\cA', '\\0', '\\Q', '\\E', '\\/', '\\-', '\\.', '\\\\', '\\G', '\\K', '\\R', '\\X', '\\N', '\\z', '\\Z',
];

/** A regular expression over REGEX_ATOMS (most are refused by one engine or both). */
export const regexBody: fc.Arbitrary<string> = fc.array(fc.constantFrom(...REGEX_ATOMS), { minLength: 1, maxLength: 12 })
  .map((atoms) => atoms.join(''));

/** Groups nested `depth` deep around a body: PCRE2 stops at 250 by default, JavaScript does not. */
export const nestedGroups: fc.Arbitrary<string> = fc.tuple(fc.integer({ min: 1, max: 300 }), fc.constantFrom('(', '(?:'), fc.constantFrom('a', 'a+', '.*'))
  .map(([depth, open, body]) => `${open.repeat(depth)}${body}${')'.repeat(depth)}`);

/** Regular expressions both engines take: literals, classes, groups and lookaheads, quantified, in alternatives. */
const validRegex: fc.Arbitrary<string> = fc.letrec<{ atom: string; sequence: string }>((tie) => ({
  atom: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('a', 'b', MARKER, '-', '/', '.', '_', '[a-z]', '[^/]', '[0-9]', '[a-z0-9-]', '%', ':', '$'),
    fc.tuple(fc.constantFrom('(', '(?:', '(?=', '(?!'), tie('sequence')).map(([open, body]) => `${open}${body})`),
  ),
  sequence: fc.array(fc.tuple(tie('atom'), fc.constantFrom('', '', '', '*', '+', '?', '*?', '+?')), { minLength: 1, maxLength: 4 })
    .chain((pieces) => fc.constantFrom('', '|').map((alternative) => pieces.map(([atom, quantifier]) => atom + quantifier).join('') + alternative + (alternative ? 'x' : ''))),
})).sequence;

/** A regular expression: composed of any atoms (mostly refused), of valid ones, deeply nested, or a usual Ingress shape. */
export const regex: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: regexBody, weight: 3 },
  { arbitrary: validRegex, weight: 4 },
  { arbitrary: nestedGroups, weight: 1 },
  { arbitrary: fc.constantFrom('(.*)', '(/|$)(.*)', '[a-z0-9-]+/v[0-9]+', '(a+)+$', `${MARKER}(/|$)(.*)`), weight: 2 },
);
