// `npm run build` (tsconfig.build.json) emits what the image runs: the entry
// script's import closure as JavaScript, mirroring the repository, with every
// relative import rewritten to an emitted .js file, no test code, and a
// launcher that starts. Emits with --noCheck into a folder under tmp/ (inside
// the repository, so node_modules resolves as in the image's /app);
// `npm run typecheck` and `npm run build` do the type checking.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { importClosure, importSpecifiers } from './dockerfile-imports.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const config = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { files: string[] };

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => posix.normalize(relative(dir, join(entry.parentPath, entry.name))))
    .sort();
}

void describe('npm run build', { timeout: 240_000 }, () => {
  mkdirSync(join(ROOT, 'tmp'), { recursive: true });
  const out = mkdtempSync(join(ROOT, 'tmp', 'build-'));
  after(() => rmSync(out, { recursive: true, force: true }));
  before(async () => {
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--noCheck', '--outDir', out], { cwd: ROOT });
  });

  void it('emits the entry\'s import closure plus package.json; anything else only types (empty modules), no tests', () => {
    const closure = new Set([...importClosure(ROOT, config.files[0] ?? '').files.map((file) => file.replace(/\.ts$/, '.js')), 'package.json']);
    const emitted = filesUnder(out);
    for (const file of closure) assert.ok(emitted.includes(file), `${file} is emitted`);
    for (const file of emitted.filter((name) => !closure.has(name))) {
      assert.equal(readFileSync(join(out, file), 'utf8').trim(), 'export {};', `${file} is reached only by type imports`);
    }
    assert.ok(!emitted.some((file) => /\.test\.js$|testdata|test-support|\/testing\.js$/.test(file)));
  });

  void it('every relative import of the output names an emitted .js or .json file', () => {
    for (const file of filesUnder(out).filter((name) => name.endsWith('.js'))) {
      for (const specifier of importSpecifiers(readFileSync(join(out, file), 'utf8')).filter((s) => s.startsWith('.'))) {
        assert.match(specifier, /\.(js|json)$/, `${file} imports ${specifier}`);
        assert.ok(existsSync(join(out, posix.dirname(file), specifier)), `${file} imports ${specifier}, which was emitted`);
      }
    }
  });

  void it('the built launcher starts: --version and the migrate command', async () => {
    const launcher = join(out, 'bin/resty-ingress.js');
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const printed = await run(process.execPath, [launcher, '--version'], { timeout: 60_000 });
    assert.equal(printed.stdout.trim(), version);
    const help = await run(process.execPath, [launcher, 'migrate', '--help'], { timeout: 60_000 });
    assert.match(help.stdout, /^Usage: resty-ingress migrate/);
  });
});
