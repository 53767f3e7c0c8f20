// Regex paths (use-regex / rewrite-target) are compiled by NGINX's PCRE2, but
// checked here with JavaScript's RegExp. The check only vouches for the
// syntax both engines read the same way, so constructs whose meaning differs
// (or that only one engine knows) are refused before compiling:
// any `(?` group other than `(?:`, `(?=` and `(?!` (lookbehind, named groups,
// inline flags, PCRE verbs) and POSIX classes `[:alpha:]`. Backslashes, `$`
// and braces never get this far (paths.ts refuses them for every path).

import { accept, refuse, type Checked } from './checked.ts';

const ALLOWED_GROUP_OPENERS = new Set(['(?:', '(?=', '(?!']);

/** Accepts a regex path that PCRE2 and JavaScript both compile to the same meaning. */
export function checkRegexPath(path: string): Checked<string> {
  for (let i = path.indexOf('(?'); i !== -1; i = path.indexOf('(?', i + 1)) {
    if (!ALLOWED_GROUP_OPENERS.has(path.slice(i, i + 3))) {
      return refuse('regex groups other than (?:, (?= and (?! are not supported');
    }
  }
  if (path.includes('[:') || path.includes('[=') || path.includes('[.')) {
    return refuse('POSIX bracket expressions are not supported in regex paths');
  }
  try {
    // The `u` flag makes JavaScript strict about stray `]` and quantifiers, closer to PCRE.
    new RegExp(path, 'u');
  } catch {
    return refuse('path is not a valid regular expression');
  }
  return accept(path);
}
