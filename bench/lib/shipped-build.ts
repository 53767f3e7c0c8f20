// The controller as the image runs it: the bundle `npm run build` writes to
// dist/ (scripts/build.ts). Benches that start the real controller run it
// from there, so their start-up is the shipped one (a few bundled files, not
// ~1,200 modules through Node's loader). Built here, without the type check,
// when dist/ is missing or older than any file it is built from.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { bundle, buildConfig } from '../../scripts/build.ts';

const ROOT = join(import.meta.dirname, '../..');
/** What the bundle is made of, besides node_modules (which only the lockfile changes). */
const BUILT_FROM = ['bin', 'controller/src', 'scripts/build.ts', 'scripts/build-shims', 'package.json', 'package-lock.json', 'tsconfig.build.json'];

function newestMtimeMs(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Whether the launcher in `outDir` is a bundle at least as new as everything under `sources`. */
export function isFresh(root: string, outDir: string, entry: string, sources: readonly string[]): boolean {
  const launcher = join(outDir, entry);
  // A tsc build of older checkouts has the same launcher but no chunks/.
  if (!existsSync(launcher) || !existsSync(join(outDir, 'chunks'))) return false;
  const built = statSync(launcher).mtimeMs;
  return sources.every((source) => newestMtimeMs(join(root, source)) <= built);
}

/** The shipped launcher (dist/bin/resty-ingress.js), bundled first when missing or stale. */
export async function shippedLauncher(log: (line: string) => void = () => {}): Promise<string> {
  const { entry, outDir } = buildConfig(ROOT);
  const out = join(ROOT, outDir);
  if (!isFresh(ROOT, out, entry, BUILT_FROM)) {
    const started = performance.now();
    await bundle(ROOT, entry, out);
    log(`bundled the controller into ${outDir}/ (${(performance.now() - started).toFixed(0)} ms)`);
  }
  return join(out, entry);
}
