// Remembers this simulator's own recent writes until the watch cache shows
// them, so a reconcile that runs before the watch event arrives does not
// write the same thing again (no write storms, no self-inflicted conflicts).

export interface ObservedState {
  readonly resourceVersion: string | undefined;
  readonly fingerprint: string;
}

export interface WriteMemo {
  /** What we last wrote for `key`; `after` null means we deleted it. */
  remember(key: string, resourceVersionBefore: string | undefined, after: ObservedState | null): void;
  /** The object's state taking our unseen writes into account; undefined = absent. */
  effective(key: string, cached: ObservedState | undefined): ObservedState | undefined;
  forget(key: string): void;
}

export function createWriteMemo(): WriteMemo {
  const memos = new Map<string, { before: string | undefined; after: ObservedState | null }>();
  return {
    remember(key, resourceVersionBefore, after): void {
      memos.set(key, { before: resourceVersionBefore, after });
    },
    effective(key, cached): ObservedState | undefined {
      const memo = memos.get(key);
      // The cache still shows the version our write replaced: trust the write.
      if (memo && cached?.resourceVersion === memo.before) return memo.after ?? undefined;
      memos.delete(key);
      return cached;
    },
    forget(key): void {
      memos.delete(key);
    },
  };
}
