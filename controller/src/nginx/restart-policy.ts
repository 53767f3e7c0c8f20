// When the NGINX master dies, it is restarted with exponential backoff: a
// master that cannot come up (a port taken, a file gone) must not be
// respawned in a tight loop, and one that comes up resets the backoff.
// After a restart the data plane has lost its shared dicts, so the caller's
// `afterRestart` (push the dynamic state again) runs once the master serves.
import type { Logger } from 'pino';

export interface RestartBackoff {
  /** Delay before the first attempt (default 100 ms); doubles per failed attempt. */
  readonly initialMs: number;
  /** Upper bound of the delay (default 10 s). */
  readonly maxMs: number;
}

export interface RestartPolicyOptions {
  readonly backoff?: Partial<RestartBackoff>;
  readonly logger: Logger;
  /** One attempt: resolves true when NGINX runs again, false when nothing was to be done; throws when it failed. */
  readonly restart: () => Promise<boolean>;
  /** Runs after each successful restart; its failure is logged, not retried here. */
  readonly afterRestart?: () => Promise<void>;
}

export interface RestartPolicy {
  /** Plans the next attempt (no-op if one is already planned or after cancel()). */
  schedule(): void;
  /** No attempt after this one. */
  cancel(): void;
  /** The delay the next attempt would wait (for logs and tests). */
  nextDelayMs(): number;
}

export function createRestartPolicy(options: RestartPolicyOptions): RestartPolicy {
  const { logger } = options;
  const initialMs = options.backoff?.initialMs ?? 100;
  const maxMs = options.backoff?.maxMs ?? 10_000;
  let failures = 0;
  let timer: NodeJS.Timeout | null = null;
  let cancelled = false;

  const nextDelayMs = (): number => Math.min(initialMs * 2 ** failures, maxMs);

  const attempt = async (): Promise<void> => {
    try {
      if (!(await options.restart())) return;
      failures = 0;
    } catch (err) {
      failures += 1;
      logger.error({ err, failures }, 'NGINX restart failed');
      schedule();
      return;
    }
    try {
      await options.afterRestart?.();
    } catch (err) {
      logger.error({ err }, 'restoring state after the NGINX restart failed');
    }
  };

  const schedule = (): void => {
    if (cancelled || timer) return;
    const delayMs = nextDelayMs();
    logger.warn({ delayMs }, 'restarting NGINX');
    timer = setTimeout(() => {
      timer = null;
      void attempt();
    }, delayMs);
  };

  return {
    schedule,
    cancel: () => {
      cancelled = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
    nextDelayMs,
  };
}
