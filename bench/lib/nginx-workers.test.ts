import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseStat, workerCensus, type ProcEntry } from './nginx-workers.ts';

const TITLE = '/x/ld-linux-x86-64.so.2 --library-path /x nginx: worker process';

function proc(pid: number, ppid: number, startTicks: number, cmdline = TITLE): ProcEntry {
  return { pid, ppid, startTicks, cmdline };
}

test('parseStat: ppid and start time, after a command that holds spaces and parentheses', () => {
  const fields = ['S', '41', ...Array.from({ length: 17 }, (_, i) => String(i)), '123456', '0'];
  assert.deepEqual(parseStat(`77 (ng (x) y) ${fields.join(' ')}`), { ppid: 41, startTicks: 123456 });
});

const CASES: readonly { name: string; procs: ProcEntry[]; want: { workers: number; draining: number; generations: number } }[] = [
  { name: 'one generation of two workers', procs: [proc(10, 1, 0, 'node'), proc(11, 10, 50, 'nginx: master'), proc(12, 11, 100), proc(13, 11, 101)],
    want: { workers: 2, draining: 0, generations: 1 } },
  { name: 'an old generation still draining beside the new one', procs: [proc(10, 1, 0, 'node'), proc(11, 10, 50, 'nginx: master'), proc(12, 11, 100), proc(13, 11, 101), proc(14, 11, 300), proc(15, 11, 301)],
    want: { workers: 4, draining: 2, generations: 2 } },
  { name: 'three generations, one worker of the oldest left', procs: [proc(10, 1, 0, 'node'), proc(11, 10, 50, 'nginx: master'), proc(12, 11, 100), proc(14, 11, 300), proc(15, 11, 301), proc(16, 11, 500), proc(17, 11, 500)],
    want: { workers: 5, draining: 3, generations: 3 } },
  { name: 'workers of another controller are not counted', procs: [proc(10, 1, 0, 'node'), proc(11, 10, 50, 'nginx: master'), proc(12, 11, 100), proc(20, 1, 0, 'node'), proc(21, 20, 60, 'nginx: master'), proc(22, 21, 400)],
    want: { workers: 1, draining: 0, generations: 1 } },
  { name: 'no workers', procs: [proc(10, 1, 0, 'node')], want: { workers: 0, draining: 0, generations: 0 } },
];

for (const c of CASES) {
  test(`workerCensus: ${c.name}`, () => {
    assert.deepEqual(workerCensus(c.procs, 10), c.want);
  });
}
