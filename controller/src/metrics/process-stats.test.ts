// /proc parsing (table of real-format texts) and the group read of a real
// process tree: a shell with two sleeping children stands in for the NGINX
// master and its workers.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseBootTime, parseIo, parseStat, parseStatusMemory, readProcessGroup } from './process-stats.ts';

const STAT = '4242 (nginx: worker) S 4241 4241 4241 0 -1 4194624 300 0 0 0 150 25 7 3 20 0 1 0 987654 123457536 2000 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0';

void describe('parsing /proc', () => {
  const statRows = [
    { name: 'a worker', text: STAT, expected: { utime: 150, stime: 25, cutime: 7, cstime: 3, startTicks: 987654 } },
    { name: 'a command with ") " inside', text: STAT.replace('(nginx: worker)', '(a) b (c)'), expected: { utime: 150, stime: 25, cutime: 7, cstime: 3, startTicks: 987654 } },
    { name: 'no ")"', text: '4242 nginx S 1', expected: null },
    { name: 'cut short', text: '4242 (nginx) S 1 2 3', expected: null },
    { name: 'empty (process gone)', text: '', expected: null },
  ];
  for (const row of statRows) void it(`stat: ${row.name}`, () => assert.deepEqual(parseStat(row.text), row.expected));

  const statusRows = [
    { name: 'a live process', text: 'Name:\tnginx\nVmSize:\t  120560 kB\nVmRSS:\t    8000 kB\n', expected: { residentBytes: 8000 * 1024, virtualBytes: 120560 * 1024 } },
    { name: 'a zombie (no memory lines)', text: 'Name:\tnginx\nState:\tZ (zombie)\n', expected: { residentBytes: 0, virtualBytes: 0 } },
  ];
  for (const row of statusRows) void it(`status: ${row.name}`, () => assert.deepEqual(parseStatusMemory(row.text), row.expected));

  const ioRows = [
    { name: 'storage bytes, not rchar/wchar', text: 'rchar: 99\nwchar: 98\nsyscr: 1\nsyscw: 1\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n', expected: { readBytes: 4096, writeBytes: 8192 } },
    { name: 'unreadable (another user\'s process)', text: '', expected: null },
  ];
  for (const row of ioRows) void it(`io: ${row.name}`, () => assert.deepEqual(parseIo(row.text), row.expected));

  void it('btime of /proc/stat', () => {
    assert.equal(parseBootTime('cpu  1 2 3\nbtime 1764000000\nprocesses 5\n'), 1764000000);
    assert.equal(parseBootTime('cpu  1 2 3\n'), null);
  });
});

void describe('readProcessGroup on a real process tree', () => {
  void it('sums the parent and its children; null once the parent is gone', async () => {
    const startedAt = Date.now() / 1000;
    const tree = spawn('sh', ['-c', 'sleep 30 & sleep 30 & wait'], { stdio: 'ignore' });
    try {
      const pid = tree.pid ?? assert.fail('no pid');
      let group = readProcessGroup(pid);
      for (let i = 0; i < 100 && (group?.numProcs ?? 0) < 3; i++) {
        await sleep(20);
        group = readProcessGroup(pid);
      }
      assert.ok(group, 'the shell is readable');
      assert.equal(group.numProcs, 3, 'the shell and its two sleeps');
      assert.ok(group.residentBytes > 3 * 100 * 1024, `resident ${group.residentBytes}`);
      assert.ok(group.virtualBytes >= group.residentBytes);
      assert.ok(Math.abs(group.oldestStartTime - startedAt) < 5, `start ${group.oldestStartTime} vs ${startedAt}`);
      assert.ok(group.cpuSeconds >= 0 && group.readBytes >= 0 && group.writeBytes >= 0);
    } finally {
      tree.kill('SIGKILL');
    }
    await new Promise((resolve) => tree.once('exit', resolve));
    for (let i = 0; i < 100 && readProcessGroup(tree.pid ?? 0) !== null; i++) await sleep(20);
    assert.equal(readProcessGroup(tree.pid ?? 0), null);
  });

  void it('a missing /proc root reads as no master', () => {
    assert.equal(readProcessGroup(1, '/nonexistent-proc-root'), null);
  });
});
