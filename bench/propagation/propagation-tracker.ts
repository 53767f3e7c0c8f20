// Watches the Lua status of one NGINX and tells when each pending endpoint
// change is live in EVERY worker. A change is live once a status read shows
// all workers at version V, the backends read right after contain the
// change, and a second status read still says V (so the content read is
// exactly version V). The latency is taken at the first status read.
import { getBackends, getStatus } from '../../controller/src/nginx/lua-client.ts';

export interface PendingChange {
  /** Backend name as the model names it (`<namespace>-<service>-<port>`). */
  readonly backend: string;
  /** An endpoint address that exists only after the change. */
  readonly address: string;
  /** performance.now() just before the API write. */
  readonly writtenAt: number;
}

export interface SeenChange extends PendingChange {
  readonly latencyMs: number;
}

export interface PropagationTracker {
  /** Registers a change written just now. */
  expect(change: PendingChange): void;
  /**
   * Polls until every registered change is seen (and `writing()` is false, for
   * bursts written while polling) or `timeoutMs` passes.
   */
  drain(timeoutMs: number, writing?: () => boolean): Promise<{ seen: SeenChange[]; missing: PendingChange[] }>;
}

function addressesByBackend(backends: readonly { name: string; endpoints: readonly { address: string }[] }[]): Map<string, Set<string>> {
  return new Map(backends.map((b) => [b.name, new Set(b.endpoints.map((e) => e.address))]));
}

/** A tracker polling `statusUrl` every `everyMs`. */
export function createPropagationTracker(statusUrl: string, everyMs = 1): PropagationTracker {
  let pending: PendingChange[] = [];
  let checkedVersion = -1;
  const pollOnce = async (seen: SeenChange[]): Promise<void> => {
    const readAt = performance.now();
    const status = await getStatus(statusUrl);
    const workers = Object.values(status.workers);
    if (status.version === checkedVersion || workers.length === 0 || workers.some((v) => v < status.version)) return;
    const live = addressesByBackend(await getBackends(statusUrl));
    const again = await getStatus(statusUrl);
    if (again.version !== status.version) return; // a push landed in between: read again next time
    checkedVersion = status.version;
    const still: PendingChange[] = [];
    for (const change of pending) {
      if (change.writtenAt <= readAt && live.get(change.backend)?.has(change.address) === true) {
        seen.push({ ...change, latencyMs: readAt - change.writtenAt });
      } else {
        still.push(change);
      }
    }
    pending = still;
  };
  return {
    expect(change: PendingChange): void {
      pending.push(change);
    },
    async drain(timeoutMs: number, writing = (): boolean => false): Promise<{ seen: SeenChange[]; missing: PendingChange[] }> {
      const seen: SeenChange[] = [];
      const deadline = performance.now() + timeoutMs;
      while ((pending.length > 0 || writing()) && performance.now() < deadline) {
        await pollOnce(seen);
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
      const missing = pending;
      pending = [];
      return { seen, missing };
    },
  };
}
