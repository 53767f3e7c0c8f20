// Estimates the uncompressed size of the image the Dockerfile builds, without
// a Docker engine, from the same lists the Dockerfile uses:
// - debian:trixie-slim: Debian's "required" packages and what they depend on
//   (what the slim image is made of), resolved by apt (apt-get -s);
// - the runtime stage's apt-get install (scripts/dataplane-packages.txt + tini),
//   resolved by apt against that base;
//   both counted file by file from the .debs (downloaded into
//   .cache/image-size/debs once), less what the slim image's dpkg excludes
//   (documentation but copyright files, manuals, info, locales);
// - the node binary (the official build, as in the Node image), measured;
// - the controller as `npm run build` bundles it (scripts/build.ts, into a
//   temporary folder): our code and the npm packages it uses, with their
//   licences (no node_modules in the image);
// - the Lua and the templates.
// Needs `npm run setup` (the private apt lists in .cache/apt). Run:
//   node scripts/image-size.ts [--json]
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildConfig, bundle } from './build.ts';
import { aptOptions, parsePackageList } from './setup-dataplane.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
export const GOAL_MB = 250;
/** What debian:*-slim's dpkg configuration leaves out of every package it installs. */
const SLIM_EXCLUDED = /^\.\/usr\/share\/(?:doc\/(?![^/]+\/copyright$)|man\/|info\/|locale\/|lintian\/|linda\/|groff\/)/;

/** The bytes of a .deb's regular files (`dpkg-deb -c`), less SLIM_EXCLUDED paths. */
export function slimBytes(listing: string): number {
  let total = 0;
  for (const line of listing.split('\n')) {
    const match = /^-\S+\s+\S+\s+(\d+)\s+\S+\s+\S+\s+(\S+)/.exec(line);
    if (match?.[1] && match[2] && !SLIM_EXCLUDED.test(match[2])) total += Number(match[1]);
  }
  return total;
}

export interface Stanza {
  readonly fields: ReadonlyMap<string, string>;
  readonly text: string;
}

/** The stanzas of a Packages text (apt-cache dumpavail), by package name. */
export function parseStanzas(text: string): Map<string, Stanza> {
  const byName = new Map<string, Stanza>();
  for (const block of text.split(/\n\n+/)) {
    const fields = new Map<string, string>();
    let last = '';
    for (const line of block.split('\n')) {
      if (/^\s/.test(line) && last) fields.set(last, `${fields.get(last) ?? ''}\n${line}`);
      else {
        const match = /^([\w-]+):\s?(.*)$/.exec(line);
        if (match?.[1]) fields.set((last = match[1].toLowerCase()), match[2] ?? '');
      }
    }
    const name = fields.get('package');
    if (name) byName.set(name, { fields, text: block.trim() });
  }
  return byName;
}

/** The package names apt-get -s would install ("Inst <name> ..."). */
export function simulatedInstalls(output: string): string[] {
  return [...output.matchAll(/^Inst (\S+)/gm)].map((match) => (match[1] ?? '').replace(/:\w+$/, ''));
}

async function debBytes(stanzas: ReadonlyMap<string, Stanza>, names: readonly string[], statusFile: string): Promise<number> {
  const debDir = join(ROOT, '.cache/image-size/debs');
  mkdirSync(debDir, { recursive: true });
  // apt-get download's file name: name_version_arch.deb with the epoch's ':' as %3a.
  const debOf = (name: string): string => {
    const fields = stanzas.get(name)?.fields;
    return join(debDir, `${name}_${(fields?.get('version') ?? '').replace(':', '%3a')}_${fields?.get('architecture') ?? ''}.deb`);
  };
  const missing = names.filter((name) => !existsSync(debOf(name)));
  if (missing.length > 0) {
    const opts = [...aptOptions(join(ROOT, '.cache/apt'), process.arch), '-o', `Dir::State::Status=${statusFile}`];
    await run('apt-get', [...opts, '-q', 'download', ...missing], { cwd: debDir, maxBuffer: 64 << 20 });
  }
  let total = 0;
  for (const name of names) total += slimBytes((await run('dpkg-deb', ['-c', debOf(name)], { maxBuffer: 64 << 20 })).stdout);
  return total;
}

function installedBytes(stanzas: ReadonlyMap<string, Stanza>, names: Iterable<string>): number {
  let kib = 0;
  for (const name of names) kib += Number(stanzas.get(name)?.fields.get('installed-size') ?? 0);
  return kib * 1024;
}

function treeBytes(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const entry of readdirSync(path, { recursive: true, withFileTypes: true })) {
    const file = join(entry.parentPath, entry.name);
    if (entry.isFile()) total += statSync(file).size;
  }
  return total;
}

async function apt(args: readonly string[], statusFile: string): Promise<string> {
  const opts = [...aptOptions(join(ROOT, '.cache/apt'), process.arch), '-o', `Dir::State::Status=${statusFile}`];
  const { stdout } = await run(args[0] ?? '', [...opts, ...args.slice(1)], { maxBuffer: 512 << 20 });
  return stdout;
}

export interface ImageEstimate {
  readonly parts: ReadonlyArray<{ readonly part: string; readonly bytes: number; readonly detail: string }>;
  readonly totalBytes: number;
  /** the packages the runtime stage's apt-get install adds to the base */
  readonly added: readonly string[];
  /** the packages of debian:trixie-slim as estimated */
  readonly base: readonly string[];
}

export async function estimateImage(): Promise<ImageEstimate> {
  const work = mkdtempSync(join(tmpdir(), 'image-size-'));
  try {
    const empty = join(work, 'empty-status');
    writeFileSync(empty, '');
    const stanzas = parseStanzas(await apt(['apt-cache', 'dumpavail'], empty));
    const required = [...stanzas.values()].filter((s) => s.fields.get('priority') === 'required').map((s) => s.fields.get('package') ?? '');
    const base = simulatedInstalls(await apt(['apt-get', '-s', '-q', 'install', '--no-install-recommends', ...required], empty));
    const status = join(work, 'base-status');
    writeFileSync(status, base.map((name) => `${stanzas.get(name)?.text ?? ''}\nStatus: install ok installed\n`).join('\n'));
    const list = parsePackageList(readFileSync(join(ROOT, 'scripts/dataplane-packages.txt'), 'utf8'));
    const added = simulatedInstalls(await apt(['apt-get', '-s', '-q', 'install', '--no-install-recommends', ...list, 'tini'], status));
    const { entry } = buildConfig(ROOT);
    const built = await bundle(ROOT, entry, join(work, 'dist'));
    const assets = treeBytes(join(ROOT, 'lua/resty_ingress')) + treeBytes(join(ROOT, 'rootfs/etc/nginx/template')) + treeBytes(join(ROOT, 'rootfs/etc/nginx/njs'));
    const parts = [
      { part: 'debian:trixie-slim', bytes: await debBytes(stanzas, base, empty), detail: `${base.length} packages: Priority required and their dependencies (Installed-Size, with documentation: ${megabytes(installedBytes(stanzas, base))})` },
      { part: 'apt-get install (data plane + tini)', bytes: await debBytes(stanzas, added, status), detail: `${added.length} packages (Installed-Size ${megabytes(installedBytes(stanzas, added))}): ${added.join(' ')}` },
      { part: 'node binary', bytes: statSync(join(ROOT, 'node_modules/node/bin/node')).size, detail: `the official Node ${process.version} linux build` },
      { part: 'the controller (bundle)', bytes: treeBytes(join(work, 'dist')), detail: `${built.files.length} files: ${built.inputs.filter((f) => !f.includes('node_modules/')).length} sources and ${built.packages.length} npm packages, with their licences` },
      { part: 'Lua, templates, njs', bytes: assets, detail: 'lua/resty_ingress, rootfs/etc/nginx/template, rootfs/etc/nginx/njs' },
    ];
    return { parts, totalBytes: parts.reduce((sum, p) => sum + p.bytes, 0), added, base };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

async function main(): Promise<void> {
  const estimate = await estimateImage();
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(estimate, null, 2));
    return;
  }
  console.log('| part | size | what |\n| --- | ---: | --- |');
  for (const part of estimate.parts) console.log(`| ${part.part} | ${megabytes(part.bytes)} | ${part.detail} |`);
  console.log(`| **total** | **${megabytes(estimate.totalBytes)}** | goal < ${GOAL_MB} MB |`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(`image-size: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  });
}
