// A nunjucks loader that hands the Environment templates already compiled,
// with their includes inlined (include-inliner.ts), in the form nunjucks'
// own precompiled templates take ({type: 'code'}). It reads the template
// folder as FileSystemLoader does: names inside it only, a missing file is
// "no such template" (nunjucks then throws its own "template not found").

import { readFileSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import type nunjucks from 'nunjucks';
import { compileInlined, InlineSources, type ParseOptions } from './include-inliner.ts';

export interface InliningLoaderOptions {
  readonly parse: ParseOptions;
  readonly throwOnUndefined: boolean;
  /** Every name a computed `{% include expr %}` is expected to give (include-inliner.ts). */
  readonly dynamicIncludes: readonly string[];
}

/** The text of template `name` in `templateDir`, or null when there is none (or the name leaves the folder). */
function readTemplate(templateDir: string, name: string): { readonly path: string; readonly source: string } | null {
  const root = resolve(templateDir);
  const path = resolve(root, name);
  if (!path.startsWith(root + sep)) return null;
  try {
    return { path, source: readFileSync(path, 'utf8') };
  } catch {
    return null;
  }
}

/** A loader of `templateDir` whose templates come compiled with their includes inlined. */
export function createInliningLoader(templateDir: string, options: InliningLoaderOptions): nunjucks.ILoader {
  const sources = new InlineSources({ ...options, readSource: (name) => readTemplate(templateDir, name)?.source ?? null });
  return {
    getSource(name: string): nunjucks.LoaderSource {
      const found = readTemplate(templateDir, name);
      // nunjucks reads a null source as "not found" (its own error); the type says otherwise.
      if (found === null) return null as unknown as nunjucks.LoaderSource;
      // nunjucks' own precompiled form: the code returns { root, b_<block>... }.
      const compiled = new Function(compileInlined(name, sources))() as unknown;
      return { src: { type: 'code', obj: compiled } as unknown as string, path: found.path, noCache: false };
    },
  };
}
