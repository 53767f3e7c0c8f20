import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createTokenBucket } from './token-bucket.ts';

/** A clock the test moves by hand. */
function fakeClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => { t += ms; } };
}

void describe('token bucket', () => {
  const rows: { name: string; capacity: number; perSecond: number; steps: ({ advance: number } | { take: number })[]; granted: number }[] = [
    { name: 'a full bucket grants its burst, then nothing', capacity: 3, perSecond: 1, steps: [{ take: 5 }], granted: 3 },
    { name: 'refills at the rate', capacity: 3, perSecond: 1, steps: [{ take: 3 }, { advance: 2000 }, { take: 5 }], granted: 5 },
    { name: 'never holds more than its capacity', capacity: 2, perSecond: 10, steps: [{ advance: 60_000 }, { take: 5 }], granted: 2 },
    { name: 'fractions accumulate', capacity: 1, perSecond: 0.5, steps: [{ take: 1 }, { advance: 1000 }, { take: 1 }, { advance: 1000 }, { take: 1 }], granted: 2 },
    { name: 'a clock stepping back does not drain it', capacity: 2, perSecond: 1, steps: [{ take: 1 }, { advance: -5000 }, { take: 2 }], granted: 2 },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const clock = fakeClock();
      const bucket = createTokenBucket({ capacity: row.capacity, refillPerSecond: row.perSecond, now: clock.now });
      let granted = 0;
      for (const step of row.steps) {
        if ('advance' in step) clock.advance(step.advance);
        else for (let i = 0; i < step.take; i++) if (bucket.take()) granted += 1;
      }
      assert.equal(granted, row.granted);
    });
  }

  void it('refuses nonsense limits with a clear error', () => {
    assert.throws(() => createTokenBucket({ capacity: 0, refillPerSecond: 1, now: Date.now }), /capacity >= 1/);
    assert.throws(() => createTokenBucket({ capacity: 1, refillPerSecond: 0, now: Date.now }), /refillPerSecond > 0/);
  });
});
