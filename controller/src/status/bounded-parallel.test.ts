import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { forEachBounded } from './bounded-parallel.ts';

void describe('forEachBounded', () => {
  const rows: { name: string; items: number; limit: number; peak: number }[] = [
    { name: 'never more than the limit in flight', items: 50, limit: 10, peak: 10 },
    { name: 'fewer items than the limit', items: 3, limit: 10, peak: 3 },
    { name: 'a limit of one is one at a time', items: 5, limit: 1, peak: 1 },
    { name: 'no items: nothing runs', items: 0, limit: 4, peak: 0 },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      let inFlight = 0;
      let peak = 0;
      const done: number[] = [];
      const items = Array.from({ length: row.items }, (_, i) => i);
      await forEachBounded(items, row.limit, async (item) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 1 + (item % 3)));
        inFlight -= 1;
        done.push(item);
      });
      assert.equal(peak, row.peak);
      assert.deepEqual([...done].sort((a, b) => a - b), items, 'every item, once');
    });
  }

  void it('refuses a limit below one', async () => {
    await assert.rejects(forEachBounded([1], 0, async () => undefined), RangeError);
  });
});
