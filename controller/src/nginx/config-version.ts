// Confirming what NGINX runs: the rendered config answers its own version on
// the status server's `/config-version`. After a reload, only new workers
// accept new connections, so each poll opens a fresh connection (no agent,
// no keep-alive): a pooled connection would keep asking an old worker.
import { get } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** GETs `url` on a fresh connection; the trimmed body on 200, null on any failure (refused, timeout, non-200). */
export function fetchConfigVersion(url: string, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const request = get(url, { agent: false, headers: { connection: 'close' }, timeout: timeoutMs }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        resolve(response.statusCode === 200 ? Buffer.concat(chunks).toString('utf8').trim() : null);
      });
      response.on('error', () => resolve(null));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(null));
  });
}

export interface WaitForVersionOptions {
  /** The status server's config-version URL, read before every poll (the port may change on restart). */
  readonly url: () => string;
  readonly version: string;
  readonly timeoutMs: number;
  /** Pause between polls (default 25 ms). */
  readonly intervalMs?: number;
  /** Ends the wait early (master exited, manager stopping). */
  readonly signal?: AbortSignal;
}

/** Outcome of a wait: confirmed, or the last version answered (null: nothing answered). */
export type WaitForVersionResult =
  | { readonly confirmed: true; readonly polls: number }
  | { readonly confirmed: false; readonly polls: number; readonly lastSeen: string | null; readonly aborted: boolean };

/** Polls until `/config-version` answers `version`, the timeout passes, or `signal` aborts. */
export async function waitForConfigVersion(options: WaitForVersionOptions): Promise<WaitForVersionResult> {
  const interval = options.intervalMs ?? 25;
  const deadline = Date.now() + options.timeoutMs;
  let polls = 0;
  let lastSeen: string | null = null;
  for (;;) {
    if (options.signal?.aborted) return { confirmed: false, polls, lastSeen, aborted: true };
    const left = deadline - Date.now();
    if (left <= 0) return { confirmed: false, polls, lastSeen, aborted: false };
    polls += 1;
    // At least 100 ms per poll: a poll squeezed into the last milliseconds would only ever time out.
    const answer = await fetchConfigVersion(options.url(), Math.max(100, Math.min(left, 2_000)));
    if (answer === options.version) return { confirmed: true, polls };
    if (answer !== null) lastSeen = answer;
    try {
      await sleep(Math.min(interval, Math.max(0, deadline - Date.now())), undefined, { signal: options.signal });
    } catch {
      // aborted: reported by the check at the top of the loop
    }
  }
}
