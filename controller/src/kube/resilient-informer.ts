// One informer (a kind, or one object of it by name) that keeps itself alive.
//
// client-node's ListWatch relists on 410 Gone and resumes after a clean watch
// end, but after any other error (list failed, watch refused, connection
// reset) it reports the error and stops for good: its cache would silently go
// stale. This wrapper restarts it after a backoff. A restart resumes the watch
// from the last resourceVersion; if that is too old the server answers 410 and
// ListWatch relists, diffing the new list against its cache so objects deleted
// while disconnected are reported as deletes. The cache survives restarts.

import { ListWatch } from '@kubernetes/client-node';
import type { KubeConfig, KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';

import { ApiTimeoutError, briefError, type ApiAvailability } from './api-availability.ts';
import { createBackoff } from './backoff.ts';
import type { BackoffOptions } from './backoff.ts';
import { BoundedWatch } from './bounded-watch.ts';
import type { WatchTiming } from './bounded-watch.ts';
import { cachedObject, collectionPath, decodeWatchObject } from './kinds.ts';
import { listAllPages, type ListPage } from './paged-list.ts';
import type { KindDescriptor } from './kinds.ts';

/** Options of one resilient informer. */
export interface ResilientInformerOptions {
  readonly descriptor: KindDescriptor;
  /** Namespace to watch, or null for all (ignored for cluster-scoped kinds). */
  readonly namespace: string | null;
  /** Narrows the list and every watch, e.g. `metadata.name=x` (watch-targets.ts); undefined = every object. */
  readonly fieldSelector?: string;
  /** Called after every add, update or delete applied to the cache. */
  readonly onChange: () => void;
  readonly logger: Logger;
  /** Where failures an API outage explains are reported (logged once per outage, not per retry). */
  readonly availability: ApiAvailability;
  readonly backoff?: Partial<BackoffOptions>;
  readonly watchTiming?: WatchTiming;
  /** A list (all its pages) taking longer than this is abandoned and retried, in ms. */
  readonly listTimeoutMs?: number;
  /** Objects per list page (default LIST_PAGE_SIZE). */
  readonly listPageSize?: number;
}

/** A started informer for one kind. */
export interface ResilientInformer {
  /** Resolves once the first list has been applied to the cache. */
  readonly synced: Promise<void>;
  hasSynced(): boolean;
  /** The cached objects (a fresh array; the objects are shared and frozen). */
  list(): readonly KubernetesObject[];
  /** Stops watching for good; pending restarts are cancelled. */
  stop(): Promise<void>;
}

/** Rejects when `promise` has not settled within `ms`, so a hung request cannot stall the informer. */
async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ApiTimeoutError(`${what} timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Creates and starts an informer for one kind. */
export function startResilientInformer(kc: KubeConfig, options: ResilientInformerOptions): ResilientInformer {
  const { descriptor, namespace, fieldSelector, logger, availability } = options;
  const log = logger.child(fieldSelector === undefined ? { kind: descriptor.kind } : { kind: descriptor.kind, namespace, fieldSelector });
  const backoff = createBackoff(options.backoff);
  const listTimeoutMs = options.listTimeoutMs ?? 60_000;
  let stopped = false;
  let synced = false;
  let restartTimer: NodeJS.Timeout | undefined;
  let resolveSynced: () => void = () => {};
  let rejectSynced: (err: Error) => void = () => {};
  const syncedPromise = new Promise<void>((resolve, reject) => {
    resolveSynced = resolve;
    rejectSynced = reject;
  });
  // Nobody may be waiting when stop() rejects it; that is not an error.
  syncedPromise.catch(() => {});

  // Each page is trimmed and frozen while the API server serves the next one (and what the trim
  // drops, managedFields above all, dies young), not every page after the last.
  const listPage = (page: ListPage): Promise<KubernetesListObject<KubernetesObject>> => descriptor.list(kc, { namespace, fieldSelector }, page);
  const cache = (items: readonly KubernetesObject[]): void => {
    for (const item of items) cachedObject(descriptor, item);
  };
  const listFn = async (): Promise<KubernetesListObject<KubernetesObject>> => {
    const list = await withTimeout(listAllPages(listPage, options.listPageSize, cache), listTimeoutMs, `list ${descriptor.kind}`);
    availability.reached();
    return list;
  };
  const watch = new BoundedWatch(kc, {
    decode: (raw) => decodeWatchObject(descriptor, raw),
    timing: options.watchTiming,
    // ListWatch starts a watch only after applying a list (or to resume one),
    // so the first watch marks the initial sync.
    onWatchStart: () => {
      if (synced || stopped) return;
      synced = true;
      log.debug('initial list applied');
      resolveSynced();
    },
    onConnected: () => availability.reached(),
  });

  // The same field selector on the list and on every watch: ListWatch adds it to the watch's query.
  const informer = new ListWatch<KubernetesObject>(collectionPath(descriptor, namespace), watch, listFn, false, undefined, fieldSelector);
  const changed = (): void => {
    if (!stopped) options.onChange();
  };
  informer.on('add', changed);
  informer.on('update', changed);
  informer.on('delete', changed);

  const run = (): void => {
    restartTimer = undefined;
    if (stopped) return;
    // ListWatch reports failures through 'error'; a rejection here is the same failure.
    informer.start().catch(onError);
  };
  function onError(err: unknown): void {
    if (stopped || restartTimer !== undefined) return;
    const delayMs = backoff.nextDelay();
    if (availability.failed(err, `list/watch ${descriptor.kind}`)) {
      // The outage is logged once by `availability`; each retry is only worth a debug line.
      log.debug({ error: briefError(err), delayMs, failures: backoff.failures }, 'watch failed; restarting after backoff');
    } else {
      log.warn({ err, delayMs, failures: backoff.failures }, 'watch failed; restarting after backoff');
    }
    restartTimer = setTimeout(run, delayMs);
  }
  informer.on('error', onError);
  run();

  return {
    synced: syncedPromise,
    hasSynced: () => synced,
    list: () => informer.list(),
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      clearTimeout(restartTimer);
      if (!synced) rejectSynced(new Error(`${descriptor.kind} informer stopped before its initial sync`));
      await informer.stop();
      watch.close();
    },
  };
}
