// Free loopback ports and polling helpers shared by the benchmarks.
import { setTimeout as sleep } from 'node:timers/promises';

export { freePort } from '../../e2e/harness/network.ts';

/** Polls `probe` every `everyMs` until it returns a value other than undefined; throws `what` after `timeoutMs`. */
export async function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    await sleep(everyMs);
  }
  const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
}

/** Answers true when `url` responds with `status` (any body). */
export async function answers(url: string, status = 200, headers: Record<string, string> = {}): Promise<boolean> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status === status;
  } catch {
    return false;
  }
}
