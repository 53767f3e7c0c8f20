// `npm run lint` (second half): luacheck over lua/ with .luacheckrc
// (std ngx_lua: a global write is a warning). Any warning fails the run.
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Runs luacheck on `dirs` from `root`; returns its exit status (0 = clean). */
export function runLuacheck(root: string, dirs: readonly string[]): number {
  const result = spawnSync('luacheck', ['--no-color', '--codes', ...dirs], { cwd: root, stdio: 'inherit' });
  if (result.error) {
    console.error(`luacheck: cannot run it (${result.error.message}); npm run setup installs the lua-check package`);
    return 2;
  }
  // luacheck: 1 = warnings, 2 = errors, 3+ = fatal; all of them fail lint.
  return result.status ?? 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  process.exitCode = runLuacheck(root, ['lua/']);
}
