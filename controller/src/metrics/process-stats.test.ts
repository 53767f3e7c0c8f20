// /proc parsing (table of real-format texts) and the group read of a real
// process tree: a shell with two sleeping children stands in for the NGINX
// master and its workers.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** A /proc of text files: `procs` as pid → [ppid, utime, stime, cutime, cstime, starttime, rss kB, io or null]. */
function fakeProc(procs: Record<number, [number, number, number, number, number, number, number, string | null]>, children: Record<number, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'fake-proc-'));
  writeFileSync(join(root, 'stat'), 'cpu  1 2 3\nbtime 1764000000\n');
  for (const [pid, [ppid, utime, stime, cutime, cstime, start, rssKb, io]] of Object.entries(procs)) {
    mkdirSync(join(root, pid, 'task', pid), { recursive: true });
    writeFileSync(join(root, pid, 'stat'), `${pid} (nginx) S ${ppid} 1 1 0 -1 0 0 0 0 0 ${utime} ${stime} ${cutime} ${cstime} 20 0 1 0 ${start} 1000 10 0`);
    writeFileSync(join(root, pid, 'status'), `Name:\tnginx\nVmSize:\t${rssKb * 10} kB\nVmRSS:\t${rssKb} kB\n`);
    if (io !== null) writeFileSync(join(root, pid, 'io'), io);
    if (children[Number(pid)] !== undefined) writeFileSync(join(root, pid, 'task', pid, 'children'), children[Number(pid)]);
  }
  return root;
}

void describe('readProcessGroup on a /proc of files', () => {
  const io = (read: number, write: number): string => `rchar: 1\nwchar: 1\nread_bytes: ${read}\nwrite_bytes: ${write}\n`;
  const procs: Parameters<typeof fakeProc>[0] = {
    // The master: its cutime/cstime hold workers that exited (reloads); they count.
    10: [1, 100, 50, 30, 20, 1000, 4000, io(4096, 8192)],
    11: [10, 200, 100, 0, 0, 5000, 9000, io(0, 4096)],
    // Another user's worker: its I/O is unreadable, the rest counts.
    12: [10, 300, 0, 7, 7, 6000, 9000, null],
    // Not NGINX's.
    13: [1, 9999, 9999, 0, 0, 10, 99999, io(1e9, 1e9)],
  };
  const expected = {
    masterPid: 10, masterStartTicks: 1000, numProcs: 3, cpuSeconds: (100 + 50 + 30 + 20 + 200 + 100 + 300) / 100,
    readBytes: 4096, writeBytes: 8192 + 4096, residentBytes: 22000 * 1024, virtualBytes: 220000 * 1024, oldestStartTime: 1764000000 + 10,
  };
  const rows: { name: string; children: Record<number, string> }[] = [
    { name: 'children from the master\'s children file', children: { 10: '11 12 ' } },
    { name: 'children found by their parent when the kernel has no children file', children: {} },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const root = fakeProc(procs, row.children);
      try {
        assert.deepEqual(readProcessGroup(10, root), expected);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
  }
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
