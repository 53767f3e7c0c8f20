// rewrite-target and use-regex: both turn ImplementationSpecific paths into
// regex locations. The rewrite target ends up as the replacement of an NGINX
// `rewrite` directive, where `$name` would expand any variable, so only the
// regex captures `$1`..`$9` may use `$`.

import { accept, refuse, type Checked } from '../checked.ts';
import type { AnnotationSpec } from './types.ts';
import { parseBoolean } from './values.ts';

const MAX_TARGET_CHARS = 512;
/** Literal URL characters or a capture reference; no whitespace, quotes, `;{}`, `#`, backslash. */
const TARGET_TOKENS = /^(?:[A-Za-z0-9\-._~/%?&=+,:@!*]|\$[1-9])+$/;

function parseRewriteTarget(value: string): Checked<string | null> {
  if (value.length > MAX_TARGET_CHARS) return refuse(`longer than ${MAX_TARGET_CHARS} characters`);
  if (!TARGET_TOKENS.test(value)) {
    return refuse('expected a path of URL characters; "$" only as a capture $1..$9');
  }
  if (!value.startsWith('/') && !/^\$[1-9]/.test(value)) {
    return refuse('expected a path starting with "/" or a capture $1..$9');
  }
  return accept(value);
}

/** rewrite-target: the replacement path, e.g. `/$2`. */
export const rewriteTargetAnnotation: AnnotationSpec<'rewriteTarget'> = {
  key: 'rewrite-target',
  scope: 'ingress',
  field: 'rewriteTarget',
  parse: parseRewriteTarget,
};

/** use-regex: ImplementationSpecific paths of this Ingress are regular expressions. */
export const useRegexAnnotation: AnnotationSpec<'useRegex'> = {
  key: 'use-regex',
  scope: 'location',
  field: 'useRegex',
  parse: parseBoolean,
};
