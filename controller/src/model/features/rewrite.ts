// rewrite-target and use-regex: both turn ImplementationSpecific paths into
// regex locations, and make every location of the host a regex (model/regex-hosts.ts).
// The rewrite target is the replacement of an NGINX `rewrite` directive. ingress-nginx
// takes any value of ^/?[-._~a-zA-Z0-9/:$]*$ and pastes it there; what NGINX then does:
// a replacement starting with http://, https:// or $scheme is a redirect (302) to it,
// anything else the URI sent upstream; `$1`..`$9` are the path regex's captures, any other
// `$name` an NGINX variable. So a value is accepted when NGINX compiles it: every `$`
// starts a capture or the name of a variable NGINX 1.26 (or our nginx.conf) defines; an
// unknown name (`$0`, `$foo`, a lone `$`) would fail `nginx -t`.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import { isLogFormatVariable, LOG_FORMAT_VARIABLE_PREFIXES } from '../log-format.ts';
import type { RewriteConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseBoolean } from './values.ts';

const MAX_TARGET_CHARS = 512;
/** URL characters and `$`; no whitespace, quotes, `;{}`, `#`, backslash (they would end or escape the directive). */
const TARGET_CHARS = /^[A-Za-z0-9\-._~/%?&=+,:@!*$]+$/;

/** ingress-nginx's own grammar (RegexPathWithCapture): a value it takes and we refuse is unsupported. */
const INGRESS_NGINX_TARGET = /^\/?[-._~a-zA-Z0-9/:$]*$/;

/** What follows a `$` in an NGINX replacement: a capture digit, else a variable name (NGINX reads it greedily). */
const DOLLAR = /\$([1-9]|[A-Za-z0-9_]*)/gu;

/** Why NGINX would not compile `value` as a replacement, or null. */
function replacementProblem(value: string): string | null {
  for (const [, name] of value.matchAll(DOLLAR)) {
    if (/^[1-9]$/u.test(name)) continue;
    if (name === '') return '"$" must start a capture $1..$9 or a variable name';
    // NGINX reads variable names case-insensitively; a family prefix alone (`$http_`) compiles too (always empty).
    const lower = name.toLowerCase();
    if (!isLogFormatVariable(lower) && !LOG_FORMAT_VARIABLE_PREFIXES.includes(lower)) return `$${name} is not an NGINX variable (captures are $1..$9)`;
  }
  return null;
}

function parseRewriteTarget(value: string): Checked<string | null> {
  const refusal = (reason: string): Checked<string | null> => (INGRESS_NGINX_TARGET.test(value) ? unsupported(reason) : refuse(reason));
  if (value.length > MAX_TARGET_CHARS) return refusal(`longer than ${MAX_TARGET_CHARS} characters`);
  if (!TARGET_CHARS.test(value)) return refusal('expected URL characters, captures $1..$9 and NGINX variables');
  const problem = replacementProblem(value);
  return problem === null ? accept(value) : refusal(problem);
}

export const rewriteFeature = defineFeature({
  name: 'rewrite',
  title: 'Rewrite and regex paths',
  doc: 'rewrite-target rewrites the path sent upstream (`rewrite "(?i)<path>" <target> break;`); a target starting '
    + 'with `http://`, `https://` or `$scheme` makes NGINX answer with a redirect (302) to it instead, captures filled in '
    + '(`https://other.example/$1`). With rewrite-target or use-regex, the Ingress\'s ImplementationSpecific paths are '
    + 'case-insensitive regular expressions anchored at the start.\n\n'
    + '**Regex paths are host-wide, as in ingress-nginx.** When any Ingress of a host sets use-regex or a rewrite-target '
    + '(other than the path itself, which rewrites nothing), '
    + 'EVERY location of that host becomes `location ~* "^<path>"`, the paths of Ingresses without the annotations '
    + 'included (other hosts are untouched):\n'
    + '- matching is case-insensitive: `/API` matches the path `/api`;\n'
    + '- an Exact path is no longer exact: `/health` also matches `/health/x` and `/healthz`;\n'
    + '- a Prefix path `/docs` becomes `^/docs/` and `^/docs`, so it also matches `/docsx`;\n'
    + '- characters keep their regex meaning: the path `/v1.0` also matches `/v1x0`;\n'
    + '- NGINX takes the first regex that matches, trying longer paths first (among paths of one length, the '
    + 'greater by byte comparison first), whatever Ingress they come from: a regex Ingress can take requests a '
    + 'plain Ingress of the same host served before. Two paths that become the same regex: the Exact one serves '
    + '(else the regex path), and the Ingress of the other gets a warning (`RegexPathShadowed`).\n\n'
    + 'Give regex Ingresses a host of their own when the other paths of the host must keep their exact meaning.',
  output: { kind: 'location', template: 'features/rewrite.njk' },
  defaults: { target: null, useRegex: false },
  keys: [
    field<RewriteConfig, 'target'>('target', parseRewriteTarget, {
      annotation: { name: 'rewrite-target', scope: 'ingress', risk: 'Medium' },
      defaultText: '',
      doc: 'The path sent upstream, e.g. /$2, or an absolute URL to redirect to, e.g. https://other.example/$1; '
        + 'a value ingress-nginx would not take either is ignored with a warning.',
      invalid: 'ignore',
      difference: 'a `$` must start a capture $1..$9 or a variable NGINX knows: a value NGINX would refuse (`$0`, '
        + '`$foo`, a lone `$`) refuses the Ingress instead of failing every reload; `?&=+,@!*%` are also accepted',
    }),
    field<RewriteConfig, 'useRegex'>('useRegex', parseBoolean, {
      annotation: { name: 'use-regex', scope: 'location', risk: 'Low' },
      defaultText: 'false',
      doc: 'ImplementationSpecific paths of this Ingress are regular expressions, and every path of its host is matched as one (above).',
      invalid: 'ignore',
    }),
  ],
  proof: [
    'controller/src/model/features/rewrite.test.ts', 'controller/src/render/regex-host.test.ts',
    'controller/src/render/rewrite-target-nginx.test.ts', 'e2e/routing.test.ts', 'e2e/regex-hosts.test.ts',
  ],
});
