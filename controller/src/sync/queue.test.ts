import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSyncQueue } from './queue.ts';

test('queue: a burst of kicks while one sync runs becomes exactly one more sync', async () => {
  let runs = 0;
  const q = createSyncQueue(async () => { runs++; await sleep(30); }, { minIntervalMs: 0 }, () => {});
  q.kick();
  await sleep(5);
  for (let i = 0; i < 100; i++) q.kick();
  await q.idle();
  assert.equal(runs, 2);
  await q.stop();
});

test('queue: kicks before the first run starts coalesce into one sync', async () => {
  let runs = 0;
  const q = createSyncQueue(async () => { runs++; }, { minIntervalMs: 0 }, () => {});
  for (let i = 0; i < 50; i++) q.kick();
  await q.idle();
  assert.equal(runs, 1);
  await q.stop();
});

test('queue: a failing sync is retried until it succeeds, and errors are reported', async () => {
  let runs = 0;
  const errors: unknown[] = [];
  const q = createSyncQueue(async () => {
    runs++;
    if (runs < 3) throw new Error(`boom ${runs}`);
  }, { minIntervalMs: 0, retryMs: 5 }, (err) => errors.push(err));
  q.kick();
  await q.idle();
  assert.equal(runs, 3);
  assert.deepEqual(errors.map((e) => (e as Error).message), ['boom 1', 'boom 2']);
  await q.stop();
});

test('queue: the minimum interval spaces two syncs apart', async () => {
  const starts: number[] = [];
  const q = createSyncQueue(async () => { starts.push(Date.now()); }, { minIntervalMs: 80 }, () => {});
  q.kick();
  await q.idle();
  q.kick();
  await q.idle();
  assert.equal(starts.length, 2);
  assert.ok(starts[1]! - starts[0]! >= 75, `gap ${starts[1]! - starts[0]!} ms`);
  await q.stop();
});

test('queue: after stop, kicks run nothing', async () => {
  let runs = 0;
  const q = createSyncQueue(async () => { runs++; }, { minIntervalMs: 0 }, () => {});
  await q.stop();
  q.kick();
  await sleep(20);
  assert.equal(runs, 0);
});
