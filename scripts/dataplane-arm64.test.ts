// arm64 images work as far as paths go: Debian trixie's real arm64 packages of
// the data-plane list (scripts/dataplane-packages.txt, what the image
// installs), downloaded and unpacked the way `npm run setup` does for this
// machine, hold the loader, nginx, the modules and cjson.so exactly where the
// controller looks on arm64 (systemDataplane in the image, dataplaneAt for an
// unpacked tree), and those binaries are aarch64 ELF files. Downloads ~8 MB
// from the machine's Debian mirror into a temporary folder.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, openSync, readFileSync, readSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dataplaneAt, systemDataplane } from '../controller/src/nginx/dataplane.ts';
import { downloadAndUnpack, parsePackageList } from './setup-dataplane.ts';

const ELF_MACHINE_AARCH64 = 183;

/** e_machine of an ELF file (little-endian), or null when the file is not ELF. */
function elfMachine(path: string): number | null {
  const header = Buffer.alloc(20);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, 20, 0);
  } finally {
    closeSync(fd);
  }
  return header.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])) ? header.readUInt16LE(18) : null;
}

void describe('the data plane on arm64 (Debian packages)', { timeout: 300_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'dataplane-arm64-'));
  const tree = join(work, 'dataplane');
  after(() => rmSync(work, { recursive: true, force: true }));
  before(async () => {
    const packages = parsePackageList(readFileSync(join(import.meta.dirname, 'dataplane-packages.txt'), 'utf8'));
    await downloadAndUnpack(join(work, 'apt'), packages, tree, 'arm64');
  });

  void it('the image paths on arm64 are in the packages: modules, cjson.so, lua-resty-core', () => {
    const system = systemDataplane('/etc/nginx/lua', 'arm64');
    const cpathDir = /^([^?;]+)\/\?\.so/.exec(system.luaPackageCPath)?.[1] ?? '';
    for (const path of [system.command[0] ?? '', ...system.modules, system.streamModule, join(cpathDir, 'cjson.so'), '/usr/share/lua/5.1/resty/core.lua']) {
      assert.ok(existsSync(join(tree, path)), `${path} is in the arm64 packages`);
    }
  });

  void it('an unpacked arm64 tree runs through its aarch64 loader and libraries', () => {
    const dataplane = dataplaneAt(tree, '/lua', 'arm64');
    const [loader, , libraryPath, nginx] = dataplane.command;
    assert.ok(loader && nginx && libraryPath);
    assert.equal(libraryPath, join(tree, 'usr/lib/aarch64-linux-gnu'));
    for (const binary of [loader, nginx, join(libraryPath, 'lua/5.1/cjson.so'), ...dataplane.modules]) {
      assert.equal(elfMachine(binary), ELF_MACHINE_AARCH64, `${binary} is an aarch64 ELF file`);
    }
  });
});
