// What the controller loads at run time, found by following static imports
// from its entry script: the repo files (which the image must copy) and the
// npm packages (which must be production dependencies). Type-only imports
// are skipped: Node erases them. Used by scripts/dockerfile.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';

export interface ImportClosure {
  /** Repo-relative paths of every file reached, the entry included, sorted. */
  readonly files: readonly string[];
  /** npm package names imported by any of them, sorted. */
  readonly packages: readonly string[];
}

// `import type …` / `export type …` statements vanish at run time.
const TYPE_ONLY = /\b(?:import|export)\s+type\s[^;]*?\bfrom\s*['"][^'"]+['"]/g;
// from 'x' | import 'x' | import('x'); the keywords stand alone (a string such as 'proxy-redirect-from' is no import).
// A specifier has no whitespace: prose such as `… address from '` + `'…` in a string is no import.
const SPECIFIER = /(?:(?<=[\s}])from\s*|(?<![\w$.-])import\s*\(?\s*)['"]([^'"\s]+)['"]/g;
// Comments can quote imports (this file's own header does).
const COMMENTS = /\/\*[\s\S]*?\*\/|(^|[^:'"])\/\/.*$/gm;

/** The package a bare specifier names: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0] ?? specifier;
}

/** The static, value-level import specifiers of one source text. */
export function importSpecifiers(source: string): string[] {
  const code = source.replace(COMMENTS, '$1').replace(TYPE_ONLY, '');
  return [...code.matchAll(SPECIFIER)].map((m) => m[1] ?? '').filter((s) => s !== '');
}

/** Follows relative imports from `entry` (repo-relative); throws when one points nowhere. */
export function importClosure(root: string, entry: string): ImportClosure {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [posix.normalize(entry)];
  while (pending.length > 0) {
    const file = pending.pop() ?? '';
    if (files.has(file)) continue;
    files.add(file);
    if (!/\.(ts|js|mjs)$/.test(file)) continue; // JSON and other assets have no imports
    for (const specifier of importSpecifiers(readFileSync(join(root, file), 'utf8'))) {
      if (specifier.startsWith('node:')) continue;
      if (!specifier.startsWith('.')) {
        packages.add(packageNameOf(specifier));
        continue;
      }
      const target = posix.normalize(posix.join(dirname(file), specifier));
      if (!existsSync(join(root, target))) throw new Error(`${file} imports ${specifier}, which does not exist`);
      pending.push(target);
    }
  }
  return { files: [...files].sort(), packages: [...packages].sort() };
}
