// Keeps Lua's pending hosts (pending-hosts.ts, lua/resty_ingress/pending.lua)
// equal to what the sync computed: the full set is POSTed only when it
// changed. A push that fails costs the pending hosts only (they wait for
// their reload, as before): it is logged, never thrown, and sent again on the
// next sync, so it can hold back neither endpoints nor a reload.
import type { DynamicPending } from './pending-hosts.ts';
import { NO_PENDING } from './pending-hosts.ts';
import type { PendingPushTiming, SyncOptions } from './sync-types.ts';

export interface PendingPush {
  /** True when `pending` differs from what Lua holds. */
  changed(pending: DynamicPending): boolean;
  /** Sends `pending` when it changed; resolves with its timing when it was sent and every worker holds it, else null. */
  push(pending: DynamicPending): Promise<PendingPushTiming | null>;
  /** The set Lua holds, or null when unknown (a push failed, or NGINX lost its state). */
  current(): DynamicPending | null;
  /** NGINX lost its dynamic state: it holds no pending host. */
  reset(): void;
}

const UNTIMED: PendingPushTiming = Object.freeze({ postMs: Number.NaN, workersMs: Number.NaN });

export function createPendingPush(send: ((pending: DynamicPending) => Promise<PendingPushTiming | void>) | undefined, logger: SyncOptions['logger']): PendingPush {
  // What Lua holds, as JSON; null = unknown (send again). NGINX starts with none.
  let held: string | null = JSON.stringify(NO_PENDING);
  let heldSet: DynamicPending | null = NO_PENDING;
  const textOf = (pending: DynamicPending): string => JSON.stringify(pending);
  return {
    changed: (pending) => send !== undefined && textOf(pending) !== held,
    async push(pending): Promise<PendingPushTiming | null> {
      const text = textOf(pending);
      if (send === undefined || text === held) return null;
      held = null;
      heldSet = null;
      try {
        const timing = await send(pending);
        held = text;
        heldSet = pending;
        return timing ?? UNTIMED;
      } catch (err) {
        logger.warn({ err, hosts: pending.hosts.length }, 'pending hosts not pushed: new hosts wait for their reload');
        return null;
      }
    },
    current: () => heldSet,
    reset(): void {
      held = null;
      heldSet = null;
    },
  };
}
