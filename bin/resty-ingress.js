#!/usr/bin/env node
// Launcher for the resty-ingress controller. In a checkout Node 24 runs the
// TypeScript sources directly (type stripping); the image runs the bundle
// `npm run build` makes from this file (scripts/build.ts), in which this
// launcher stays a file of its own and main.ts (or migrate) a chunk it imports
// dynamically, after it has enabled the compile cache, which then covers them.
// main.ts parses the command line and starts everything when imported.
//
// `resty-ingress migrate ...` is a one-shot report (controller/src/migrate):
// it runs as it is, without the controller's start-up below.
//
// The young generation is sized by a V8 flag (controller/src/runtime-flags.ts
// says why), which V8 reads only at start-up, so the launcher replaces itself
// (same process id, same arguments) with a Node started with it, unless the
// operator chose a size (in the node command line or NODE_OPTIONS) or
// process.execve is missing.
import { enableCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';
import { YOUNG_GENERATION_FLAG } from '../controller/src/runtime-flags.ts';

// V8 keeps the compiled code of the modules between starts (in os.tmpdir()/node-compile-cache,
// or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off): a restarted controller
// imports them in about half the time (1.25 -> 0.79 s on a 2-core machine), which is most of
// how long a restart takes before it serves. Where the folder cannot be written, Node compiles
// as it would without.
enableCompileCache?.();

function semiSpaceChosen() {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return flags.some((flag) => /^--max[-_]semi[-_]space[-_]size\b/.test(flag));
}

if (process.argv[2] === 'migrate') {
  await import('../controller/src/migrate/main.ts');
} else {
  await startController();
}

async function startController() {
  if (!semiSpaceChosen() && typeof process.execve === 'function') {
    const self = fileURLToPath(import.meta.url);
    try {
      process.execve(process.execPath, [process.execPath, YOUNG_GENERATION_FLAG, ...process.execArgv, self, ...process.argv.slice(2)], process.env);
    } catch {
      // The exec failed (e.g. a sandbox forbids it): run as we are, with V8's default sizing.
    }
  }
  await import('../controller/src/main.ts');
}
