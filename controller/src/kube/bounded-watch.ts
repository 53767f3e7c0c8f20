// A client-node Watch that never waits forever and never leaves an informer
// holding a dead connection.
//
// client-node's ListWatch hands every watch to a Watch object. This subclass
// adds what the stock one lacks:
// - timeoutSeconds (randomised, like client-go): the API server ends each watch
//   cleanly after a few minutes, and ListWatch resumes from its resourceVersion;
// - a client-side idle timer: a half-open TCP connection (peer gone without a
//   FIN) delivers nothing forever; after timeoutSeconds + grace with no data the
//   watch is ended, so ListWatch reconnects instead of serving a stale cache;
// - an ERROR event ends the watch at once (410 → ListWatch relists; any other
//   code → reported as an error so the informer backs off and restarts), even
//   when the server keeps the stream open after it;
// - events are decoded into typed, frozen objects (the same shape a list gives);
// - failures while setting up the request are reported through `done`, never
//   thrown (a throw would become an unhandled rejection inside ListWatch).

import { Watch } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';

type WatchCallback = (phase: string, apiObj: unknown, watchObj?: unknown) => void;
type DoneCallback = (err: unknown) => void;
type QueryParams = Record<string, string | number | boolean | undefined>;

/** How long watches last. */
export interface WatchTiming {
  /** Lower bound of the server-side watch timeout, in seconds (random in [min, 2×min)). */
  readonly minTimeoutSeconds: number;
  /** Extra silence tolerated beyond the server timeout before the client gives up, in ms. */
  readonly idleGraceMs: number;
}

/** client-go uses 5–10 minutes; the grace covers a slow server close. */
export const DEFAULT_WATCH_TIMING: WatchTiming = Object.freeze({ minTimeoutSeconds: 300, idleGraceMs: 30_000 });

/** A watch-stream ERROR event (a metav1.Status), as an Error with its HTTP-like code. */
export class WatchStatusError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(`watch ERROR event ${code}: ${message}`);
    this.name = 'WatchStatusError';
    this.code = code;
  }
}

/** Reads `code` and `message` from a Status object without trusting its shape. */
function statusOf(obj: unknown): { code: number; message: string } {
  const status = (obj ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof status.code === 'number' ? status.code : 500;
  const message = typeof status.message === 'string' ? status.message : 'unknown error';
  return { code, message };
}

/** What a BoundedWatch needs besides the KubeConfig. */
export interface BoundedWatchOptions {
  /** Turns a raw event object into the typed, frozen object handed to the informer. */
  readonly decode: (raw: unknown) => unknown;
  readonly timing?: WatchTiming;
  /** Called when a watch request starts (ListWatch starts one only after applying a list). */
  readonly onWatchStart?: () => void;
  /** Called when the API server accepted a watch (200 and headers): it is reachable. */
  readonly onConnected?: () => void;
}

export class BoundedWatch extends Watch {
  private readonly options: BoundedWatchOptions;
  private readonly timing: WatchTiming;
  /** End functions of the watches in flight, so close() can end them all. */
  private readonly active = new Set<(err: unknown) => void>();
  private closed = false;

  constructor(config: KubeConfig, options: BoundedWatchOptions) {
    super(config);
    this.options = options;
    this.timing = options.timing ?? DEFAULT_WATCH_TIMING;
  }

  override async watch(
    path: string,
    queryParams: QueryParams,
    callback: WatchCallback,
    done: DoneCallback,
  ): Promise<AbortController> {
    if (this.closed) {
      done(new Error('watch closed'));
      return new AbortController();
    }
    const timeoutSeconds = Math.floor(this.timing.minTimeoutSeconds * (1 + Math.random()));
    const params: QueryParams = { ...queryParams, timeoutSeconds, allowWatchBookmarks: true };
    let finished = false;
    let request: AbortController | undefined;
    let idleTimer: NodeJS.Timeout | undefined;

    // Reports the end exactly once, then closes the connection; the Watch's own
    // done (fired by that close) reaches this guard and is dropped.
    const finish = (err: unknown): void => {
      if (finished) return;
      finished = true;
      this.active.delete(finish);
      clearTimeout(idleTimer);
      request?.abort();
      done(err);
    };
    const armIdleTimer = (): void => {
      clearTimeout(idleTimer);
      // A clean end (null): ListWatch resumes from its last resourceVersion.
      idleTimer = setTimeout(() => finish(null), timeoutSeconds * 1000 + this.timing.idleGraceMs);
    };

    const onEvent: WatchCallback = (phase, apiObj, watchObj) => {
      if (finished) return;
      armIdleTimer();
      if (phase === 'ERROR') {
        const { code, message } = statusOf(apiObj);
        callback(phase, apiObj, watchObj); // lets ListWatch forget its resourceVersion on 410
        finish(code === 410 ? null : new WatchStatusError(code, message));
        return;
      }
      let decoded: unknown;
      try {
        decoded = this.options.decode(apiObj);
      } catch (err) {
        finish(err);
        return;
      }
      callback(phase, decoded, watchObj);
    };

    this.options.onWatchStart?.();
    this.active.add(finish);
    armIdleTimer();
    try {
      request = await super.watch(path, params, onEvent, finish);
    } catch (err) {
      finish(err);
      return new AbortController();
    }
    // Ended while the request was in flight (close(), idle timer): abort it now.
    if (finished) request.abort();
    else this.options.onConnected?.();
    return request;
  }

  /**
   * Ends every watch, including one still waiting for response headers
   * (ListWatch.stop() cannot abort those: it gets the controller only once
   * they arrive), and refuses new ones. Clears the idle timers.
   */
  close(): void {
    this.closed = true;
    for (const finish of [...this.active]) finish(new Error('watch closed'));
  }
}
