// Ingress paths become NGINX location arguments. Every path, whatever its
// type, is printable ASCII without the characters that could end or escape a
// directive (whitespace, `;{}`, quotes, backslash) or be read as a variable
// (`$`) or comment (`#`). Exact and Prefix paths (and ImplementationSpecific
// without regex) are literal: regex metacharacters are refused there too, as
// ingress-nginx's strict-validate-path-type does.

import { accept, refuse, type Checked } from './checked.ts';
import { checkRegexPath } from './regex-path.ts';
import type { LocationMatch } from './types.ts';

/** A validated path and how it matches. */
export interface ResolvedPath {
  readonly path: string;
  readonly match: LocationMatch;
}

const MAX_PATH_CHARS = 1024;
/** Printable ASCII minus whitespace, quotes, backslash, `;{}$#` and backtick. */
const SAFE_PATH = /^\/[!%&()*+,\-./0-9:<=>?@A-Z[\]^_a-z|~]*$/;
/** Literal paths: URL path characters that carry no regex meaning in NGINX's eyes. */
const LITERAL_PATH = /^\/[!%&,\-./0-9:=@A-Z_a-z~]*$/;

/** Prefix `/foo/` ≡ `/foo`: the renderer adds the `/foo/` form itself. */
export function normalisePrefix(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

/**
 * Validates a path and translates its pathType into a LocationMatch.
 * `regexEnabled`: the Ingress sets use-regex or rewrite-target, which turns
 * ImplementationSpecific paths into regex locations (as ingress-nginx does).
 */
export function resolvePath(rawPath: unknown, rawPathType: unknown, regexEnabled: boolean): Checked<ResolvedPath> {
  // An absent path means "everything", as in ingress-nginx.
  const path = rawPath === undefined || rawPath === null || rawPath === '' ? '/' : rawPath;
  if (typeof path !== 'string') return refuse('path must be a string');
  if (!path.startsWith('/')) return refuse('path must start with "/"');
  if (path.length > MAX_PATH_CHARS) return refuse(`path is longer than ${MAX_PATH_CHARS} characters`);
  if (!SAFE_PATH.test(path)) {
    return refuse('path may not contain whitespace, control characters, quotes, backslash, ";", "{", "}", "$" or "#"');
  }
  const pathType = rawPathType ?? 'ImplementationSpecific';
  let match: LocationMatch;
  if (pathType === 'Exact') match = 'exact';
  else if (pathType === 'Prefix') match = 'prefix';
  else if (pathType === 'ImplementationSpecific') match = regexEnabled ? 'regex' : 'prefix';
  else return refuse('pathType must be Exact, Prefix or ImplementationSpecific');

  if (match === 'regex') {
    const compiled = checkRegexPath(path);
    return compiled.ok ? accept({ path, match }) : refuse(compiled.reason);
  }
  if (!LITERAL_PATH.test(path)) {
    return refuse('regex characters need pathType ImplementationSpecific and the use-regex annotation');
  }
  return accept({ path: match === 'prefix' ? normalisePrefix(path) : path, match });
}
