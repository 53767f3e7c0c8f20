// Polling with a deadline, for conditions that become true "soon" (a watch
// event travelled, a pod became ready). Fails with what it waited for and the
// last error or value seen, so a timeout explains itself.
import { request, type HttpResponse, type RequestOptions } from './http.ts';

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `probe` every `intervalMs` until it returns a value other than
 * undefined (and does not throw); fails naming `what` after `timeoutMs`.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 10_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: string;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
      last = 'condition not met';
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${last}`);
    await sleep(intervalMs);
  }
}

/**
 * Waits until `probe` holds three times in a row, 150 ms apart: after a reload NGINX's master signals
 * the old workers 100 ms after forking the new ones, so for a moment both generations accept and one
 * answer from the new configuration does not mean the next request gets it.
 */
export async function waitUntilSteady(
  what: string,
  probe: () => Promise<boolean>,
  { timeoutMs = 10_000 }: { timeoutMs?: number } = {},
): Promise<void> {
  await waitFor(what, async () => {
    for (let i = 0; i < 3; i++) {
      if (!await probe()) return undefined;
      await sleep(150);
    }
    return true;
  }, { timeoutMs });
}

/** Runs `cleanups` in reverse order, all of them even when some throw; rethrows the first error. */
export async function runCleanups(cleanups: ReadonlyArray<() => Promise<unknown> | unknown>): Promise<void> {
  let first: unknown = null;
  for (const cleanup of [...cleanups].reverse()) {
    try {
      await cleanup();
    } catch (err) {
      first ??= err;
    }
  }
  if (first !== null) throw first;
}

/**
 * Repeats `request` until `accept` says yes (e.g. status 200 from the new
 * path); rejects after `timeoutMs` with the last answer seen.
 */
export async function waitForResponse(
  baseUrl: string,
  options: RequestOptions,
  accept: (res: HttpResponse) => boolean,
  timeoutMs = 10_000,
): Promise<HttpResponse> {
  const deadline = Date.now() + timeoutMs;
  let last: string;
  for (;;) {
    try {
      const res = await request(baseUrl, { timeoutMs: 2_000, ...options });
      if (accept(res)) return res;
      last = `${res.status} ${res.body.slice(0, 120)}`;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting on ${options.host ?? ''}${options.path ?? '/'}; last: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
