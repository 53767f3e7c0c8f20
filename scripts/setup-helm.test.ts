// Tests for the helm setup step: the in-process zip reader on zips built here,
// and the real extraction from the devDependency (helm must say v4).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { crc32, deflateRawSync } from 'node:zlib';
import { ensureHelm, helmVersion, readZipEntry, ZipReadError } from './setup-helm.ts';

interface ZipInput {
  readonly name: string;
  readonly content: Buffer;
  readonly deflate: boolean;
}

/** A minimal zip writer: local headers, central directory, end record. */
function buildZip(entries: readonly ZipInput[], comment = ''): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const data = entry.deflate ? deflateRawSync(entry.content) : entry.content;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(entry.deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc32(entry.content), 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(entry.content.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(entry.deflate ? 8 : 0, 10);
    central.writeUInt32LE(crc32(entry.content), 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(entry.content.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  end.writeUInt16LE(comment.length, 20);
  return Buffer.concat([...locals, directory, end, Buffer.from(comment)]);
}

const repeated = Buffer.from('helm '.repeat(2000));
const sample = buildZip([
  { name: 'helm/', content: Buffer.alloc(0), deflate: false },
  { name: 'helm/helm', content: repeated, deflate: true },
  { name: 'kubectl/kubectl', content: Buffer.from('stored bytes'), deflate: false },
], 'a trailing comment');

void describe('readZipEntry', () => {
  const found = [
    { label: 'deflated entry', zip: sample, entry: 'helm/helm', want: repeated },
    { label: 'stored entry', zip: sample, entry: 'kubectl/kubectl', want: Buffer.from('stored bytes') },
    { label: 'empty directory entry', zip: sample, entry: 'helm/', want: Buffer.alloc(0) },
  ];
  for (const row of found) {
    void it(row.label, () => assert.deepEqual(readZipEntry(row.zip, row.entry), row.want));
  }

  const failing = [
    { label: 'missing entry', zip: sample, entry: 'helm/tiller', message: /entry helm\/tiller not found/ },
    { label: 'not a zip', zip: Buffer.from('x'.repeat(100)), entry: 'helm/helm', message: /no end-of-central-directory/ },
    { label: 'too short', zip: Buffer.from('PK'), entry: 'helm/helm', message: /too short/ },
  ];
  for (const row of failing) {
    void it(`rejects: ${row.label}`, () => {
      assert.throws(() => readZipEntry(row.zip, row.entry), (err: unknown) => err instanceof ZipReadError && row.message.test(err.message));
    });
  }
});

void describe('ensureHelm', () => {
  void it('extracts helm v4 once and reuses it', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'helm-setup-'));
    try {
      const helmPath = await ensureHelm(cacheDir);
      assert.equal(helmPath, join(cacheDir, 'helm', 'helm'));
      assert.match(await helmVersion(helmPath), /^v4\.\d+\.\d+/);
      const firstWrite = statSync(helmPath).mtimeMs;
      assert.equal(await ensureHelm(cacheDir), helmPath);
      assert.equal(statSync(helmPath).mtimeMs, firstWrite, 'a second run must not extract again');
      assert.equal(statSync(helmPath).mode & 0o111, 0o111, 'helm must be executable');
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});
