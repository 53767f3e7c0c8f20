import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createBackoff, DEFAULT_BACKOFF } from './backoff.ts';
import type { BackoffClock, BackoffOptions } from './backoff.ts';

/** A clock the test moves by hand; random() returns a fixed value. */
function manualClock(randomValue: number): BackoffClock & { advance(ms: number): void } {
  let now = 1_000_000;
  return {
    now: () => now,
    random: () => randomValue,
    advance(ms: number): void {
      now += ms;
    },
  };
}

void describe('createBackoff', () => {
  const delayRows: {
    name: string;
    options: Partial<BackoffOptions>;
    random: number;
    gapMs: number;
    expected: number[];
  }[] = [
    {
      name: 'doubles from 100 ms and stops at the 2 s ceiling (no jitter)',
      options: { jitter: 0 },
      random: 0.5,
      gapMs: 10,
      expected: [100, 200, 400, 800, 1600, 2000, 2000],
    },
    {
      name: 'jitter at its lowest shortens every delay by the jitter fraction',
      options: { jitter: 0.2 },
      random: 0,
      gapMs: 10,
      expected: [80, 160, 320, 640],
    },
    {
      name: 'jitter at its highest lengthens every delay by the jitter fraction',
      options: { jitter: 0.2 },
      random: 1,
      gapMs: 10,
      expected: [120, 240, 480, 960],
    },
    {
      name: 'failures further apart than resetAfterMs always start over',
      options: { jitter: 0, resetAfterMs: 1000 },
      random: 0.5,
      gapMs: 1000,
      expected: [100, 100, 100],
    },
    {
      name: 'failures closer than resetAfterMs keep growing',
      options: { jitter: 0, resetAfterMs: 1000 },
      random: 0.5,
      gapMs: 999,
      expected: [100, 200, 400],
    },
  ];

  for (const row of delayRows) {
    void it(row.name, () => {
      const clock = manualClock(row.random);
      const backoff = createBackoff(row.options, clock);
      const delays = row.expected.map(() => {
        const delay = backoff.nextDelay();
        clock.advance(row.gapMs);
        return delay;
      });
      assert.deepEqual(delays, row.expected);
    });
  }

  void it('the defaults: through a 60 s outage no wait exceeds 2.4 s, so the API\'s return is noticed within that', () => {
    const clock = manualClock(1); // the top of the jitter
    const backoff = createBackoff({}, clock);
    const waits: number[] = [];
    for (let elapsed = 0; elapsed < 60_000;) {
      const delay = backoff.nextDelay();
      waits.push(delay);
      clock.advance(delay);
      elapsed += delay;
    }
    assert.equal(Math.max(...waits), 2400);
    assert.ok(waits.length >= 25, `${waits.length} attempts`);
  });

  void it('reset() forgets past failures', () => {
    const clock = manualClock(0.5);
    const backoff = createBackoff({ jitter: 0 }, clock);
    backoff.nextDelay();
    backoff.nextDelay();
    assert.equal(backoff.failures, 2);
    backoff.reset();
    assert.equal(backoff.failures, 0);
    assert.equal(backoff.nextDelay(), DEFAULT_BACKOFF.initialMs);
  });

  const invalidRows: { name: string; options: Partial<BackoffOptions> }[] = [
    { name: 'zero initial delay', options: { initialMs: 0 } },
    { name: 'ceiling below the initial delay', options: { initialMs: 500, maxMs: 100 } },
    { name: 'negative reset period', options: { resetAfterMs: -1 } },
    { name: 'jitter of 1 or more', options: { jitter: 1 } },
    { name: 'NaN initial delay', options: { initialMs: Number.NaN } },
  ];
  for (const row of invalidRows) {
    void it(`rejects ${row.name}`, () => {
      assert.throws(() => createBackoff(row.options), RangeError);
    });
  }
});
