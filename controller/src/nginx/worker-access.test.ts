import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { unreachableByOthers, workerAccessProblem } from './worker-access.ts';

/** A fake file system: directory → mode; absent = does not exist. */
const modes = (table: Record<string, number>) => (path: string): { mode: number } | undefined =>
  table[path] === undefined ? undefined : { mode: table[path] };

void describe('unreachableByOthers', () => {
  const rows: { name: string; table: Record<string, number>; want: string | null }[] = [
    { name: 'every folder 0755', table: { '/': 0o755, '/tmp': 0o1777, '/tmp/a': 0o755, '/tmp/a/nginx': 0o755 }, want: null },
    { name: 'a 0700 parent (mkdtemp) blocks', table: { '/': 0o755, '/tmp': 0o1777, '/tmp/a': 0o700, '/tmp/a/nginx': 0o755 }, want: '/tmp/a' },
    { name: 'the prefix itself 0700', table: { '/': 0o755, '/tmp': 0o1777, '/tmp/a': 0o755, '/tmp/a/nginx': 0o700 }, want: '/tmp/a/nginx' },
    { name: 'the first blocking folder is named', table: { '/': 0o755, '/tmp': 0o700, '/tmp/a': 0o700, '/tmp/a/nginx': 0o755 }, want: '/tmp' },
    { name: 'a folder still to be created does not block', table: { '/': 0o755, '/tmp': 0o1777 }, want: null },
    { name: 'o+x without o+r is enough to pass through', table: { '/': 0o755, '/tmp': 0o1777, '/tmp/a': 0o711, '/tmp/a/nginx': 0o755 }, want: null },
  ];
  for (const row of rows) void it(row.name, () => assert.equal(unreachableByOthers('/tmp/a/nginx', modes(row.table)), row.want));
});

void describe('workerAccessProblem', () => {
  void it('not root: workers run as the same user, nothing to say', () => {
    assert.equal(workerAccessProblem('/', 1000), null);
  });
  void it('root with a reachable prefix: nothing to say', () => {
    assert.equal(workerAccessProblem('/', 0), null);
  });
});

void describe('workerAccessProblem on the real file system', () => {
  void it('root with a prefix inside a mkdtemp folder (0700): names the folder and the way out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'worker-access-'));
    try {
      mkdirSync(join(dir, 'nginx'));
      const problem = workerAccessProblem(join(dir, 'nginx'), 0) ?? '';
      assert.match(problem, new RegExp(`cannot enter ${dir.replaceAll('/', '\\/')}:`));
      assert.match(problem, /non-root/);
      chmodSync(dir, 0o755);
      assert.equal(workerAccessProblem(join(dir, 'nginx'), 0), null, 'reachable once the folder is 0755');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
