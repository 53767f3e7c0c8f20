// `npm run build`'s bundle: the launcher (tsconfig.build.json's one entry)
// and everything it imports, our TypeScript and the npm packages alike, as a
// few ESM files (esbuild, platform node, target node24, tree-shaken), so a
// starting controller reads ~10 files instead of ~1,200 module files through
// Node's ESM loader (docs/performance.md, "Start-up"). The output needs no
// node_modules at run time: what it leaves to `require` is Node's own modules
// and optional packages the code around the call does without (build.test.ts
// holds that list). `npm run build` type-checks first (tsc --noEmit).
//
// Output (outDir, default tsconfig.build.json's): bin/resty-ingress.js, the
// launcher, which enables V8's compile cache before it imports the rest;
// chunks/*.js, the controller and the migrate command (each imported
// dynamically, so the compile cache covers them) and the code they share;
// package.json ("type": "module", name, version); THIRD-PARTY-NOTICES, the
// licences of the bundled packages (the image no longer ships their folders).
//   node scripts/build.ts [outDir]
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';

const ROOT = join(import.meta.dirname, '..');

export interface BuildConfig {
  /** The launcher, repo-relative (tsconfig.build.json's files[0]). */
  readonly entry: string;
  /** Where the build goes, repo-relative (tsconfig.build.json's outDir). */
  readonly outDir: string;
}

export interface BundleResult {
  /** The files written, relative to the output folder, sorted. */
  readonly files: readonly string[];
  /** The repo-relative files bundled (sources and node_modules files), sorted. */
  readonly inputs: readonly string[];
  /** The npm packages bundled (their folder under node_modules), sorted. */
  readonly packages: readonly string[];
  /** Per output file (relative to the output folder): what it imports or requires, as esbuild resolved it. */
  readonly imports: Readonly<Record<string, readonly OutputImport[]>>;
}

export interface OutputImport {
  /** Another output file (relative to the output folder), or the specifier left to Node when external. */
  readonly path: string;
  readonly kind: string;
  /** Left to Node at run time (a Node module, or a package the bundle does not hold). */
  readonly external: boolean;
}

export function buildConfig(root: string = ROOT): BuildConfig {
  const config = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as { files: string[]; compilerOptions: { outDir: string } };
  return { entry: config.files[0] ?? '', outDir: config.compilerOptions.outDir };
}

// The bundled CommonJS packages call require() for Node's modules; ESM output has no require of its own.
const REQUIRE_BANNER = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** The package folder of a node_modules path: node_modules/@scope/name or node_modules/name (the innermost). */
export function packageFolderOf(input: string): string | null {
  const match = /^(?:.*\/)?(node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (match === null) return null;
  return input.slice(0, input.lastIndexOf(match[1] ?? '') + (match[1] ?? '').length);
}

/** Bundles `entry` (repo-relative) into `outDir` (absolute, emptied first). */
export async function bundle(root: string, entry: string, outDir: string): Promise<BundleResult> {
  rmSync(outDir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outdir: outDir,
    outbase: '.',
    entryNames: '[dir]/[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    // Whitespace and syntax only: names stay as written (stack traces, constructor names), ~20% faster to load than unminified.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'eof',
    banner: { js: REQUIRE_BANNER },
    // node-fetch falls back to whatwg-url's URL only where Node has none; the package (with tr46,
    // which loads Node's deprecated punycode and would warn outside node_modules) stays out.
    alias: { 'whatwg-url': './scripts/build-shims/whatwg-url.ts' },
    metafile: true,
    logLevel: 'warning',
  });
  const metafile: Metafile = result.metafile;
  const inputs = Object.keys(metafile.inputs).sort();
  const packages = [...new Set(inputs.map(packageFolderOf).filter((p): p is string => p !== null))].sort();
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string; license: string };
  writeFileSync(join(outDir, 'package.json'), `${JSON.stringify({ name: manifest.name, version: manifest.version, license: manifest.license, type: 'module', private: true }, null, 2)}\n`);
  writeFileSync(join(outDir, 'THIRD-PARTY-NOTICES'), notices(root, packages));
  const imports: Record<string, OutputImport[]> = {};
  for (const [output, { imports: list }] of Object.entries(metafile.outputs)) {
    imports[posix.normalize(relative(outDir, join(root, output)))] = list.map((i) => ({
      path: i.external === true ? i.path : posix.normalize(relative(outDir, join(root, i.path))),
      kind: i.kind,
      external: i.external === true,
    }));
  }
  const files = readdirSync(outDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => posix.normalize(relative(outDir, join(e.parentPath, e.name))))
    .sort();
  return { files, inputs, packages, imports };
}

/** Each bundled package's name, version and licence text (its LICENSE/LICENCE/COPYING files). */
function notices(root: string, packages: readonly string[]): string {
  const sections = packages.map((folder) => {
    const dir = join(root, folder);
    const { name, version, license } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string; license?: string };
    const texts = readdirSync(dir).filter((f) => /^(licen[cs]e|copying|notice)/i.test(f)).sort().map((f) => readFileSync(join(dir, f), 'utf8').trim());
    return [`${name}@${version} (${license ?? 'see text'})`, ...(texts.length > 0 ? texts : [`licence: ${license ?? 'unknown'} (no licence file in the package)`])].join('\n\n');
  });
  return `The controller's bundle includes these npm packages.\n\n${sections.join(`\n\n${'-'.repeat(72)}\n\n`)}\n`;
}

async function main(): Promise<void> {
  const config = buildConfig();
  const outDir = resolve(ROOT, process.argv[2] ?? config.outDir);
  mkdirSync(outDir, { recursive: true });
  const result = await bundle(ROOT, config.entry, outDir);
  const sources = result.inputs.filter((f) => !f.includes('node_modules/')).length;
  console.log(`build: ${relative(ROOT, outDir) || '.'}: ${result.files.length} files from ${sources} sources and ${result.packages.length} packages`);
  if (!existsSync(join(outDir, config.entry))) throw new Error(`build: no ${config.entry} in ${outDir}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(`build: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  });
}
