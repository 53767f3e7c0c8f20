// terminate(): SIGTERM, SIGKILL after the grace period, and no grace timer
// left holding the bench process open once the child is gone.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { terminate } from './terminate.ts';

/** A node child running `body` that prints "ready" once its SIGTERM handling is set. */
async function child(body: string): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['-e', `${body}; console.log('ready'); setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await once(proc.stdout!, 'data');
  return proc;
}

const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

const rows: { name: string; body: string; graceMs: number; exitCode: number | null; signal: NodeJS.Signals | null }[] = [
  { name: 'stops on SIGTERM: exits by itself, no SIGKILL', body: "process.on('SIGTERM', () => process.exit(0))", graceMs: 60_000, exitCode: 0, signal: null },
  { name: 'ignores SIGTERM: killed once the grace period ends', body: "process.on('SIGTERM', () => {})", graceMs: 300, exitCode: null, signal: 'SIGKILL' },
];

for (const row of rows) {
  test(`terminate: a child that ${row.name}`, async () => {
    const proc = await child(row.body);
    const before = timers();
    await terminate(proc, row.graceMs);
    assert.equal(proc.exitCode, row.exitCode);
    assert.equal(proc.signalCode, row.signal);
    // A referenced grace timer would keep a finished run alive for the whole grace period.
    assert.ok(timers() <= before, `timers before ${before}, after ${timers()}`);
  });
}

test('terminate: a child that already exited is left alone', async () => {
  const proc = spawn(process.execPath, ['-e', 'process.exit(3)']);
  await once(proc, 'exit');
  await terminate(proc, 60_000);
  assert.equal(proc.exitCode, 3);
  assert.equal(proc.killed, false, 'no signal sent to an exited child');
});
