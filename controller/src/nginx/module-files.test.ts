// The identity of the module files a configuration loads moves when a file is
// replaced on disk (a new inode at the same path), not when nothing changed.
import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { moduleFilesStamp } from './module-files.ts';

describe('moduleFilesStamp', () => {
  it('is stable while the files stay, moves when one is replaced or missing', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'resty-modules-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const module = join(dir, 'ngx_http_lua_module.so');
    await writeFile(module, 'library');
    const conf = `load_module "${module}";\nevents {}\n`;
    const first = moduleFilesStamp(conf);
    assert.equal(moduleFilesStamp(conf), first, 'nothing changed');
    assert.equal(moduleFilesStamp('events {}\n'), '', 'no module loaded');
    await writeFile(`${module}.new`, 'library');
    await rename(`${module}.new`, module);
    const replaced = moduleFilesStamp(conf);
    assert.notEqual(replaced, first, 'same content, new file');
    await rm(module);
    assert.match(moduleFilesStamp(conf), /missing$/);
  });
});
