// Canary Ingresses: each path of a canary attaches to the location of the main
// Ingress with the same host and path (the same match kind first), as in
// ingress-nginx. A canary adds no server or location of its own; what it adds
// is a split on the main location's route (Model.routes, applied by Lua: no
// reload) and a backend only Lua routes to. Canaries are attached oldest
// first, so the oldest canary of a main path keeps it.

import type { ServiceRef } from './backend-ref.ts';
import type { BackendRegistry } from './backends.ts';
import { describeRef, makeFailure, quoteValue } from './failure.ts';
import type { LocationCandidate } from './ingress-rules.ts';
import { compareText } from './order.ts';
import type { ServerTable } from './server-table.ts';
import type { CanaryConfig, CanarySplit, Failure, IngressRef, RoutePolicy } from './types.ts';

/** An accepted canary Ingress, waiting for the main locations to be placed. */
export interface CanaryIngress {
  readonly ref: IngressRef;
  readonly rank: number;
  readonly canary: CanaryConfig;
  readonly candidates: readonly LocationCandidate[];
  /** affinity-canary-behavior is sticky (the default): the canary's backend takes the main backend's affinity. */
  readonly stickyAffinity?: boolean;
  /** service-upstream of the canary Ingress: its backend's one endpoint is the ClusterIP (absent = false). */
  readonly serviceUpstream?: boolean;
}

/**
 * The split Lua gets. Lua draws from max(100, weightTotal) (ingress-nginx's rule) and takes a weight
 * only up to weightTotal (CONTRACTS.md): sending that draw range as the total, and the weight within
 * it, is the same split and always taken. A weight above the total ("always") would otherwise make
 * POST /configuration/routes refuse every route policy.
 */
function splitOf(canary: CanaryConfig, backend: string): CanarySplit {
  const { header, headerValue, headerPattern, cookie } = canary;
  const weightTotal = Math.max(100, canary.weightTotal);
  return Object.freeze({ backend, weight: Math.min(canary.weight, weightTotal), weightTotal, header, headerValue, headerPattern, cookie });
}

interface Attached {
  readonly policy: RoutePolicy;
  readonly ingress: IngressRef;
}

function attachPath(candidate: LocationCandidate, ingress: CanaryIngress, table: ServerTable, registry: BackendRegistry, attached: Map<string, Attached>): Failure | null {
  const { host, location, field } = candidate;
  const where = `path ${quoteValue(location.path)} of host ${quoteValue(host)}`;
  const main = table.locationAt(host, location.path, location.match);
  if (main === undefined || main.ingress === null || main.route.kind !== 'backend') {
    return makeFailure(ingress.ref, 'CanaryWithoutMain', `${field}.path`,
      `canary ${where} has no main Ingress serving it; this canary path is not served`);
  }
  const holder = attached.get(main.route.key);
  if (holder !== undefined) {
    return makeFailure(ingress.ref, 'Conflict', `${field}.path`,
      `${where} already has the canary ${describeRef(holder.ingress)} (older); ignored for ${describeRef(ingress.ref)}`);
  }
  const backend: ServiceRef = candidate.backend;
  const collision = registry.collision(backend);
  if (collision !== null) return makeFailure(ingress.ref, 'BackendNameConflict', `${field}.backend.service.name`, collision);
  const canaryBackend = location.route.kind === 'backend' ? location.route.backend : '';
  registry.add({
    ref: backend, loadBalance: 'round_robin', hash: null, rank: ingress.rank, routed: false, ingress: ingress.ref,
    field, serviceField: '.backend.service.name', serviceUpstream: ingress.serviceUpstream === true,
    ...(ingress.stickyAffinity === false ? {} : { affinityFrom: main.route.backend }),
  });
  attached.set(main.route.key, { ingress: ingress.ref, policy: Object.freeze({ key: main.route.key, canary: splitOf(ingress.canary, canaryBackend) }) });
  return null;
}

/** Attaches every canary (oldest first) to its main locations; returns the route policies (sorted by key) and the failures. */
export function placeCanaries(canaries: readonly CanaryIngress[], table: ServerTable, registry: BackendRegistry): { routes: RoutePolicy[]; failures: Failure[] } {
  const attached = new Map<string, Attached>();
  const failures: Failure[] = [];
  for (const ingress of canaries) {
    for (const candidate of ingress.candidates) {
      const failure = attachPath(candidate, ingress, table, registry, attached);
      if (failure !== null) failures.push(failure);
    }
  }
  const routes = [...attached.values()].map((entry) => entry.policy).sort((a, b) => compareText(a.key, b.key));
  return { routes, failures };
}
