// Canary Ingresses: each path of a canary attaches to the location of the main
// Ingress with the same host and path (the same match kind first), as in
// ingress-nginx. A canary adds no server or location of its own; what it adds
// is a split on the main location's route (Model.routes, applied by Lua: no
// reload) and a backend only Lua routes to. Canaries are attached oldest
// first, so the oldest canary of a main path keeps it. A canary's
// spec.defaultBackend attaches to the catch-all server's `/` (ingress-nginx
// merges it into the default server's root location only).

import { backendName, type ServiceRef } from './backend-ref.ts';
import type { BackendRegistry } from './backends.ts';
import { describeRef, makeFailure, quoteValue } from './failure.ts';
import type { LocationCandidate } from './ingress-rules.ts';
import { CATCH_ALL_HOST } from './names.ts';
import { compareText } from './order.ts';
import type { ServerTable } from './server-table.ts';
import type { CanaryConfig, CanarySplit, Failure, IngressRef, Location, RoutePolicy } from './types.ts';

/** An accepted canary Ingress, waiting for the main locations to be placed. */
export interface CanaryIngress {
  readonly ref: IngressRef;
  readonly rank: number;
  readonly canary: CanaryConfig;
  readonly candidates: readonly LocationCandidate[];
  /** Its validated spec.defaultBackend, or null. */
  readonly defaultBackend: ServiceRef | null;
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

/** What a canary attaches: a rule path, or its spec.defaultBackend (as the catch-all's `/`). */
interface CanaryPath {
  readonly host: string;
  readonly path: string;
  readonly match: Location['match'];
  readonly backend: ServiceRef;
  /** `spec.rules[i].http.paths[j]` or `spec.defaultBackend`: the prefix of its fields. */
  readonly field: string;
  /** The field a missing main or a taken path is reported on. */
  readonly pathField: string;
  /** The Service name's field after `field`. */
  readonly serviceField: string;
  readonly where: string;
}

function ruleCanaryPath({ host, location, backend, field }: LocationCandidate): CanaryPath {
  return {
    host, path: location.path, match: location.match, backend, field, pathField: `${field}.path`, serviceField: '.backend.service.name',
    where: `path ${quoteValue(location.path)} of host ${quoteValue(host)}`,
  };
}

function defaultBackendCanaryPath(backend: ServiceRef): CanaryPath {
  return {
    host: CATCH_ALL_HOST, path: '/', match: 'prefix', backend, field: 'spec.defaultBackend', pathField: 'spec.defaultBackend', serviceField: '.service.name',
    where: 'spec.defaultBackend (the catch-all server\'s /)',
  };
}

function attachPath(candidate: CanaryPath, ingress: CanaryIngress, table: ServerTable, registry: BackendRegistry, attached: Map<string, Attached>): Failure | null {
  const { host, path, match, where } = candidate;
  const main = table.locationAt(host, path, match);
  if (main === undefined || main.ingress === null || main.route.kind !== 'backend') {
    return makeFailure(ingress.ref, 'CanaryWithoutMain', candidate.pathField,
      `canary ${where} has no main Ingress serving it; this canary path is not served`);
  }
  const holder = attached.get(main.route.key);
  if (holder !== undefined) {
    return makeFailure(ingress.ref, 'Conflict', candidate.pathField,
      `${where} already has the canary ${describeRef(holder.ingress)} (older); ignored for ${describeRef(ingress.ref)}`);
  }
  const backend: ServiceRef = candidate.backend;
  const collision = registry.collision(backend);
  if (collision !== null) return makeFailure(ingress.ref, 'BackendNameConflict', `${candidate.field}${candidate.serviceField}`, collision);
  const canaryBackend = backendName(backend);
  registry.add({
    ref: backend, loadBalance: 'round_robin', hash: null, rank: ingress.rank, routed: false, ingress: ingress.ref,
    field: candidate.field, serviceField: candidate.serviceField, serviceUpstream: ingress.serviceUpstream === true,
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
    const paths = ingress.candidates.map(ruleCanaryPath);
    if (ingress.defaultBackend !== null) paths.push(defaultBackendCanaryPath(ingress.defaultBackend));
    for (const path of paths) {
      const failure = attachPath(path, ingress, table, registry, attached);
      if (failure !== null) failures.push(failure);
    }
  }
  const routes = [...attached.values()].map((entry) => entry.policy).sort((a, b) => compareText(a.key, b.key));
  return { routes, failures };
}
