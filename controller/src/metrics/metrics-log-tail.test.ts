// The metrics-log tail against a real file in a temp folder, with the test
// playing NGINX: appending lines (whole or cut in two), truncating or
// recreating the file, and on "reopen" creating the new file while old
// workers still flush into the renamed one. Every line must be counted
// exactly once.
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { startMetricsLogTail, type MetricsLogTail, type MetricsLogTailOptions } from './metrics-log-tail.ts';
import { REQUEST_BUCKETS, type ParsedPayload } from './request-aggregate.ts';

/** One request line as NGINX writes it (about 60 bytes). */
const LINE = '- default-web-80 shop.test default shop web /api\tGET\t200\t0.004\t0.003\t100\t300\t0.001\t0.002\n';
const lines = (n: number): string => LINE.repeat(n);

interface Harness {
  readonly path: string;
  readonly counted: () => number;
  readonly malformed: () => number;
  readonly logs: { level: number; msg: string }[];
  start(options?: Partial<MetricsLogTailOptions>): MetricsLogTail;
}

void describe('metrics log tail', () => {
  let dir: string;
  let tail: MetricsLogTail | null;
  let h: Harness;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'metrics-log-tail-'));
    tail = null;
    let requests = 0;
    let malformed = 0;
    const logs: { level: number; msg: string }[] = [];
    const metrics = {
      buckets: REQUEST_BUCKETS,
      ingest(payload: ParsedPayload): void {
        for (const a of payload.aggregates) requests += a.histograms.requestDuration.count;
        malformed += payload.rejected.malformed;
      },
      prune(): void {},
    };
    const logger = pino({ level: 'debug' }, { write: (line: string) => { logs.push(JSON.parse(line) as { level: number; msg: string }); } });
    const path = join(dir, 'metrics.log');
    h = {
      path, logs,
      counted: () => requests,
      malformed: () => malformed,
      // An hour between ticks by default: only the test's drain() calls read.
      start: (options = {}) => (tail = startMetricsLogTail({ path, metrics, logger, intervalMs: 3_600_000, reopenLogs: () => {}, ...options })),
    };
  });
  afterEach(() => {
    tail?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  void it('starts at the end: lines from before the start are not counted', async () => {
    writeFileSync(h.path, lines(3));
    const t = h.start();
    await t.drain();
    assert.equal(h.counted(), 0);
    appendFileSync(h.path, lines(2));
    await t.drain();
    assert.equal(h.counted(), 2);
  });

  void it('appends across ticks; a partial line waits for its end', async () => {
    writeFileSync(h.path, '');
    const t = h.start();
    const steps = [
      { name: 'two lines', append: lines(2), expected: 2 },
      { name: 'half a line', append: LINE.slice(0, 20), expected: 2 },
      { name: 'its other half and one more', append: LINE.slice(20) + LINE, expected: 4 },
      { name: 'nothing new', append: '', expected: 4 },
      { name: 'a line cut just before its "\\n"', append: LINE.slice(0, -1), expected: 4 },
      { name: 'the "\\n"', append: '\n', expected: 5 },
    ];
    for (const step of steps) {
      appendFileSync(h.path, step.append);
      await t.drain();
      assert.equal(h.counted(), step.expected, step.name);
    }
    assert.equal(h.malformed(), 0);
  });

  void it('a missing file is normal: one debug line, then the file is read from its start', async () => {
    const t = h.start();
    await t.drain();
    await t.drain();
    assert.deepEqual(h.logs.map((l) => [l.level, l.msg]), [[20, 'metrics log does not exist (yet)']]);
    writeFileSync(h.path, lines(2));
    await t.drain();
    assert.equal(h.counted(), 2, 'a file that appeared after the start is all new');
  });

  void it('a truncated file is read again from its start', async () => {
    writeFileSync(h.path, '');
    const t = h.start();
    appendFileSync(h.path, lines(3));
    await t.drain();
    truncateSync(h.path, 0);
    appendFileSync(h.path, lines(1));
    await t.drain();
    assert.equal(h.counted(), 4);
  });

  void it('a recreated file is read from its start; what the old one still got is counted too', async () => {
    writeFileSync(h.path, '');
    const t = h.start();
    appendFileSync(h.path, lines(2));
    await t.drain();
    appendFileSync(h.path, lines(1)); // lands in the old file, not yet read
    unlinkSync(h.path);
    writeFileSync(h.path, lines(2));
    await t.drain();
    assert.equal(h.counted(), 5);
    appendFileSync(h.path, lines(1));
    await t.drain();
    assert.equal(h.counted(), 6);
  });

  void it('rotates: late writes into the renamed file count, nothing twice, then it is removed', async () => {
    writeFileSync(h.path, '');
    const old = `${h.path}.old`;
    let reopened = 0;
    // Short ticks: the renamed file is finished after two quiet intervals.
    const t = h.start({ intervalMs: 20, rotateBytes: 5 * LINE.length, reopenLogs: () => { reopened++; writeFileSync(h.path, ''); } });
    appendFileSync(h.path, lines(6));
    await t.drain();
    assert.equal(reopened, 1, 'past rotateBytes: renamed, NGINX asked to reopen');
    assert.ok(existsSync(old));
    appendFileSync(old, lines(2)); // a worker flushing its buffer after the rename
    appendFileSync(h.path, lines(3)); // workers that reopened
    await t.drain();
    assert.equal(h.counted(), 11);
    appendFileSync(old, lines(1)); // one more late flush
    for (let i = 0; i < 100 && existsSync(old); i++) await sleep(10);
    assert.ok(!existsSync(old), 'the renamed file is removed once quiet');
    appendFileSync(h.path, lines(1));
    await t.drain();
    assert.equal(h.counted(), 13);
    assert.equal(reopened, 1, 'one rotation');
    assert.equal(h.malformed(), 0);
  });

  void it('reopen failing (no NGINX): logged, retried on a later tick, nothing lost', async () => {
    writeFileSync(h.path, '');
    const old = `${h.path}.old`;
    let attempts = 0;
    const t = h.start({
      intervalMs: 20,
      rotateBytes: 2 * LINE.length,
      reopenLogs: () => {
        attempts++;
        if (attempts === 1) throw new Error('NGINX is not running');
        writeFileSync(h.path, '');
      },
    });
    appendFileSync(h.path, lines(3));
    await t.drain();
    assert.equal(attempts, 1);
    assert.ok(h.logs.some((l) => l.level === 40 && l.msg === 'NGINX could not reopen its logs; retrying'));
    appendFileSync(old, lines(1)); // NGINX (if any) still writes into the renamed file
    for (let i = 0; i < 100 && existsSync(old); i++) await sleep(10);
    assert.ok(attempts >= 2, 'retried');
    assert.ok(!existsSync(old), 'rotation finished once the reopen worked');
    appendFileSync(h.path, lines(1));
    await t.drain();
    assert.equal(h.counted(), 5);
  });

  void it('does not rotate while the renamed file is still being read', async () => {
    writeFileSync(h.path, '');
    let reopened = 0;
    const t = h.start({ rotateBytes: LINE.length, reopenLogs: () => { reopened++; writeFileSync(h.path, ''); } });
    appendFileSync(h.path, lines(2));
    await t.drain();
    appendFileSync(h.path, lines(2));
    await t.drain(); // the new file is past rotateBytes too, but <path>.old is not finished (hour-long ticks)
    assert.equal(reopened, 1);
    assert.equal(h.counted(), 4);
  });

  void it('a drain called during a read gets the next read (shared), which sees what was written meanwhile', async () => {
    writeFileSync(h.path, '');
    let counted = 0;
    let during: Promise<void>[] = [];
    let t: MetricsLogTail | null = null;
    t = h.start({
      metrics: {
        buckets: REQUEST_BUCKETS,
        ingest: (payload: ParsedPayload) => {
          for (const a of payload.aggregates) counted += a.histograms.requestDuration.count;
          if (during.length > 0 || t === null) return;
          // The read in flight is past the end now: these lines and this drain come after it.
          appendFileSync(h.path, lines(2));
          during = [t.drain(), t.drain()];
        },
        prune: () => {},
      },
    });
    appendFileSync(h.path, lines(1));
    const first = t.drain();
    await first;
    assert.equal(during.length, 2);
    assert.equal(during[0], during[1], 'callers during one read share the next');
    assert.notEqual(during[0], first);
    await during[0];
    assert.equal(counted, 3);
  });

  void it('a failing read never rejects', async () => {
    writeFileSync(h.path, '');
    const t = h.start({ metrics: { buckets: REQUEST_BUCKETS, ingest: () => { throw new Error('boom'); }, prune: () => {} } });
    appendFileSync(h.path, lines(1));
    await t.drain();
    assert.ok(h.logs.some((l) => l.level === 40 && l.msg === 'reading the metrics log failed'));
  });

  void it('an over-long "line" is dropped up to its end and counted as malformed', async () => {
    writeFileSync(h.path, '');
    const t = h.start();
    appendFileSync(h.path, 'x'.repeat(100 * 1024));
    await t.drain();
    appendFileSync(h.path, `${'x'.repeat(10)}\n${LINE}`);
    await t.drain();
    assert.equal(h.malformed(), 1);
    assert.equal(h.counted(), 1);
  });
});
