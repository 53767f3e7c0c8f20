// Ingress paths become NGINX location arguments. Every path, whatever its
// type, is printable ASCII without the characters that could end or escape a
// directive (whitespace, `;{}`, quotes, backslash) or be read as a variable
// (`$`) or comment (`#`). Exact and Prefix paths (and ImplementationSpecific
// without regex) are literal: regex metacharacters are refused there too, as
// ingress-nginx's strict-validate-path-type does.

import { accept, refuse, type Checked } from './checked.ts';
import { checkBacktracking, newRegexCheckBudget, type RegexCheckBudget } from './regex-backtracking.ts';
import type { LocationMatch } from './types.ts';

/** A validated path and how it matches. */
export interface ResolvedPath {
  readonly path: string;
  readonly match: LocationMatch;
}

const MAX_PATH_CHARS = 1024;
/** Printable ASCII minus whitespace, quotes, backslash, `;{}$#` and backtick. */
const SAFE_PATH = /^\/[!%&()*+,\-./0-9:<=>?@A-Z[\]^_a-z|~]*$/;
/** Regex paths may also use `$` as an anchor (`/api(/|$)(.*)`): NGINX never expands variables in location or rewrite regexes. */
const SAFE_REGEX_PATH = /^\/[!$%&()*+,\-./0-9:<=>?@A-Z[\]^_a-z|~]*$/;
/** Literal paths: URL path characters that carry no regex meaning in NGINX's eyes. */
const LITERAL_PATH = /^\/[!%&,\-./0-9:=@A-Z_a-z~]*$/;

// Regex paths (use-regex / rewrite-target) are compiled by NGINX's PCRE2, but
// checked here with JavaScript's RegExp. The check only vouches for the
// syntax both engines read the same way, so constructs whose meaning differs
// (or that only one engine knows) are refused before compiling:
// any `(?` group other than `(?:`, `(?=` and `(?!` (lookbehind, named groups,
// inline flags, PCRE verbs), POSIX classes `[:alpha:]`, and `[]` / `[^]`
// (empty or any-character in JavaScript, a literal `]` in PCRE). Backslashes
// and braces never get this far: SAFE_REGEX_PATH refuses them.
const ALLOWED_GROUP_OPENERS = new Set(['(?:', '(?=', '(?!']);

// PCRE2's compile-time limits that JavaScript does not share: groups nest at
// most PARENS_NEST_LIMIT (250, Debian's build) deep, counting every `(`.
// The others cannot be reached by a path of MAX_PATH_CHARS without braces or
// backslashes: at most 511 capture groups (PCRE2: 65535), and the compiled
// pattern stays far below LINK_SIZE 2's 64K code units (the costliest
// constructs, 1024 characters of `[^a]`, `(a)` or `(?=a)`, take a fraction of it; the
// value-limits test runs them through the real `nginx -t`).
export const PCRE2_MAX_GROUP_NESTING = 250;

/** How deep the groups of `path` nest; `(` and `)` inside a character class are literal. */
export function groupNesting(path: string): number {
  let depth = 0;
  let deepest = 0;
  let inClass = false;
  for (const char of path) {
    if (inClass) {
      // A `]` right after `[` or `[^` would be literal in PCRE; checkRegexPath refuses it before.
      if (char === ']') inClass = false;
    } else if (char === '[') {
      inClass = true;
    } else if (char === '(') {
      depth += 1;
      deepest = Math.max(deepest, depth);
    } else if (char === ')') {
      depth -= 1;
    }
  }
  return deepest;
}

/**
 * Accepts a regex path that PCRE2 and JavaScript both compile to the same meaning and that
 * NGINX matches in time linear in the URI (regex-backtracking.ts; the check spends `budget`).
 */
export function checkRegexPath(path: string, budget: RegexCheckBudget = newRegexCheckBudget()): Checked<string> {
  for (let i = path.indexOf('(?'); i !== -1; i = path.indexOf('(?', i + 1)) {
    if (!ALLOWED_GROUP_OPENERS.has(path.slice(i, i + 3))) {
      return refuse('regex groups other than (?:, (?= and (?! are not supported');
    }
  }
  if (path.includes('[:') || path.includes('[=') || path.includes('[.')) {
    return refuse('POSIX bracket expressions are not supported in regex paths');
  }
  if (path.includes('[]') || path.includes('[^]')) {
    return refuse('a "]" right after "[" or "[^" reads differently in PCRE; move it later in the class');
  }
  const nesting = groupNesting(path);
  if (nesting > PCRE2_MAX_GROUP_NESTING) {
    return refuse(`regex groups nest ${nesting} deep; NGINX's regex engine (PCRE2) allows at most ${PCRE2_MAX_GROUP_NESTING}`);
  }
  try {
    // The `u` flag makes JavaScript strict about stray `]` and quantifiers, closer to PCRE.
    new RegExp(path, 'u');
  } catch {
    return refuse('path is not a valid regular expression');
  }
  return checkBacktracking(path, budget);
}

/** Prefix `/foo/` ≡ `/foo`: the renderer adds the `/foo/` form itself. */
export function normalisePrefix(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

/**
 * Validates a path and translates its pathType into a LocationMatch.
 * `regexEnabled`: the Ingress sets use-regex or rewrite-target, which turns
 * ImplementationSpecific paths into regex locations (as ingress-nginx does).
 * `budget`: the time left for the regex checks of the Ingress the path belongs to.
 */
export function resolvePath(rawPath: unknown, rawPathType: unknown, regexEnabled: boolean, budget?: RegexCheckBudget): Checked<ResolvedPath> {
  // An absent path means "everything", as in ingress-nginx.
  const path = rawPath === undefined || rawPath === null || rawPath === '' ? '/' : rawPath;
  if (typeof path !== 'string') return refuse('path must be a string');
  if (!path.startsWith('/')) return refuse('path must start with "/"');
  if (path.length > MAX_PATH_CHARS) return refuse(`path is longer than ${MAX_PATH_CHARS} characters`);
  const pathType = rawPathType ?? 'ImplementationSpecific';
  let match: LocationMatch;
  if (pathType === 'Exact') match = 'exact';
  else if (pathType === 'Prefix') match = 'prefix';
  else if (pathType === 'ImplementationSpecific') match = regexEnabled ? 'regex' : 'prefix';
  else return refuse('pathType must be Exact, Prefix or ImplementationSpecific');
  if (!(match === 'regex' ? SAFE_REGEX_PATH : SAFE_PATH).test(path)) {
    return refuse(match === 'regex'
      ? 'regex path may not contain whitespace, control characters, quotes, backslash, ";", "{", "}" or "#"'
      : 'path may not contain whitespace, control characters, quotes, backslash, ";", "{", "}", "$" or "#"');
  }

  if (match === 'regex') {
    const compiled = checkRegexPath(path, budget);
    return compiled.ok ? accept({ path, match }) : refuse(compiled.reason);
  }
  if (!LITERAL_PATH.test(path)) {
    return refuse('regex characters need pathType ImplementationSpecific and the use-regex annotation');
  }
  return accept({ path: match === 'prefix' ? normalisePrefix(path) : path, match });
}
