// One table's keys in sorted order, so a list page is a binary search for
// where the continue token left off plus the page itself. Before, every page
// copied, filtered and sorted the whole table: listing 50,000 objects in
// pages of 500 sorted the table 100 times per kind (quadratic in the table).
//
// Writes only note what changed; the next read brings the order up to date:
// a few changes are placed one by one (binary search + splice), many (a bulk
// load) are appended and sorted once (the sort is near-linear on a sorted
// run with a short unsorted tail).

/** Below this many changes since the last read, each one is placed by binary search. */
const PLACE_ONE_BY_ONE = 64;

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export class KeyIndex {
  private keys: string[] = [];
  private readonly added: string[] = [];
  private readonly removed = new Set<string>();

  /** A key that was not in the table is now. */
  add(key: string): void {
    if (this.removed.delete(key)) return; // removed and added back before any read: still in `keys`
    this.added.push(key);
  }

  /** A key that was in the table is gone. */
  remove(key: string): void {
    const pending = this.added.indexOf(key);
    if (pending >= 0) this.added.splice(pending, 1);
    else this.removed.add(key);
  }

  /** Every key, sorted (a string's code-unit order, as the list always was). */
  sorted(): readonly string[] {
    if (this.removed.size > 0) {
      if (this.removed.size < PLACE_ONE_BY_ONE) {
        for (const key of this.removed) {
          const at = this.bound(key, false);
          if (this.keys[at] === key) this.keys.splice(at, 1);
        }
      } else {
        this.keys = this.keys.filter((key) => !this.removed.has(key));
      }
      this.removed.clear();
    }
    if (this.added.length > 0) {
      if (this.added.length < PLACE_ONE_BY_ONE) {
        for (const key of this.added) this.keys.splice(this.bound(key, false), 0, key);
      } else {
        for (const key of this.added) this.keys.push(key);
        this.keys.sort(compare);
      }
      this.added.length = 0;
    }
    return this.keys;
  }

  /** The position in sorted() of the first key greater than `key`. */
  after(key: string): number {
    this.sorted();
    return this.bound(key, true);
  }

  /** The position in sorted() of the first key not less than `key`. */
  from(key: string): number {
    this.sorted();
    return this.bound(key, false);
  }

  /** Binary search of `keys` as they stand: the first key above `key` (or, not `strictly`, not below it). */
  private bound(key: string, strictly: boolean): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid] < key || (strictly && this.keys[mid] === key)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
