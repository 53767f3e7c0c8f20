import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyIndex } from './key-index.ts';

/** A seeded generator: the same operations on every run. */
function random(seed: number): () => number {
  let s = seed;
  return () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
}

const sortedSet = (set: Set<string>): string[] => [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

void test('the index holds the table\'s keys in order, through any mix of adds, removes and reads', () => {
  const rows: { name: string; ops: number; readEvery: number; keys: number }[] = [
    { name: 'a read after every write (placed one by one)', ops: 600, readEvery: 1, keys: 80 },
    { name: 'a read now and then (a few changes at a time)', ops: 2000, readEvery: 37, keys: 300 },
    { name: 'bulk writes between reads (sorted at once)', ops: 3000, readEvery: 700, keys: 2000 },
    { name: 'remove and add back the same keys between reads', ops: 2000, readEvery: 150, keys: 20 },
  ];
  for (const row of rows) {
    const next = random(row.ops);
    const index = new KeyIndex();
    const present = new Set<string>();
    for (let op = 1; op <= row.ops; op++) {
      const key = `ns-${Math.floor(next() * 3)}/k${Math.floor(next() * row.keys)}`;
      if (present.has(key)) { present.delete(key); index.remove(key); } else { present.add(key); index.add(key); }
      if (op % row.readEvery === 0) assert.deepEqual(index.sorted(), sortedSet(present), `${row.name}: after ${op} operations`);
    }
    assert.deepEqual(index.sorted(), sortedSet(present), row.name);
  }
});

void test('after() and from() find the first key above, and not below, a key', () => {
  const index = new KeyIndex();
  for (const key of ['b/2', 'a/1', 'b/1', 'c/1', 'b-x/1']) index.add(key);
  assert.deepEqual(index.sorted(), ['a/1', 'b-x/1', 'b/1', 'b/2', 'c/1']);
  const rows: { name: string; got: number; want: number }[] = [
    { name: 'after the empty key: all', got: index.after(''), want: 0 },
    { name: 'after a present key: the next one', got: index.after('b/1'), want: 3 },
    { name: 'after an absent key: the first above it', got: index.after('b/15'), want: 3 },
    { name: 'after the last key: none', got: index.after('c/1'), want: 5 },
    { name: 'from a namespace prefix', got: index.from('b/'), want: 2 },
    { name: 'from the key after the prefix\'s run', got: index.from('b0'), want: 4 },
  ];
  for (const row of rows) assert.equal(row.got, row.want, row.name);
});
