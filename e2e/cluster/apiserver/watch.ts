// The retained window of change events behind watch: a watch resumes from a
// resourceVersion by replaying the window, and one older than the window
// (or older than an `expire()` fault) is told 410 Gone, as etcd compaction
// makes a real API server do.
import type { JsonObject } from './patch.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  readonly type: WatchEventType;
  readonly object: JsonObject;
}

export interface ChangeEvent {
  readonly rv: number;
  /** resourceKey() of the kind */
  readonly resource: string;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: JsonObject;
  /** the object before a MODIFIED, so selector watches can see it leave */
  readonly previous?: JsonObject;
}

export interface WatchSink {
  onEvent(event: WatchEvent): void;
  /** the server ended the watch (dropWatches, stop, expiry): clients relist or resume */
  onClose(): void;
}

export interface WatchFilter {
  readonly resource: string;
  readonly matches: (obj: JsonObject) => boolean;
}

interface Subscription { readonly filter: WatchFilter; readonly sink: WatchSink }

/**
 * Translate a change into what a filtered watcher sees: an object that
 * starts matching is ADDED, one that stops matching is DELETED.
 */
export function project(change: ChangeEvent, filter: WatchFilter): WatchEvent | undefined {
  if (change.resource !== filter.resource) return undefined;
  const now = filter.matches(change.object);
  if (change.type !== 'MODIFIED') return now ? { type: change.type, object: change.object } : undefined;
  const before = change.previous !== undefined && filter.matches(change.previous);
  if (now && before) return { type: 'MODIFIED', object: change.object };
  if (now) return { type: 'ADDED', object: change.object };
  if (before) return { type: 'DELETED', object: change.object };
  return undefined;
}

export class EventLog {
  private readonly capacity: number;
  private readonly events: ChangeEvent[] = [];
  private readonly subscriptions = new Set<Subscription>();
  /** every event with rv <= compactedRv is gone; resuming from before it is 410 */
  private compactedRv = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  append(change: ChangeEvent): void {
    this.events.push(change);
    while (this.events.length > this.capacity) {
      const dropped = this.events.shift();
      if (dropped) this.compactedRv = dropped.rv;
    }
    for (const sub of [...this.subscriptions]) {
      const event = project(change, sub.filter);
      if (event) sub.sink.onEvent(event);
    }
  }

  /** Whether a watch or continue token from `rv` can still be served. */
  isResumable(rv: number): boolean {
    return rv >= this.compactedRv;
  }

  /** Events after `rv` that the filter sees, or undefined when `rv` is too old. */
  since(rv: number, filter: WatchFilter): WatchEvent[] | undefined {
    if (!this.isResumable(rv)) return undefined;
    const out: WatchEvent[] = [];
    for (const change of this.events) {
      if (change.rv <= rv) continue;
      const event = project(change, filter);
      if (event) out.push(event);
    }
    return out;
  }

  subscribe(filter: WatchFilter, sink: WatchSink): () => void {
    const sub: Subscription = { filter, sink };
    this.subscriptions.add(sub);
    return () => { this.subscriptions.delete(sub); };
  }

  /** Fault hook: forget history, so resuming from any rv before `currentRv` is 410. */
  expire(currentRv: number): void {
    this.events.length = 0;
    this.compactedRv = currentRv;
  }

  /** Fault hook: end every open watch; clients must resume or relist. */
  closeAll(): void {
    const subs = [...this.subscriptions];
    this.subscriptions.clear();
    for (const sub of subs) sub.sink.onClose();
  }

  get watcherCount(): number {
    return this.subscriptions.size;
  }
}
