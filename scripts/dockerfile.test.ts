// The Dockerfile checked without a Docker engine: the data-plane package
// list is the one `npm run setup` unpacks (same file, same filtering), every
// COPY source exists, the entrypoint is the build's launcher and the whole
// build output is copied (the bundle needs no node_modules: build.test.ts;
// every package the controller imports is a production dependency), and the
// paths the code looks for in the image are where the Dockerfile puts them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { systemDataplane } from '../controller/src/nginx/dataplane.ts';
import { argumentList, copyInstructions, lastInStage, parseDockerfile, type CopyInstruction } from './dockerfile-instructions.ts';
import { importClosure } from './dockerfile-imports.ts';
import { parsePackageList } from './setup-dataplane.ts';

const ROOT = join(import.meta.dirname, '..');
const PACKAGE_LIST = 'scripts/dataplane-packages.txt';
const instructions = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const copies = copyInstructions(instructions);
const stages = [...new Set(instructions.map((i) => i.stage))].filter((s) => s !== ''); // '' = ARGs before the first FROM
const runtime = stages.at(-1) ?? '';
const buildDir = lastInStage(instructions, 'build', 'WORKDIR') ?? '';
const buildConfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { files: string[]; compilerOptions: { outDir: string; rootDir: string } };
const OUT_DIR = buildConfig.compilerOptions.outDir;
/** Made inside the build stage, not in the context: npm ci's modules, npm run build's output (scripts/build.ts). */
const BUILT_IN_IMAGE = new Set(['node_modules', OUT_DIR]);
/** Taken from the build stage's base image (the official Node image), not from the context. */
const FROM_NODE_IMAGE = new Set(['/usr/local/bin/node']);

/** A COPY source is a directory (its contents are copied, not itself) when it says so or is one in the repo. */
function isDirectory(repoPath: string, source: string): boolean {
  if (source.endsWith('/') || BUILT_IN_IMAGE.has(repoPath)) return true;
  return existsSync(join(ROOT, repoPath)) && statSync(join(ROOT, repoPath)).isDirectory();
}

/** The repo path (or path in the build output) an image path in the runtime stage came from, via the COPY that put it there. */
function sourceOf(imagePath: string): string | null {
  for (const copy of copies.filter((c) => c.stage === runtime).reverse()) {
    for (const source of copy.sources) {
      const repoSource = posix.normalize(copy.from === 'build' ? posix.relative(buildDir, source) : source).replace(/\/$/, '');
      const dest = isDirectory(repoSource, source) || (copy.sources.length === 1 && !copy.destination.endsWith('/'))
        ? copy.destination.replace(/\/$/, '') || '/'
        : posix.join(copy.destination, posix.basename(source));
      if (imagePath !== dest && !imagePath.startsWith(`${dest.replace(/\/$/, '')}/`)) continue;
      return posix.join(repoSource, posix.relative(dest, imagePath));
    }
  }
  return null;
}

/** The shell filter the Dockerfile pipes the package list through before `xargs apt-get install`. */
function dockerfilePackageFilter(): { command: string; listPath: string } {
  const copy = copies.find((c) => c.stage === runtime && c.sources.includes(PACKAGE_LIST));
  assert.ok(copy, `the runtime stage COPYs ${PACKAGE_LIST}`);
  const run = instructions.find((i) => i.stage === runtime && i.keyword === 'RUN' && i.args.includes(copy.destination));
  assert.ok(run, `a RUN reads ${copy.destination}`);
  const match = /(sed\s[^|]*?)\|\s*xargs\s+apt-get\s+install\s/.exec(run.args);
  assert.ok(match?.[1], `the RUN pipes the list into xargs apt-get install: ${run.args}`);
  return { command: match[1].trim(), listPath: copy.destination };
}

function runFilter(text: string): string[] {
  const { command, listPath } = dockerfilePackageFilter();
  const dir = mkdtempSync(join(tmpdir(), 'dockerfile-'));
  try {
    writeFileSync(join(dir, 'list.txt'), text);
    const out = execFileSync('bash', ['-c', command.replaceAll(listPath, join(dir, 'list.txt'))], { encoding: 'utf8' });
    return out.split('\n').filter((l) => l !== '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void test('the image installs exactly the package list the test set-up unpacks', () => {
  const setupSource = readFileSync(join(ROOT, 'scripts/setup-dataplane.ts'), 'utf8');
  assert.ok(setupSource.includes(PACKAGE_LIST.replace('scripts/', '')), 'setup-dataplane.ts reads the same file');
  const text = readFileSync(join(ROOT, PACKAGE_LIST), 'utf8');
  assert.deepEqual(runFilter(text), parsePackageList(text));
  assert.ok(parsePackageList(text).includes('libnginx-mod-http-lua'));
});

void test('the Dockerfile filter and parsePackageList read any list alike', () => {
  const rows = [
    { name: 'comments and blanks', text: '# head\nnginx\n\n  # indented comment\nlua-cjson\n' },
    { name: 'inline comment and spaces', text: '  nginx   # the server\n\tlua-resty-core\t\n' },
    { name: 'CRLF line ends', text: 'nginx\r\nlua-cjson\r\n' },
    { name: 'no final newline', text: 'nginx\nzlib1g' },
  ];
  for (const row of rows) assert.deepEqual(runFilter(row.text), parsePackageList(row.text), row.name);
});

void test('stages: build in the Node 24 image, run on Debian trixie slim with its node binary, non-root, tini as PID 1', () => {
  assert.deepEqual(stages, ['build', 'runtime']);
  const runs = instructions.filter((i) => i.stage === 'build' && i.keyword === 'RUN').map((i) => i.args).join('\n');
  for (const step of ['npm ci', 'npm run build']) assert.ok(runs.includes(step), step);
  const arg = (name: string): string | undefined => instructions.find((i) => i.keyword === 'ARG' && i.args.startsWith(`${name}=`))?.args.slice(name.length + 1);
  assert.equal(arg('NODE_IMAGE'), 'node:24-trixie-slim');
  // The node binary runs on the runtime's glibc and libstdc++: both images must be the same Debian release.
  assert.equal(arg('DEBIAN_IMAGE'), 'debian:trixie-slim');
  const from = (stage: string): string => instructions.find((i) => i.stage === stage && i.keyword === 'FROM')?.args.split(/\s+/)[0] ?? '';
  assert.equal(from('build'), '${NODE_IMAGE}');
  assert.equal(from(runtime), '${DEBIAN_IMAGE}');
  assert.ok(copies.some((c) => c.stage === runtime && c.from === 'build' && c.sources.includes('/usr/local/bin/node') && c.destination === '/usr/local/bin/node'), 'node comes from the Node image');
  const user = lastInStage(instructions, runtime, 'USER') ?? '';
  const chartValues = parseYaml(readFileSync(join(ROOT, 'charts/resty-ingress/values.yaml'), 'utf8')) as { controller: { image: { runAsUser: number; runAsGroup: number } } };
  assert.equal(user, `${chartValues.controller.image.runAsUser}:${chartValues.controller.image.runAsGroup}`, 'USER is numeric, non-root and what the chart runs as');
  assert.notEqual(user.split(':')[0], '0');
  const entrypoint = argumentList(lastInStage(instructions, runtime, 'ENTRYPOINT') ?? '');
  assert.deepEqual(entrypoint.slice(0, 3), ['/usr/bin/tini', '--', 'node']);
  assert.ok(instructions.some((i) => i.stage === runtime && i.keyword === 'RUN' && /apt-get install[^&]*\btini\b/.test(i.args)), 'tini is installed');
});

void test('build_info\'s commit: the runtime stage sets RESTY_INGRESS_BUILD_COMMIT from a build arg, empty by default', () => {
  const arg = instructions.find((i) => i.stage === runtime && i.keyword === 'ARG' && i.args.startsWith('RESTY_INGRESS_BUILD_COMMIT'));
  assert.ok(arg, 'ARG RESTY_INGRESS_BUILD_COMMIT in the runtime stage (an ARG before FROM is not visible to ENV)');
  assert.match(arg.args, /^RESTY_INGRESS_BUILD_COMMIT(=""|=)?$/, 'empty by default: build_info says UNKNOWN');
  const env = instructions.filter((i) => i.stage === runtime && i.keyword === 'ENV').map((i) => i.args).join(' ');
  assert.match(env, /(^|\s)RESTY_INGRESS_BUILD_COMMIT=\$\{RESTY_INGRESS_BUILD_COMMIT\}(\s|$)/, 'the controller reads it from the environment (metrics/build-info.ts)');
});

void test('every COPY source exists and is in the build context', () => {
  const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const check = (copy: CopyInstruction, source: string): void => {
    if (copy.from !== null && copy.from !== 'build') assert.fail(`COPY --from=${copy.from} is not a stage this test knows`);
    if (copy.from === 'build' && FROM_NODE_IMAGE.has(source)) return;
    const repoPath = posix.normalize(copy.from === 'build' ? posix.relative(buildDir, source) : source).replace(/\/$/, '');
    if (repoPath === '.' || BUILT_IN_IMAGE.has(repoPath)) return;
    assert.ok(existsSync(join(ROOT, repoPath)), `COPY source ${repoPath} exists`);
    assert.ok(!ignored.some((pattern) => repoPath === pattern || repoPath.startsWith(`${pattern}/`)), `${repoPath} is not .dockerignored`);
  };
  for (const copy of copies) for (const source of copy.sources) check(copy, source);
});

void test('the entrypoint script is the build\'s launcher, the whole build is copied, and no node_modules', () => {
  const entrypoint = argumentList(lastInStage(instructions, runtime, 'ENTRYPOINT') ?? '');
  const script = entrypoint[3];
  assert.ok(script?.startsWith('/'), 'the entrypoint names its script by absolute path');
  const workdir = lastInStage(instructions, runtime, 'WORKDIR') ?? '/';
  // scripts/build.ts writes <outDir>/<entry> (the launcher), <outDir>/chunks/ (the bundle it imports),
  // package.json and THIRD-PARTY-NOTICES; the runtime stage must have all of it where the launcher is.
  const entry = buildConfig.files[0] ?? '';
  assert.deepEqual(buildConfig.files, [entry], 'the build starts from one entry script');
  assert.equal(sourceOf(script), posix.join(OUT_DIR, entry), `${script} is the build's ${entry}`);
  const appRoot = posix.dirname(posix.dirname(script)); // <app>/bin/resty-ingress.js
  for (const file of ['chunks/any-chunk.js', 'package.json', 'THIRD-PARTY-NOTICES']) {
    assert.equal(sourceOf(posix.join(appRoot, file)), posix.join(OUT_DIR, file), `the build's ${file} is copied beside the launcher`);
  }
  assert.equal(workdir, appRoot, 'WORKDIR is the build\'s folder');
  const modules = copies.filter((c) => c.stage === runtime && c.sources.some((source) => source.includes('node_modules')));
  assert.deepEqual(modules, [], 'the bundle carries its packages: no node_modules in the runtime stage');
  const buildRuns = instructions.filter((i) => i.stage === 'build' && i.keyword === 'RUN').map((i) => i.args).join('\n');
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; dependencies: Record<string, string> };
  assert.ok(buildRuns.includes('npm run build') && manifest.scripts.build?.includes('node scripts/build.ts'), 'npm run build runs the bundler');
  // Bundled, a dev dependency would run in the image all the same: the code's imports stay production dependencies.
  const { packages } = importClosure(ROOT, entry);
  for (const name of packages) assert.ok(name in manifest.dependencies, `${name} is a production dependency`);
});

void test('the paths the controller expects in the image are where the Dockerfile puts them', () => {
  const luaDir = /^([^?;]+)\/\?\.lua;/.exec(systemDataplane('/etc/nginx/lua').luaPackagePath)?.[1];
  const dataplaneSource = readFileSync(join(ROOT, 'controller/src/nginx/dataplane.ts'), 'utf8');
  assert.ok(dataplaneSource.includes(`IMAGE_LUA_DIR = '${luaDir}'`), 'dataplane.ts looks for Lua in the image at /etc/nginx/lua');
  assert.equal(sourceOf(`${luaDir}/resty_ingress/balancer.lua`), 'lua/resty_ingress/balancer.lua');
  const controllerSource = readFileSync(join(ROOT, 'controller/src/controller.ts'), 'utf8');
  assert.ok(controllerSource.includes("'/etc/nginx/template'"), 'controller.ts falls back to /etc/nginx/template');
  assert.equal(sourceOf('/etc/nginx/template/nginx.conf.njk'), 'rootfs/etc/nginx/template/nginx.conf.njk');
  // The packages land at the system paths: the unpacked copy of the same list shows they are there.
  const unpacked = join(ROOT, '.cache/dataplane');
  assert.ok(existsSync(unpacked), 'run `npm run setup` first (unpacks the package list into .cache/dataplane)');
  const system = systemDataplane(luaDir ?? '');
  for (const path of [system.command[0] ?? '', ...system.modules]) assert.ok(existsSync(join(unpacked, path)), `${path} is in the packages`);
  const cpathDir = /^([^?;]+)\/\?\.so/.exec(system.luaPackageCPath)?.[1] ?? '';
  assert.ok(existsSync(join(unpacked, cpathDir, 'cjson.so')), `cjson.so in ${cpathDir}`);
  assert.ok(existsSync(join(unpacked, 'usr/share/lua/5.1/resty/core.lua')), 'lua-resty-core on the lua_package_path');
  // TCP/UDP services: the stream modules (njs included) and the njs script stream {} imports.
  for (const path of [system.streamModule, system.streamJsModule]) assert.ok(existsSync(join(unpacked, path)), `${path} is in the packages`);
  assert.equal(sourceOf(system.streamScript), 'rootfs/etc/nginx/njs/resty_stream.js');
});

// Lint with dockerfile-utils (the Dockerfile language server's validator, from
// npm; hadolint is packaged in neither Debian 12 nor npm). Its rows prove it
// reports real mistakes, so a clean result on our Dockerfile means something.
const LINT_ROWS: { name: string; text: string; clean: boolean }[] = [
  { name: 'our Dockerfile', text: readFileSync(join(ROOT, 'Dockerfile'), 'utf8'), clean: true },
  { name: 'an unknown instruction', text: 'FROM debian:trixie-slim\nRUNN echo hi\n', clean: false },
  { name: 'an instruction before FROM', text: 'RUN echo hi\nFROM debian:trixie-slim\n', clean: false },
  { name: 'EXPOSE with a bad port', text: 'FROM debian:trixie-slim\nEXPOSE eighty\n', clean: false },
];

for (const row of LINT_ROWS) {
  void test(`dockerfile lint: ${row.name}`, async () => {
    const { validate } = await import('dockerfile-utils');
    const problems = validate(row.text).map((d) => `${d.range.start.line + 1}: ${d.message}`);
    if (row.clean) assert.deepEqual(problems, []);
    else assert.ok(problems.length > 0, 'the linter must report this mistake');
  });
}
