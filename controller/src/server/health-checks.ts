// What /healthz and /readyz decide. Liveness: the sync loop is not stuck,
// the NGINX master runs and Lua holds a configuration. Readiness: all of
// that, and the first full configuration is live — never ready while NGINX
// serves an empty config (a known failure of ingress-nginx and Traefik) —
// and, when the admission webhook is on, it serves with its certificate:
// the Service sends the API server's reviews to ready pods only, and a pod
// ready before its webhook listens fails those calls. Liveness ignores the
// webhook: a certificate not issued yet is no reason to restart the pod.
// Both fail once shutdown began, so load balancers stop sending traffic
// during the grace period (ingress-nginx's behaviour).

/** What the checks read; main hands in functions over the running parts. */
export interface HealthSources {
  /** PID of the NGINX master, or null when none runs. */
  nginxPid(): number | null;
  /** Lua's store version (0 = nothing pushed yet), or null when unreachable. */
  luaVersion(): Promise<number | null>;
  /** True once the first full configuration went live in NGINX. */
  firstConfigLive(): boolean;
  /** True once the admission webhook serves with a certificate; absent when the webhook is off. */
  webhookServing?(): boolean;
  readonly now?: () => number;
  /** A sync running longer than this means the loop is stuck (default 5 min). */
  readonly stuckAfterMs?: number;
}

export interface HealthChecks {
  /** null when alive, else the reason. */
  live(): Promise<string | null>;
  /** null when ready, else the reason. */
  ready(): Promise<string | null>;
  /** A sync started / finished (for the stuck-loop check). */
  syncStarted(): void;
  syncFinished(): void;
  /** From now on both checks fail. */
  beginShutdown(): void;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else — still alive.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function createHealthChecks(sources: HealthSources): HealthChecks {
  const now = sources.now ?? Date.now;
  const stuckAfterMs = sources.stuckAfterMs ?? 300_000;
  let syncSince: number | null = null;
  let shuttingDown = false;

  const live = async (): Promise<string | null> => {
    if (shuttingDown) return 'shutting down';
    if (syncSince !== null && now() - syncSince > stuckAfterMs) {
      return `sync loop stuck: one sync has been running for ${Math.round((now() - syncSince) / 1000)} s`;
    }
    const pid = sources.nginxPid();
    if (pid === null || !processAlive(pid)) return 'NGINX master is not running';
    const version = await sources.luaVersion();
    if (version === null) return 'NGINX status server does not answer';
    if (version === 0) return 'Lua has no configuration yet';
    return null;
  };

  return {
    live,
    async ready(): Promise<string | null> {
      const reason = await live();
      if (reason !== null) return reason;
      if (!sources.firstConfigLive()) return 'the first configuration is not live yet';
      if (sources.webhookServing !== undefined && !sources.webhookServing()) return 'the admission webhook is not serving yet';
      return null;
    },
    syncStarted(): void {
      syncSince ??= now();
    },
    syncFinished(): void {
      syncSince = null;
    },
    beginShutdown(): void {
      shuttingDown = true;
    },
  };
}
