// The image-size estimate's pieces on fixed inputs, and the estimate itself against the goal
// (needs `npm run setup`'s apt lists; downloads the ~100 .debs into
// .cache/image-size/debs on its first run).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { estimateImage, GOAL_MB, parseStanzas, simulatedInstalls, slimBytes } from './image-size.ts';

void describe('package accounting', () => {
  void it('parseStanzas reads fields, continuation lines and names', () => {
    const stanzas = parseStanzas('Package: a\nPriority: required\nInstalled-Size: 12\nDescription: x\n more\n\nPackage: b\nVersion: 1:2.0\n');
    assert.equal(stanzas.get('a')?.fields.get('installed-size'), '12');
    assert.equal(stanzas.get('a')?.fields.get('description'), 'x\n more');
    assert.equal(stanzas.get('b')?.fields.get('version'), '1:2.0');
  });
  void it('simulatedInstalls takes the Inst lines only', () => {
    assert.deepEqual(simulatedInstalls('Reading...\nInst libc6 (2.41 Debian:13) []\nConf libc6 (2.41)\nInst nginx:amd64 (1.26)\n'), ['libc6', 'nginx']);
  });
  void it('slimBytes counts regular files but the slim image\'s excluded paths', () => {
    const listing = [
      'drwxr-xr-x root/root         0 2025-01-01 00:00 ./usr/share/doc/nginx/',
      '-rw-r--r-- root/root      1000 2025-01-01 00:00 ./usr/sbin/nginx',
      '-rw-r--r-- root/root        50 2025-01-01 00:00 ./usr/share/doc/nginx/copyright',
      '-rw-r--r-- root/root       700 2025-01-01 00:00 ./usr/share/doc/nginx/changelog.Debian.gz',
      '-rw-r--r-- root/root       300 2025-01-01 00:00 ./usr/share/man/man8/nginx.8.gz',
      '-rw-r--r-- root/root       200 2025-01-01 00:00 ./usr/share/locale/de/LC_MESSAGES/x.mo',
      'lrwxrwxrwx root/root         0 2025-01-01 00:00 ./usr/lib/x -> y',
    ].join('\n');
    assert.equal(slimBytes(listing), 1050);
  });
});

void describe('the image estimate', { timeout: 600_000 }, () => {
  void it(`is below ${GOAL_MB} MB, with node's own libraries in the image`, async () => {
    const estimate = await estimateImage();
    assert.ok(estimate.totalBytes < GOAL_MB * 1e6, `estimated ${(estimate.totalBytes / 1e6).toFixed(1)} MB`);
    // The node binary copied from the Node image links libc6, libstdc++6 and libgcc-s1, and the
    // Dockerfile runs useradd (passwd): the runtime must have them.
    const image = new Set([...estimate.base, ...estimate.added]);
    for (const pkg of ['libc6', 'libstdc++6', 'libgcc-s1', 'passwd', 'nginx', 'libnginx-mod-http-lua', 'tini']) assert.ok(image.has(pkg), pkg);
  });
});
