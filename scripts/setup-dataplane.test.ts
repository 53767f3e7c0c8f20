import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseDebianMirrors, parsePackageList, type DebianMirror } from './setup-dataplane.ts';

const MIRROR = 'http://mirror.invalid/debian';
const SECURITY = 'http://mirror.invalid/debian-security';

void describe('parseDebianMirrors', () => {
  const rows: ReadonlyArray<{ name: string; files: { name: string; text: string }[]; want: DebianMirror[] }> = [
    {
      name: 'deb822 .sources: the release suite counts, -security alone does not',
      files: [{
        name: 'debian.sources',
        text: `Types: deb\nURIs: ${MIRROR}\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /k.gpg\n\n` +
          `Types: deb\nURIs: ${SECURITY}\nSuites: bookworm-security\nComponents: main\n`,
      }],
      want: [{ uri: MIRROR, signedBy: '/k.gpg' }],
    },
    {
      name: 'one-line .list with options, comments and deb-src',
      files: [{
        name: 'sources.list',
        text: `# deb ${SECURITY} bookworm main\ndeb-src ${MIRROR} bookworm main\ndeb [arch=amd64 signed-by=/a.gpg] ${MIRROR} bookworm main contrib\n`,
      }],
      want: [{ uri: MIRROR, signedBy: '/a.gpg' }],
    },
    {
      name: 'third-party repositories and disabled entries are ignored',
      files: [
        { name: 'x.list', text: 'deb https://vendor.invalid/apt cloud-sdk-bookworm main\n' },
        { name: 'node.sources', text: 'Types: deb\nURIs: https://vendor.invalid/node\nSuites: nodistro\nComponents: main\n' },
        { name: 'off.sources', text: `Types: deb\nEnabled: no\nURIs: ${MIRROR}\nSuites: bookworm\nComponents: main\n` },
        { name: 'y.list.disabled', text: `deb ${MIRROR} bookworm main\n` },
      ],
      want: [],
    },
    {
      name: 'the same mirror named twice is kept once',
      files: [
        { name: 'a.list', text: `deb ${MIRROR} bookworm main\n` },
        { name: 'b.list', text: `deb ${MIRROR} stable main\n` },
      ],
      want: [{ uri: MIRROR, signedBy: null }],
    },
  ];
  for (const row of rows) {
    void it(row.name, () => assert.deepEqual(parseDebianMirrors(row.files), row.want));
  }
});

void describe('parsePackageList', () => {
  void it('drops comments and blanks', () => {
    assert.deepEqual(parsePackageList('# head\nnginx\n\n  lua-cjson  # json\n'), ['nginx', 'lua-cjson']);
  });
  void it('the shipped list names the runtime the design pins', () => {
    const list = parsePackageList(readFileSync(new URL('./dataplane-packages.txt', import.meta.url), 'utf8'));
    for (const pkg of ['nginx', 'libnginx-mod-http-lua', 'libnginx-mod-http-ndk', 'lua-resty-core', 'lua-cjson', 'libluajit-5.1-2']) {
      assert.ok(list.includes(pkg), pkg);
    }
  });
});
