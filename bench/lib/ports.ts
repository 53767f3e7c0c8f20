// Free loopback ports and polling helpers shared by the benchmarks.
import { waitFor } from '../../e2e/harness/wait.ts';

export { freePort, freePorts } from '../../e2e/harness/network.ts';

/** Polls `probe` every `everyMs` until it returns a value other than undefined; throws `what` after `timeoutMs`. */
export function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, everyMs = 20): Promise<T> {
  return waitFor(what, probe, { timeoutMs, intervalMs: everyMs });
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
