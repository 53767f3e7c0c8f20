// The Deployment controller's arithmetic, as a pure function: given the
// Deployment's spec and its live pods, which pods to add and which to stop.
// Follows Kubernetes' rolling update (maxSurge rounds up, maxUnavailable
// rounds down, both 0 means 1 unavailable; unhealthy old pods go first).

export interface RolloutSpec {
  readonly replicas: number;
  readonly strategy: 'RollingUpdate' | 'Recreate';
  readonly maxSurge: number | string | undefined;
  readonly maxUnavailable: number | string | undefined;
}

/** A pod that is not terminating. */
export interface LivePod {
  readonly name: string;
  readonly templateHash: string;
  readonly ready: boolean;
  /** Creation order: larger is newer. */
  readonly sequence: number;
}

export interface RolloutPlan {
  /** New pods (current template) to start. */
  readonly create: number;
  /** Names of pods to terminate. */
  readonly terminate: readonly string[];
}

/** Thrown for a maxSurge / maxUnavailable that is neither an integer nor "N%". */
export class RolloutSpecError extends Error {
  override readonly name = 'RolloutSpecError';
}

/** An IntOrString resolved against `total` ("25%" of 10 → 3 rounding up, 2 rounding down). */
export function resolveIntOrPercent(value: number | string | undefined, fallback: string, total: number, roundUp: boolean): number {
  const raw = value ?? fallback;
  if (typeof raw === 'number') {
    if (!Number.isInteger(raw) || raw < 0) throw new RolloutSpecError(`expected a non-negative integer, got ${raw}`);
    return raw;
  }
  const match = /^(\d+)%$/.exec(raw);
  if (!match) throw new RolloutSpecError(`expected an integer or a percentage like "25%", got ${JSON.stringify(raw)}`);
  const exact = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** Not-ready pods first (losing them costs nothing), then by `newestFirst`. */
function byStopPreference(newestFirst: boolean): (a: LivePod, b: LivePod) => number {
  return (a, b) => Number(a.ready) - Number(b.ready) || (newestFirst ? b.sequence - a.sequence : a.sequence - b.sequence);
}

function scaleTo(pods: readonly LivePod[], replicas: number): RolloutPlan {
  if (pods.length <= replicas) return { create: replicas - pods.length, terminate: [] };
  const extra = [...pods].sort(byStopPreference(true)).slice(0, pods.length - replicas);
  return { create: 0, terminate: extra.map((pod) => pod.name) };
}

/**
 * What to do next for one Deployment. `oldTerminating` counts old-template pods
 * still shutting down (Recreate waits for them; rolling updates do not).
 */
export function planRollout(spec: RolloutSpec, currentHash: string, pods: readonly LivePod[], oldTerminating: number): RolloutPlan {
  const replicas = Math.max(0, spec.replicas);
  const current = pods.filter((pod) => pod.templateHash === currentHash);
  const old = pods.filter((pod) => pod.templateHash !== currentHash);
  if (spec.strategy === 'Recreate') {
    if (old.length > 0) return { create: 0, terminate: old.map((pod) => pod.name) };
    return oldTerminating > 0 ? { create: 0, terminate: [] } : scaleTo(current, replicas);
  }
  if (old.length === 0 || current.length > replicas) {
    const plan = scaleTo(current, replicas);
    if (old.length === 0) return plan;
    // Scaled down in the middle of a rollout: trim the new side too, and let old pods go below.
    return { create: 0, terminate: [...plan.terminate, ...old.filter((pod) => !pod.ready).map((pod) => pod.name)] };
  }
  const surge = resolveIntOrPercent(spec.maxSurge, '25%', replicas, true);
  let unavailable = Math.min(resolveIntOrPercent(spec.maxUnavailable, '25%', replicas, false), replicas);
  if (surge === 0 && unavailable === 0) unavailable = 1;

  const create = Math.max(0, Math.min(replicas + surge - pods.length, replicas - current.length));
  const minAvailable = replicas - unavailable;
  const newUnavailable = current.length + create - current.filter((pod) => pod.ready).length;
  const maxScaledDown = pods.length + create - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return { create, terminate: [] };

  const unhealthyOld = old.filter((pod) => !pod.ready).sort(byStopPreference(false)).slice(0, maxScaledDown);
  const available = pods.filter((pod) => pod.ready).length;
  const healthyOld = old.filter((pod) => pod.ready).sort(byStopPreference(false));
  const stopHealthy = healthyOld.slice(0, Math.max(0, available - minAvailable));
  return { create, terminate: [...unhealthyOld, ...stopHealthy].map((pod) => pod.name) };
}
