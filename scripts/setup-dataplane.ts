// Unpacks the data-plane runtime (Debian trixie NGINX + ngx_lua + LuaJIT) into
// <repo>/.cache/dataplane without root: a private apt configuration pointed at
// the machine's own Debian mirror, `apt-get download`, `dpkg -x`. Why trixie on
// a Debian 12 machine: see DESIGN.md (ngx_lua 0.10.28, one runtime tested and shipped).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { libDir, multiarch } from '../controller/src/nginx/multiarch.ts';

const run = promisify(execFile);

/** Debian release names: a source line naming one of these is a Debian archive mirror. */
const DEBIAN_SUITES = new Set([
  'buster', 'bullseye', 'bookworm', 'trixie', 'forky', 'sid',
  'oldoldstable', 'oldstable', 'stable', 'testing', 'unstable',
]);
const TARGET_SUITE = 'trixie';
const STAMP = '.resty-packages';

/** One apt source file as read from /etc/apt. */
export interface AptSourceFile {
  readonly name: string;
  readonly text: string;
}

/** A Debian mirror found in the machine's apt sources. */
export interface DebianMirror {
  readonly uri: string;
  /** Signed-By keyring of the source, if it named one. */
  readonly signedBy: string | null;
}

/** Package names from dataplane-packages.txt: one per line, '#' comments and blanks ignored. */
export function parsePackageList(text: string): string[] {
  return text.split('\n').map((line) => line.replace(/#.*/, '').trim()).filter((line) => line !== '');
}

function isDebianEntry(suites: readonly string[], components: readonly string[]): boolean {
  return suites.some((suite) => DEBIAN_SUITES.has(suite)) && components.includes('main');
}

function parseOneLineList(text: string, mirrors: DebianMirror[]): void {
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    const match = /^deb\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)\s+(.+)$/.exec(line);
    if (!match) continue;
    const options = match[1] ?? '';
    if (!isDebianEntry([match[3]], match[4].split(/\s+/))) continue;
    const signed = /signed-by=(\S+)/.exec(options);
    mirrors.push({ uri: match[2], signedBy: signed ? signed[1] : null });
  }
}

function parseDeb822(text: string, mirrors: DebianMirror[]): void {
  for (const paragraph of text.split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    for (const line of paragraph.split('\n')) {
      const match = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
      if (match && !line.startsWith('#')) fields.set(match[1].toLowerCase(), match[2].trim());
    }
    if (!(fields.get('types') ?? '').split(/\s+/).includes('deb')) continue;
    if ((fields.get('enabled') ?? 'yes').toLowerCase() === 'no') continue;
    const words = (key: string): string[] => (fields.get(key) ?? '').split(/\s+/).filter(Boolean);
    if (!isDebianEntry(words('suites'), words('components'))) continue;
    const signedBy = fields.get('signed-by') || null;
    for (const uri of words('uris')) mirrors.push({ uri, signedBy });
  }
}

/** The Debian archive mirrors named by apt source files (`*.list` one-line, `*.sources` deb822), deduplicated. */
export function parseDebianMirrors(files: readonly AptSourceFile[]): DebianMirror[] {
  const mirrors: DebianMirror[] = [];
  for (const file of files) {
    if (file.name.endsWith('.sources')) parseDeb822(file.text, mirrors);
    else if (file.name.endsWith('.list')) parseOneLineList(file.text, mirrors);
  }
  const seen = new Set<string>();
  return mirrors.filter((mirror) => !seen.has(mirror.uri) && seen.add(mirror.uri));
}

function readMachineSources(): AptSourceFile[] {
  const files: AptSourceFile[] = [];
  const read = (path: string): void => {
    if (existsSync(path)) files.push({ name: path, text: readFileSync(path, 'utf8') });
  };
  read('/etc/apt/sources.list');
  const dir = '/etc/apt/sources.list.d';
  if (existsSync(dir)) for (const name of readdirSync(dir).sort()) read(join(dir, name));
  return files;
}

function loaderPath(dataplaneRoot: string): string {
  return join(dataplaneRoot, libDir(), multiarch().loader);
}

/** The argv that runs the unpacked nginx through the runtime's own loader (this machine's architecture). */
export function nginxCommand(dataplaneRoot: string): string[] {
  return [loaderPath(dataplaneRoot), '--library-path', join(dataplaneRoot, libDir()), join(dataplaneRoot, 'usr/sbin/nginx')];
}

/** `nginx -V` output of the unpacked runtime; throws when it does not run. */
export async function nginxVersion(dataplaneRoot: string): Promise<string> {
  const loader = loaderPath(dataplaneRoot);
  if (!existsSync(loader)) throw new Error(`dataplane: loader missing at ${loader}`);
  const [cmd, ...args] = nginxCommand(dataplaneRoot);
  const { stdout, stderr } = await run(cmd, [...args, '-V']);
  return stdout + stderr;
}

export function aptOptions(aptDir: string, arch: string): string[] {
  const { dpkgArch } = multiarch(arch);
  const opts: Record<string, string> = {
    'Dir::Etc::SourceList': join(aptDir, 'sources.list'),
    'Dir::Etc::SourceParts': join(aptDir, 'sources.list.d'),
    'Dir::Etc::Preferences': join(aptDir, 'preferences'),
    'Dir::Etc::PreferencesParts': join(aptDir, 'preferences.d'),
    'Dir::State::Lists': join(aptDir, 'lists'),
    'Dir::State::Status': join(aptDir, 'status'),
    'Dir::Cache': join(aptDir, 'cache'),
    'APT::Architecture': dpkgArch,
    'APT::Architectures': dpkgArch,
  };
  // As root apt drops to the _apt user, who may not write our folders; run as ourselves.
  if (process.getuid?.() === 0) opts['APT::Sandbox::User'] = 'root';
  return Object.entries(opts).flatMap(([key, value]) => ['-o', `${key}=${value}`]);
}

function writeAptConfig(aptDir: string, mirrors: readonly DebianMirror[]): void {
  for (const sub of ['sources.list.d', 'preferences.d', 'lists/partial', 'cache/archives/partial', 'debs']) {
    mkdirSync(join(aptDir, sub), { recursive: true });
  }
  const lines = mirrors.map((m) => `deb ${m.signedBy ? `[signed-by=${m.signedBy}] ` : ''}${m.uri} ${TARGET_SUITE} main`);
  writeFileSync(join(aptDir, 'sources.list'), lines.join('\n') + '\n');
  writeFileSync(join(aptDir, 'status'), '');
}

/**
 * Downloads `packages` for Node's `arch` from the machine's Debian mirrors (trixie) with a private
 * apt configuration in `aptDir`, and unpacks them into `target` (replaced whole once all are unpacked).
 */
export async function downloadAndUnpack(aptDir: string, packages: readonly string[], target: string, arch: string = process.arch): Promise<void> {
  const mirrors = parseDebianMirrors(readMachineSources());
  if (mirrors.length === 0) throw new Error('dataplane: no Debian mirror found in /etc/apt sources');
  writeAptConfig(aptDir, mirrors);
  const opts = aptOptions(aptDir, arch);
  await run('apt-get', [...opts, '-q', 'update'], { maxBuffer: 16 << 20 });
  const debDir = join(aptDir, 'debs');
  rmSync(debDir, { recursive: true, force: true });
  mkdirSync(debDir, { recursive: true });
  await run('apt-get', [...opts, '-q', 'download', ...packages], { cwd: debDir, maxBuffer: 16 << 20 });
  const staging = `${target}.staging`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  for (const deb of readdirSync(debDir).filter((name) => name.endsWith('.deb')).sort()) {
    await run('dpkg', ['-x', join(debDir, deb), staging]);
  }
  rmSync(target, { recursive: true, force: true });
  renameSync(staging, target);
}

/**
 * Makes sure <root>/.cache/dataplane holds a working runtime for the current
 * package list. Idempotent: a stamp of the list plus a passing `nginx -V` skips all work.
 */
export async function ensureDataplane(root: string): Promise<{ dataplaneRoot: string; version: string }> {
  const listText = readFileSync(join(root, 'scripts/dataplane-packages.txt'), 'utf8');
  const packages = parsePackageList(listText);
  const target = join(root, '.cache/dataplane');
  const stampPath = join(target, STAMP);
  const stamp = packages.join('\n');
  if (existsSync(stampPath) && readFileSync(stampPath, 'utf8') === stamp) {
    try {
      return { dataplaneRoot: target, version: firstLine(await nginxVersion(target)) };
    } catch {
      // a broken unpack: fall through and redo it
    }
  }
  await downloadAndUnpack(join(root, '.cache/apt'), packages, target);
  const version = await nginxVersion(target);
  if (!version.includes('nginx/1.26.')) throw new Error(`dataplane: unexpected nginx -V output: ${firstLine(version)}`);
  writeFileSync(stampPath, stamp);
  return { dataplaneRoot: target, version: firstLine(version) };
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}
