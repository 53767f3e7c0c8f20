// A coalescing work queue with one key: any number of kicks while a sync is
// waiting or running become exactly one more sync. Level-based: a sync always
// rebuilds everything, so nothing is lost by coalescing.

export interface SyncQueue {
  /** Ask for a sync; cheap, callable from any event handler. */
  kick(): void;
  /** Resolves once no sync is running or pending. */
  idle(): Promise<void>;
  /** Stop running new syncs; resolves when the current one ended. */
  stop(): Promise<void>;
}

export interface QueueOptions {
  /** Minimum time between the starts of two syncs, in ms (from --sync-rate-limit). */
  readonly minIntervalMs: number;
  /** Retry delay after a failing sync, in ms; doubles up to maxRetryMs. */
  readonly retryMs?: number;
  readonly maxRetryMs?: number;
}

/** `run` performs one sync; a throw schedules a retry with backoff. */
export function createSyncQueue(run: () => Promise<void>, options: QueueOptions, onError: (err: unknown) => void): SyncQueue {
  let pending = false;
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let lastStart = 0;
  let stopped = false;
  let retryMs = options.retryMs ?? 200;
  const maxRetryMs = options.maxRetryMs ?? 10_000;
  let idleWaiters: (() => void)[] = [];

  const settleIdle = (): void => {
    if (pending || running || timer) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  };

  const schedule = (delayMs: number): void => {
    if (stopped || timer || running) return;
    timer = setTimeout(start, Math.max(0, delayMs));
  };

  const start = (): void => {
    timer = null;
    if (stopped || !pending) return settleIdle();
    pending = false;
    lastStart = Date.now();
    running = run().then(
      () => { retryMs = options.retryMs ?? 200; },
      (err: unknown) => {
        onError(err);
        pending = true;
        const delay = retryMs;
        retryMs = Math.min(retryMs * 2, maxRetryMs);
        running = null;
        schedule(delay);
      },
    ).finally(() => {
      running = null;
      if (pending) schedule(lastStart + options.minIntervalMs - Date.now());
      settleIdle();
    });
  };

  return {
    kick(): void {
      pending = true;
      schedule(lastStart + options.minIntervalMs - Date.now());
    },
    idle(): Promise<void> {
      if (!pending && !running && !timer) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      pending = false;
      await running;
      settleIdle();
    },
  };
}
