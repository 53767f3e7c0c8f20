// A list+watch cache of one resource that survives anything: a dropped watch,
// an error, a restarted API server. Every failure ends in a fresh list after a
// backoff, and the list replaces the cache whole, so the level-based
// reconciler that reads it converges. (client-node's informer stops for good
// after a non-410 error, which is why this exists.)
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import type { KubeRest } from './kube-rest.ts';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string; labels?: Record<string, string>; annotations?: Record<string, string>; generation?: number };
}

export interface WatchCache<T extends KubeObject> {
  /** Current objects (frozen; never mutate). */
  list(): readonly T[];
  get(namespace: string, name: string): T | undefined;
  /** True once the first list has landed. */
  synced(): boolean;
  stop(): void;
}

export interface WatchCacheOptions {
  readonly kc: KubeConfig;
  readonly rest: KubeRest;
  /** Collection path, e.g. /apis/apps/v1/deployments */
  readonly path: string;
  readonly labelSelector?: string;
  /** Called after every change to the cache. */
  readonly onChange: () => void;
  readonly onError: (err: unknown) => void;
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
}

const keyOf = (obj: KubeObject): string => `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;

export function startWatchCache<T extends KubeObject>(options: WatchCacheOptions): WatchCache<T> {
  const minBackoff = options.minBackoffMs ?? 100;
  const maxBackoff = options.maxBackoffMs ?? 3_000;
  const query = options.labelSelector ? `?labelSelector=${encodeURIComponent(options.labelSelector)}` : '';
  let objects = new Map<string, T>();
  let synced = false;
  let stopped = false;
  let backoff = minBackoff;
  let abort: AbortController | null = null;
  let retryTimer: NodeJS.Timeout | null = null;

  const retry = (err: unknown): void => {
    if (stopped) return;
    // A watch the server closed cleanly (its timeout) is relisted at once; failures back off.
    if (!err) {
      retryTimer = setTimeout(() => void run(), minBackoff);
      return;
    }
    options.onError(err);
    retryTimer = setTimeout(() => void run(), backoff);
    backoff = Math.min(backoff * 2, maxBackoff);
  };

  async function run(): Promise<void> {
    retryTimer = null;
    let resourceVersion: string;
    try {
      const list = await options.rest.get<{ items?: T[]; metadata?: { resourceVersion?: string } }>(options.path + query);
      if (stopped) return;
      objects = new Map((list.items ?? []).map((item) => [keyOf(item), Object.freeze(item)]));
      resourceVersion = list.metadata?.resourceVersion ?? '';
      synced = true;
      options.onChange();
    } catch (err) {
      retry(err);
      return;
    }
    const params: Record<string, string> = { resourceVersion, allowWatchBookmarks: 'true' };
    if (options.labelSelector) params.labelSelector = options.labelSelector;
    const onEvent = (type: string, obj: T): void => {
      if (type === 'ADDED' || type === 'MODIFIED') objects.set(keyOf(obj), Object.freeze(obj));
      else if (type === 'DELETED') objects.delete(keyOf(obj));
      else return; // BOOKMARK, or ERROR (410 Gone: the watch ends next and we relist)
      backoff = minBackoff; // a working watch resets the backoff
      options.onChange();
    };
    // Every end of a watch relists: simple, and a restarted server's new history cannot be missed.
    abort = await new Watch(options.kc).watch(options.path, params, onEvent, (err: unknown) => retry(err));
    if (stopped) abort.abort();
  }

  void run();
  return {
    list: () => [...objects.values()],
    get: (namespace, name) => objects.get(`${namespace}/${name}`),
    synced: () => synced,
    stop: () => {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      abort?.abort();
    },
  };
}
