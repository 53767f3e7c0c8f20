// Atomic writes, and `nginx -t` on the real runtime.
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { testNginxConf, writeFileAtomic } from './nginx-conf-files.ts';
import { NginxConfigError } from './nginx-errors.ts';
import { freePort, requireDataplane, tempPrefix, testConf } from './nginx-test-support.ts';

describe('writeFileAtomic', () => {
  it('replaces the content and leaves no temp file', async (t) => {
    const { prefix, remove } = await tempPrefix();
    t.after(remove);
    const path = join(prefix, 'nginx.conf');
    await writeFile(path, 'old');
    await writeFileAtomic(path, 'new content');
    assert.equal(await readFile(path, 'utf8'), 'new content');
    assert.deepEqual(await readdir(prefix), ['nginx.conf']);
  });

  it('fails clearly when the folder does not exist', async () => {
    await assert.rejects(writeFileAtomic('/nonexistent-dir-for-test/nginx.conf', 'x'), { code: 'ENOENT' });
  });
});

describe('testNginxConf', () => {
  const rows = [
    { name: 'a valid configuration', extraHttp: '', expect: null },
    { name: 'an unknown directive', extraHttp: 'frobnicate on;', expect: /\[emerg\] unknown directive "frobnicate" in .*:\d+/ },
    { name: 'a directive in the wrong context', extraHttp: 'listen 8080;', expect: /"listen" directive is not allowed here/ },
    { name: 'a duplicate location', extraHttp: 'server { location /a {} location /a {} }', expect: /duplicate location "\/a"/ },
  ];
  for (const row of rows) {
    it(row.name, async (t) => {
      const dataplane = requireDataplane();
      const { prefix, remove } = await tempPrefix();
      t.after(remove);
      const confPath = join(prefix, 'candidate');
      await writeFile(confPath, testConf({ statusPort: await freePort(), version: 'v1', extraHttp: row.extraHttp }));
      const run = testNginxConf({ dataplane, prefix, confPath });
      if (row.expect === null) {
        await run;
        return;
      }
      await assert.rejects(run, (err: unknown) => {
        assert.ok(err instanceof NginxConfigError);
        assert.match(err.message, row.expect);
        assert.match(err.nginxOutput, /test failed/);
        return true;
      });
    });
  }

  it('reports a file that does not exist', async (t) => {
    const { prefix, remove } = await tempPrefix();
    t.after(remove);
    await assert.rejects(
      testNginxConf({ dataplane: requireDataplane(), prefix, confPath: join(prefix, 'missing.conf') }),
      (err: unknown) => err instanceof NginxConfigError && /missing\.conf/.test(err.message),
    );
  });
});
