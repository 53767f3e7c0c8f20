// Reading NGINX's processes from /proc: the stat parser, and children and
// process groups of a real process tree (a shell with two sleeps).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { childPids, isAlive, parseProcStat, processGroupPids, waitForGroupGone, workerPidsOf } from './nginx-processes.ts';
import { eventually } from './nginx-test-support.ts';

describe('parseProcStat', () => {
  const rows = [
    { name: 'a plain command', text: '42 (nginx) S 7 42 42 0 -1', expect: { pid: 42, state: 'S', ppid: 7, pgid: 42 } },
    {
      name: 'a name with spaces and parentheses',
      text: '43 (ng) (x y)) Z 42 40 40 0 -1',
      expect: { pid: 43, state: 'Z', ppid: 42, pgid: 40 },
    },
    { name: 'garbage', text: 'not a stat line', expect: null },
    { name: 'truncated after the name', text: '44 (nginx)', expect: null },
  ];
  for (const row of rows) {
    it(row.name, () => assert.deepEqual(parseProcStat(row.text), row.expect));
  }
});

describe('process tree from /proc', () => {
  it('finds the children and the group of a detached shell, then sees them gone', async (t) => {
    const shell = spawn('sh', ['-c', 'sleep 30 & sleep 30 & wait'], { detached: true, stdio: 'ignore' });
    const leader = shell.pid ?? 0;
    t.after(() => {
      try {
        process.kill(-leader, 'SIGKILL');
      } catch {
        // already gone
      }
    });
    await eventually('two sleeps', () => childPids(leader).length === 2);
    const sleeps = childPids(leader);
    assert.deepEqual(processGroupPids(leader), [leader, ...sleeps].sort((a, b) => a - b));
    assert.deepEqual(workerPidsOf(leader), [], 'sleeps are not NGINX workers');
    assert.ok(sleeps.every(isAlive));

    process.kill(-leader, 'SIGKILL');
    assert.equal(await waitForGroupGone(leader, 5_000), true);
    assert.equal(isAlive(leader), false);
  });

  it('times out on a group that stays', async (t) => {
    const shell = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    t.after(() => shell.kill('SIGKILL'));
    assert.equal(await waitForGroupGone(shell.pid ?? 0, 100), false);
  });

  it('a pid that does not exist is not alive', () => {
    assert.equal(isAlive(2 ** 30), false);
  });
});
