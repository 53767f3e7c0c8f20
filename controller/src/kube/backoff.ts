// Exponential backoff with jitter for restarting informers.
//
// Why jitter: after an API server restart every informer of every controller
// replica fails at once; without jitter they would all come back in lockstep.
// Why a reset after a healthy period: one failure after an hour of healthy
// watching should be retried quickly, not at the ceiling left by an outage
// that happened long ago.
// Why a low ceiling: the ceiling is how late the controller may notice that
// the API is back. At 10 s a long outage left it up to 12 s behind; at 2 s
// (2.4 s with jitter) it syncs well within 5 s of the API's return, for six
// requests per replica every 2 s to an API that is down.

/** Tuning of an exponential backoff. All durations in milliseconds. */
export interface BackoffOptions {
  /** Delay before the first retry (before jitter). */
  readonly initialMs: number;
  /** Ceiling for the delay (before jitter). */
  readonly maxMs: number;
  /** After this long without a failure the next failure starts again at initialMs. */
  readonly resetAfterMs: number;
  /** Fraction of the delay that is randomised: delay × (1 − jitter … 1 + jitter). */
  readonly jitter: number;
}

/** Defaults for watching the Kubernetes API: 100 ms doubling to 2 s, reset after 30 s healthy. */
export const DEFAULT_BACKOFF: BackoffOptions = Object.freeze({
  initialMs: 100,
  maxMs: 2_000,
  resetAfterMs: 30_000,
  jitter: 0.2,
});

/** Sources of time and randomness, replaceable in tests. */
export interface BackoffClock {
  readonly now: () => number;
  readonly random: () => number;
}

/** A failure counter that turns consecutive failures into growing delays. */
export interface Backoff {
  /** Records a failure and returns how long to wait before the next attempt. */
  nextDelay(): number;
  /** Forgets past failures (e.g. after a deliberate restart). */
  reset(): void;
  /** Consecutive failures counted since the last reset. */
  readonly failures: number;
}

/** Validates options so that a bad configuration fails loudly at start, not as a busy loop. */
function checkOptions(options: BackoffOptions): void {
  const { initialMs, maxMs, resetAfterMs, jitter } = options;
  if (!(initialMs > 0) || !(maxMs >= initialMs) || !(resetAfterMs >= 0)) {
    throw new RangeError(
      `invalid backoff: initialMs=${initialMs} maxMs=${maxMs} resetAfterMs=${resetAfterMs}`,
    );
  }
  if (!(jitter >= 0 && jitter < 1)) {
    throw new RangeError(`invalid backoff: jitter=${jitter} must be in [0, 1)`);
  }
}

/** Creates a backoff; `options` fields override DEFAULT_BACKOFF. */
export function createBackoff(
  options: Partial<BackoffOptions> = {},
  clock: BackoffClock = { now: Date.now, random: Math.random },
): Backoff {
  const settings: BackoffOptions = { ...DEFAULT_BACKOFF, ...options };
  checkOptions(settings);
  let failures = 0;
  let lastFailureAt = Number.NEGATIVE_INFINITY;

  return {
    nextDelay(): number {
      const now = clock.now();
      if (now - lastFailureAt >= settings.resetAfterMs) failures = 0;
      lastFailureAt = now;
      // Cap the exponent so 2 ** failures never overflows to Infinity.
      const exponent = Math.min(failures, 30);
      failures += 1;
      const base = Math.min(settings.maxMs, settings.initialMs * 2 ** exponent);
      const spread = settings.jitter * (2 * clock.random() - 1);
      return Math.round(base * (1 + spread));
    },
    reset(): void {
      failures = 0;
      lastFailureAt = Number.NEGATIVE_INFINITY;
    },
    get failures(): number {
      return failures;
    },
  };
}
