// Deletes from a production node_modules the files no running program reads:
// source maps, type declarations, Markdown (licences kept, whatever their
// extension), and addons built for the Bare runtime (`*.bare`, which Node cannot
// load). The Dockerfile's build stage runs it after `npm prune --omit=dev`;
// scripts/image-size.ts counts node_modules with the same rule.
//   node scripts/prune-modules.ts <node_modules folder>
import { readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whether a file (by its path) is one no running program reads. */
export function prunable(path: string): boolean {
  const name = basename(path);
  if (/^licen[cs]e/i.test(name)) return false;
  return /\.(?:map|d\.ts|d\.mts|d\.cts|bare|md|markdown)$/i.test(name);
}

/** Deletes the prunable files under `dir`; returns how many bytes they held. */
export function pruneModules(dir: string): number {
  let removed = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const file = join(entry.parentPath, entry.name);
    if (!entry.isFile() || !prunable(file)) continue;
    removed += statSync(file).size;
    rmSync(file);
  }
  return removed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node scripts/prune-modules.ts <node_modules folder>');
    process.exitCode = 2;
  } else {
    console.log(`prune-modules: ${(pruneModules(dir) / 1e6).toFixed(1)} MB removed from ${dir}`);
  }
}
