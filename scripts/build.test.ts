// `npm run build` (scripts/build.ts) bundles what the image runs: the entry
// script's import closure and the npm packages it uses, as a launcher plus
// chunks, with no test code, and nothing left to load from node_modules at
// run time but optional packages the calling code does without. Bundles into
// a folder outside the repository, so a start that works there works in the
// image's /app, which has no node_modules either. The type check is
// `npm run typecheck`'s and `npm run build`'s (tsc --noEmit).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { importClosure } from './dockerfile-imports.ts';
import { buildConfig, bundle, packageFolderOf, type BundleResult } from './build.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const config = buildConfig(ROOT);
/** Packages the bundle may `require` without having them: each call sits in a try/catch or behind an option we do not use. */
const OPTIONAL_REQUIRES = new Set([
  'bufferutil', 'utf-8-validate', // ws: native speed-ups, falls back to JavaScript
  'encoding', // node-fetch: only for textConverted(), which client-node does not call
  'supports-color', // debug: colours for a terminal
  'chokidar', // nunjucks: only with { watch: true }
]);

void describe('npm run build', { timeout: 240_000 }, () => {
  const out = mkdtempSync(join(tmpdir(), 'resty-build-'));
  let result: BundleResult;
  after(() => rmSync(out, { recursive: true, force: true }));
  before(async () => {
    result = await bundle(ROOT, config.entry, out);
  });

  void it('writes the launcher, its chunks, package.json and the notices; nothing else', () => {
    for (const file of result.files) assert.match(file, /^(bin\/resty-ingress\.js|chunks\/[\w-]+\.js|package\.json|THIRD-PARTY-NOTICES)$/, file);
    assert.ok(result.files.includes(config.entry));
    const manifest = JSON.parse(readFileSync(join(out, 'package.json'), 'utf8')) as Record<string, unknown>;
    const source = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(manifest.type, 'module', 'the chunks are ES modules');
    assert.equal(manifest.version, source.version);
  });

  void it('bundles the entry\'s whole import closure and no test code', () => {
    const inputs = new Set(result.inputs);
    for (const file of importClosure(ROOT, config.entry).files) assert.ok(inputs.has(file), `${file} is bundled`);
    const tests = result.inputs.filter((file) => !file.includes('node_modules/') && /\.test\.ts$|testdata|test-support|\/testing(\/|\.ts$)/.test(file));
    assert.deepEqual(tests, []);
  });

  void it('bundles production packages only, and names each in THIRD-PARTY-NOTICES', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const notices = readFileSync(join(out, 'THIRD-PARTY-NOTICES'), 'utf8');
    assert.ok(result.packages.includes('node_modules/@kubernetes/client-node'));
    for (const folder of result.packages) {
      assert.ok(folder in lock.packages, `${folder} is in the lockfile`);
      assert.notEqual(lock.packages[folder]?.dev, true, `${folder} is not a dev dependency`);
      const { name, version } = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as { name: string; version: string };
      assert.ok(notices.includes(`${name}@${version} (`), `${name}@${version} in THIRD-PARTY-NOTICES`);
    }
  });

  void it('needs no node_modules: it imports its own files and Node\'s modules, and requires nothing else but optional packages', () => {
    assert.deepEqual(Object.keys(result.imports).sort(), result.files.filter((name) => name.endsWith('.js')));
    for (const [file, imports] of Object.entries(result.imports)) {
      for (const { path, kind, external } of imports) {
        if (!external) assert.ok(result.files.includes(path), `${file} imports ${path}, which was emitted`);
        else if (kind === 'require-call') assert.ok(isBuiltin(path) || OPTIONAL_REQUIRES.has(path), `${file} requires ${path}`);
        else assert.ok(isBuiltin(path), `${file} imports ${path} (${kind})`);
      }
    }
  });

  void it('the launcher is a file of its own that imports the controller dynamically (after it enabled the compile cache)', () => {
    const launcher = readFileSync(join(out, config.entry), 'utf8');
    assert.ok(launcher.length < 10_000, `the launcher holds no more than itself (${launcher.length} bytes)`);
    const dynamic = (result.imports[config.entry] ?? []).filter((i) => i.kind === 'dynamic-import' && !i.external);
    assert.equal(dynamic.length, 2, 'the controller and the migrate command, each a chunk');
    const enabled = /enableCompileCache(?:\?\.)?\(/.exec(launcher)?.index ?? Infinity;
    assert.ok(enabled < launcher.indexOf('import('), 'the cache is on before the first dynamic import');
  });

  void it('packageFolderOf: the innermost package folder of a bundled file', () => {
    const rows = [
      { input: 'node_modules/pino/pino.js', folder: 'node_modules/pino' },
      { input: 'node_modules/@kubernetes/client-node/dist/config.js', folder: 'node_modules/@kubernetes/client-node' },
      { input: 'node_modules/a/node_modules/b/index.js', folder: 'node_modules/a/node_modules/b' },
      { input: 'controller/src/main.ts', folder: null },
    ];
    for (const row of rows) assert.equal(packageFolderOf(row.input), row.folder, row.input);
  });

  void it('the bundled launcher starts outside the checkout: --version, --help and the migrate command', async () => {
    const launcher = join(out, config.entry);
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const env = { ...process.env, NODE_OPTIONS: '', NODE_COMPILE_CACHE: join(out, '.compile-cache') };
    const printed = await run(process.execPath, [launcher, '--version'], { timeout: 60_000, cwd: out, env });
    assert.equal(printed.stdout.trim(), version);
    assert.equal(printed.stderr, '', 'no warnings (e.g. a deprecated module loaded from outside node_modules)');
    const help = await run(process.execPath, [launcher, '--help'], { timeout: 60_000, cwd: out, env });
    assert.match(help.stdout, /^Usage: resty-ingress/);
    const migrate = await run(process.execPath, [launcher, 'migrate', '--help'], { timeout: 60_000, cwd: out, env });
    assert.match(migrate.stdout, /^Usage: resty-ingress migrate/);
  });
});
