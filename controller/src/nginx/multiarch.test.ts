// The data plane's library paths follow the machine's architecture: an arm64
// tree is found through its own loader and multiarch folder, and the image's
// system paths name the arm64 folder on arm64 (scripts/dataplane-arm64.test.ts
// checks the same paths against Debian's real arm64 packages).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { dataplaneAt, systemDataplane } from './dataplane.ts';
import { multiarch } from './multiarch.ts';

/** A tree with just the files dataplaneAt looks for, laid out for `triplet` and `loader`. */
function fakeTree(triplet: string, loaderDir: string, loader: string): string {
  const root = mkdtempSync(join(tmpdir(), 'multiarch-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  for (const file of [join(loaderDir, loader), 'usr/sbin/nginx', 'usr/lib/nginx/modules/ngx_stream_module.so', 'usr/lib/nginx/modules/ngx_stream_js_module.so', `usr/lib/${triplet}/lua/5.1/cjson.so`]) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), '');
  }
  return root;
}

void describe('dataplane paths per architecture', () => {
  const rows = [
    { arch: 'x64', triplet: 'x86_64-linux-gnu', loader: 'ld-linux-x86-64.so.2', loaderDir: 'usr/lib/x86_64-linux-gnu' },
    { arch: 'arm64', triplet: 'aarch64-linux-gnu', loader: 'ld-linux-aarch64.so.1', loaderDir: 'usr/lib/aarch64-linux-gnu' },
    { arch: 'x64 tree with the loader only in lib64', triplet: 'x86_64-linux-gnu', loader: 'ld-linux-x86-64.so.2', loaderDir: 'lib64' },
  ];
  for (const row of rows) {
    const arch = row.arch.split(' ')[0] ?? '';
    void it(`${row.arch}: unpacked tree through its own loader and library folder`, () => {
      const root = fakeTree(row.triplet, row.loaderDir, row.loader);
      const dp = dataplaneAt(root, '/lua', arch);
      assert.deepEqual(dp.command, [join(root, row.loaderDir, row.loader), '--library-path', join(root, 'usr/lib', row.triplet), join(root, 'usr/sbin/nginx')]);
      assert.equal(dp.luaPackageCPath, `${join(root, 'usr/lib', row.triplet, 'lua/5.1')}/?.so;;`);
    });
    void it(`${row.arch}: the image's system paths`, () => {
      assert.equal(systemDataplane('/etc/nginx/lua', arch).luaPackageCPath, `/usr/lib/${row.triplet}/lua/5.1/?.so;;`);
    });
  }

  void it('a tree of another architecture is not taken for ours', () => {
    const root = fakeTree('aarch64-linux-gnu', 'usr/lib/aarch64-linux-gnu', 'ld-linux-aarch64.so.1');
    assert.throws(() => dataplaneAt(root, '/lua', 'x64'), /no ld-linux-x86-64\.so\.2 under/);
  });

  void it('an architecture without a row is named in the error', () => {
    assert.throws(() => multiarch('mips'), /no Debian multiarch known for Node's arch mips/);
    assert.throws(() => systemDataplane('/etc/nginx/lua', 'mips'), /arch mips/);
  });

  void it('this machine has a row (the tests and the image run here)', () => {
    assert.match(multiarch().triplet, /-linux-gnu$/);
  });
});
