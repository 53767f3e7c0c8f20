// A token bucket: `capacity` events at once, then `refillPerSecond` on
// average. Events use one per Ingress and one for the whole controller, so a
// single broken Ingress runs out of tokens long before the API notices.

/** Monotonic-enough milliseconds; injected so tests control time. */
export type Clock = () => number;

export interface TokenBucketOptions {
  /** Tokens available at start and at most ever (the burst). */
  readonly capacity: number;
  /** Tokens added per second. */
  readonly refillPerSecond: number;
  readonly now: Clock;
}

export interface TokenBucket {
  /** Takes one token; false (nothing taken) when the bucket is empty. */
  take(): boolean;
  /** Tokens available now (fractional), for tests and logs. */
  available(): number;
}

export function createTokenBucket(options: TokenBucketOptions): TokenBucket {
  const { capacity, refillPerSecond, now } = options;
  if (!(capacity >= 1) || !(refillPerSecond > 0)) {
    throw new RangeError(`token bucket needs capacity >= 1 and refillPerSecond > 0 (got ${capacity}, ${refillPerSecond})`);
  }
  let tokens = capacity;
  let last = now();
  const refill = (): void => {
    const at = now();
    // A clock that steps back must not drain the bucket.
    const elapsed = Math.max(0, at - last);
    last = at;
    tokens = Math.min(capacity, tokens + (elapsed / 1000) * refillPerSecond);
  };
  return {
    take(): boolean {
      refill();
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
    available(): number {
      refill();
      return tokens;
    },
  };
}
