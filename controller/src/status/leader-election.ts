// Lease-based leader election (client-go's algorithm, which client-node 1.4
// does not ship): every `retry` each candidate reads the Lease; the holder
// renews it, the others take it over only after it went unrenewed for its
// whole duration. "Unrenewed" is judged by when THIS process saw the record
// change, not by the renewTime written in it, so clock skew between replicas
// cannot make two leaders. Writes are optimistic (resourceVersion): of two
// candidates racing for an expired Lease, exactly one wins.

import type { Logger } from 'pino';
import type { ApiAvailability } from '../kube/api-availability.ts';
import { ApiConflictError, type LeaseRecord, type LeaseStore } from '../kube/cluster-writer.ts';
import type { Clock } from './token-bucket.ts';

export interface LeaderElectorOptions {
  readonly leases: LeaseStore;
  /** This replica's name in `holderIdentity` (the pod name). */
  readonly identity: string;
  /** --election-ttl: how long a Lease stays valid without renewal. */
  readonly ttlMs: number;
  /** A leader that could not renew for this long steps down (default 2/3 of ttl). */
  readonly renewDeadlineMs?: number;
  /** Time between attempts (default ttl/6). */
  readonly retryMs?: number;
  readonly logger: Logger;
  /** Where failures an API outage explains go (one line per outage, not one per round). */
  readonly availability?: ApiAvailability;
  /** Called on every change of leadership; must not throw. */
  readonly onChange?: (leading: boolean) => void;
  readonly now?: Clock;
}

export interface LeaderElector {
  /** Starts campaigning (idempotent). */
  start(): void;
  /**
   * Leading, and the last renewal is within the renew deadline. Checked against the clock, not
   * only the last round: a replica that was frozen (SIGSTOP, a stalled node) must not act as the
   * leader in the moment between waking up and its next round noticing it lost the Lease.
   */
  isLeader(): boolean;
  /** One acquire-or-renew round now; true when this round holds the Lease (a fresh check, unlike isLeader). */
  tryAcquireOrRenew(): Promise<boolean>;
  /** Stops campaigning and, if leading, releases the Lease so another replica takes over at once. */
  stop(): Promise<void>;
}

/** MicroTime: RFC 3339 with exactly six fractional digits (what the API server parses). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function createLeaderElector(options: LeaderElectorOptions): LeaderElector {
  const { leases, identity, ttlMs, logger } = options;
  const now = options.now ?? Date.now;
  const renewDeadlineMs = options.renewDeadlineMs ?? Math.floor((ttlMs * 2) / 3);
  const retryMs = options.retryMs ?? Math.max(100, Math.floor(ttlMs / 6));
  const durationSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
  let leading = false;
  let lastRenew = 0;
  let observed = '';
  let observedAt = 0;
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let round: Promise<boolean> = Promise.resolve(false);

  const setLeading = (value: boolean): void => {
    if (leading === value) return;
    leading = value;
    logger.info({ identity, leading }, value ? 'became the leader' : 'stopped leading');
    options.onChange?.(value);
  };

  const attempt = async (): Promise<boolean> => {
    const at = now();
    const stamp = microTime(at);
    const current = await leases.get();
    if (current === null) {
      await leases.create({ holderIdentity: identity, leaseDurationSeconds: durationSeconds, acquireTime: stamp, renewTime: stamp, leaseTransitions: 0 });
      return true;
    }
    const record = current.record;
    const seen = JSON.stringify(record);
    if (seen !== observed) {
      observed = seen;
      observedAt = at;
    }
    const heldByOther = record.holderIdentity !== '' && record.holderIdentity !== identity;
    if (heldByOther && observedAt + record.leaseDurationSeconds * 1000 > at) return false;
    const next: LeaseRecord = record.holderIdentity === identity
      ? { ...record, leaseDurationSeconds: durationSeconds, renewTime: stamp }
      : { holderIdentity: identity, leaseDurationSeconds: durationSeconds, acquireTime: stamp, renewTime: stamp, leaseTransitions: record.leaseTransitions + 1 };
    await leases.update(next, current.resourceVersion);
    return true;
  };

  const tryAcquireOrRenew = async (): Promise<boolean> => {
    let held = false;
    try {
      held = await attempt();
      options.availability?.reached();
    } catch (err) {
      if (err instanceof ApiConflictError) options.availability?.reached();
      else if (options.availability?.failed(err, 'lease') !== true) logger.warn({ err }, 'leader election: lease request failed');
    }
    if (held) {
      lastRenew = now();
      setLeading(true);
    } else if (leading && now() - lastRenew > renewDeadlineMs) {
      setLeading(false);
    }
    // A failed renewal within the deadline keeps `leading` (a blip must not flap), but is reported here.
    return held;
  };

  const loop = (): void => {
    if (!running) return;
    round = tryAcquireOrRenew();
    void round.finally(() => {
      if (running) timer = setTimeout(loop, retryMs);
    });
  };

  return {
    start(): void {
      if (running) return;
      running = true;
      loop();
    },
    isLeader: () => leading && now() - lastRenew <= renewDeadlineMs,
    tryAcquireOrRenew,
    async stop(): Promise<void> {
      running = false;
      if (timer) clearTimeout(timer);
      await round.catch(() => false);
      if (!leading) return;
      setLeading(false);
      try {
        const current = await leases.get();
        if (current?.record.holderIdentity !== identity) return;
        // client-go's release: an empty holder that expires in a second.
        await leases.update({ ...current.record, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(now()) }, current.resourceVersion);
      } catch (err) {
        logger.warn({ err }, 'leader election: could not release the lease; it expires after its ttl');
      }
    },
  };
}
