// rewrite-target and use-regex: both turn ImplementationSpecific paths into
// regex locations. The rewrite target ends up as the replacement of an NGINX
// `rewrite` directive, where `$name` would expand any variable, so only the
// regex captures `$1`..`$9` may use `$`.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { RewriteConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseBoolean } from './values.ts';

const MAX_TARGET_CHARS = 512;
/** Literal URL characters or a capture reference; no whitespace, quotes, `;{}`, `#`, backslash. */
const TARGET_TOKENS = /^(?:[A-Za-z0-9\-._~/%?&=+,:@!*]|\$[1-9])+$/;

/** ingress-nginx's own grammar (RegexPathWithCapture): a value it takes and we refuse is unsupported. */
const INGRESS_NGINX_TARGET = /^\/?[-._~a-zA-Z0-9/:$]*$/;

function parseRewriteTarget(value: string): Checked<string | null> {
  const refusal = (reason: string): Checked<string | null> => (INGRESS_NGINX_TARGET.test(value) ? unsupported(reason) : refuse(reason));
  if (value.length > MAX_TARGET_CHARS) return refusal(`longer than ${MAX_TARGET_CHARS} characters`);
  if (!TARGET_TOKENS.test(value)) return refusal('expected a path of URL characters; "$" only as a capture $1..$9');
  if (!value.startsWith('/') && !/^\$[1-9]/.test(value)) return refusal('expected a path starting with "/" or a capture $1..$9');
  return accept(value);
}

export const rewriteFeature = defineFeature({
  name: 'rewrite',
  title: 'Rewrite and regex paths',
  doc: 'rewrite-target rewrites the path sent upstream (`rewrite "(?i)<path>" <target> break;`); with it or '
    + 'use-regex, the Ingress\'s ImplementationSpecific paths are case-insensitive regular expressions anchored at '
    + 'the start.',
  output: { kind: 'location', template: 'features/rewrite.njk' },
  defaults: { target: null, useRegex: false },
  keys: [
    field<RewriteConfig, 'target'>('target', parseRewriteTarget, {
      annotation: { name: 'rewrite-target', scope: 'ingress', risk: 'Medium' },
      defaultText: '',
      doc: 'The path sent upstream, e.g. /$2; a value ingress-nginx would not take either is ignored with a warning.',
      invalid: 'ignore',
      difference: 'a path with captures $1..$9 only: no NGINX variables, no absolute URL yet',
    }),
    field<RewriteConfig, 'useRegex'>('useRegex', parseBoolean, {
      annotation: { name: 'use-regex', scope: 'location', risk: 'Low' },
      defaultText: 'false',
      doc: 'ImplementationSpecific paths of this Ingress are regular expressions.',
      invalid: 'ignore',
    }),
  ],
  proof: ['controller/src/model/features/rewrite.test.ts', 'e2e/routing.test.ts'],
});
