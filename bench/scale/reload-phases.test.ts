// The reload bench's memory figures: RSS and PSS summed over the master and
// its children, read from /proc (here a stand-in reader).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nginxPssMb, nginxRssMb } from './reload-phases.ts';

void describe('NGINX memory sums', () => {
  // The test process has no children: the sums are its own lines.
  const read = (path: string): string => (path.endsWith('/status') ? 'Name:\tnginx\nVmRSS:\t    2048 kB\n' : '00-ff ---p 0 00:00 0 [rollup]\nRss:  2048 kB\nPss:  512 kB\nPss_Anon:  256 kB\n');
  void it('RSS from status, PSS from smaps_rollup (not Pss_Anon)', () => {
    assert.equal(nginxRssMb(process.pid, read), 2);
    assert.equal(nginxPssMb(process.pid, read), 0.5);
  });
  void it('a process gone between listing and reading counts nothing', () => {
    assert.equal(nginxPssMb(process.pid, () => { throw new Error('ENOENT'); }), 0);
  });
  void it('the real files of a live process: PSS at most RSS', () => {
    const rss = nginxRssMb(process.pid);
    const pss = nginxPssMb(process.pid);
    assert.ok(pss > 0 && pss <= rss, `PSS ${pss} MB, RSS ${rss} MB`);
  });
});
