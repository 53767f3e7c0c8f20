// The nunjucks environment the templates run in. Built by a factory (never
// at import time) so each renderer owns its loader cache and filters.

import { quoteRedirectTarget } from './redirect-values.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import nunjucks from 'nunjucks';
import { createInliningLoader } from './inlining-loader.ts';
import { quoteAddress, quoteMapKey, quoteOriginRegex } from './access-values.ts';
import { quoteHeaderValue } from './header-settings-view.ts';
import { checkSnippetLines } from './snippet-view.ts';
import {
  RenderError,
  formatNginxInteger,
  quoteLogFormat,
  quoteLuaSearchPath,
  quoteNginxLiteral,
  quoteNginxString,
} from './nginx-values.ts';

/** A nunjucks environment plus the error its filters last raised. */
export interface TemplateEnvironment {
  readonly env: nunjucks.Environment;
  /**
   * Returns and forgets the RenderError a filter threw during the last
   * render. Needed because nunjucks rewraps errors thrown in filters as a
   * plain Error and drops the original (and with it the stable code).
   */
  takeFilterError(): RenderError | null;
}

/**
 * Creates the environment: autoescape off (the output is nginx.conf, not
 * HTML; the filters below do the escaping that matters), undefined values
 * throw, block tags leave no blank lines; includes compiled inline
 * (include-inliner.ts), `dynamicIncludes` being the names a computed
 * include (location.njk's feature partials) may give. Filters:
 * - `q`: NGINX double-quoted string; throws on characters that could break out;
 * - `qlit`: as `q`, and also refuses `$` (names NGINX would interpolate);
 * - `num`: non-negative integer; throws on anything else;
 * - `qluapath`: a `;`-separated Lua search path, each entry checked as by `q`;
 * - `qlogformat`: a log format, single-quoted (it may hold `"` and `{}`; see quoteLogFormat);
 * - `qaddr`, `qpattern`, `qorigins`: an address or range, a map key, an origin list's regex (access-values.ts);
 * - `qheader`: a header value, `$` only as a known variable, `""` when empty (header-settings-view.ts);
 * - `snippet`: a snippet's lines, read again by the snippet rules (snippet-view.ts).
 */
export function createTemplateEnvironment(templateDir: string, dynamicIncludes: readonly string[] = []): TemplateEnvironment {
  const parse = { trimBlocks: true, lstripBlocks: true };
  const loader = createInliningLoader(templateDir, { parse, throwOnUndefined: true, dynamicIncludes });
  const env = new nunjucks.Environment(loader, { autoescape: false, throwOnUndefined: true, ...parse });
  let filterError: RenderError | null = null;
  const guarded =
    <T>(format: (value: unknown) => T) =>
    (value: unknown): T => {
      try {
        return format(value);
      } catch (error) {
        if (error instanceof RenderError && filterError === null) filterError = error;
        throw error;
      }
    };
  env.addFilter('q', guarded(quoteNginxString));
  env.addFilter('qlit', guarded(quoteNginxLiteral));
  env.addFilter('num', guarded(formatNginxInteger));
  env.addFilter('qluapath', guarded(quoteLuaSearchPath));
  env.addFilter('qlogformat', guarded(quoteLogFormat));
  env.addFilter('qaddr', guarded(quoteAddress));
  env.addFilter('qpattern', guarded(quoteMapKey));
  env.addFilter('qorigins', guarded(quoteOriginRegex));
  env.addFilter('qheader', guarded(quoteHeaderValue));
  env.addFilter('snippet', guarded(checkSnippetLines));
  env.addFilter('qredirect', guarded(quoteRedirectTarget));
  return {
    env,
    takeFilterError(): RenderError | null {
      const error = filterError;
      filterError = null;
      return error;
    },
  };
}

/**
 * sha256 of every `*.njk` in templateDir (names and contents, sorted), so a
 * changed template changes the config version even for the same model.
 */
export function hashTemplates(templateDir: string): string {
  const hash = createHash('sha256');
  let names: string[];
  try {
    // Recursive: feature partials live in features/.
    names = readdirSync(templateDir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.njk')).sort();
  } catch (error) {
    throw new RenderError('InvalidOptions', `cannot read templateDir ${JSON.stringify(templateDir)}`, {
      cause: error,
    });
  }
  if (names.length === 0) {
    throw new RenderError('InvalidOptions', `no *.njk templates in ${JSON.stringify(templateDir)}`);
  }
  for (const name of names) {
    hash.update(`${name}\0`);
    hash.update(readFileSync(join(templateDir, name)));
    hash.update('\0');
  }
  return hash.digest('hex');
}
