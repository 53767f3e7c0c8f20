// Watches the Lua status of one NGINX and tells when each pending endpoint
// change is live in EVERY worker: once a read of the pending backends shows
// the change and a status read after it shows every worker at the store
// version (which is at least the version the content was read at). The
// latency is taken when that status answer arrives. Only the pending
// backends are read: reading all 5,000 per version took longer than the
// controller's pushes were apart during a burst, so no read was ever
// consistent until the burst ended (and the bench's own JSON parsing slowed
// the local API it shares a process with).
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
  const pollOnce = async (seen: SeenChange[]): Promise<void> => {
    if (pending.length === 0) return;
    const live = addressesByBackend(await getBackends(statusUrl, { names: [...new Set(pending.map((c) => c.backend))] }));
    const status = await getStatus(statusUrl);
    const readAt = performance.now();
    const workers = Object.values(status.workers);
    if (workers.length === 0 || workers.some((v) => v < status.version)) return;
    const still: PendingChange[] = [];
    for (const change of pending) {
      if (live.get(change.backend)?.has(change.address) === true) {
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
