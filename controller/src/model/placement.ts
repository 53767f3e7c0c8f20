// Putting a location into a server while keeping the two invariants the
// model promises: one location per host + match + path (the first placed,
// i.e. the oldest Ingress, keeps it) and one Service port per backend name.

import type { ServiceRef } from './backend-ref.ts';
import type { BackendRegistry } from './backends.ts';
import { describeRef, makeFailure, quoteValue } from './failure.ts';
import { holderName, type ServerTable } from './server-table.ts';
import type { AffinityConfig, BackendHash, Failure, Location, LoadBalance } from './types.ts';

/** A location that routes to a Service port, with who asked for it. */
export interface BackendPlacement {
  readonly host: string;
  readonly location: Location;
  readonly backend: ServiceRef;
  readonly loadBalance: LoadBalance;
  /** Consistent hashing (upstream-hash-by), or null. */
  readonly hash: BackendHash | null;
  /** The Ingress's affinity config (Backend.affinity), or null/absent. */
  readonly affinity?: AffinityConfig | null;
  /** service-upstream of the Ingress (absent = false). */
  readonly serviceUpstream?: boolean;
  /** Ingress position, oldest first; +Infinity for generated locations. */
  readonly rank: number;
  /** Field prefix for failures (`spec.rules[0].http.paths[1]`, `spec.defaultBackend`, a flag name). */
  readonly field: string;
  /** Suffix naming the Service within `field`, e.g. `.backend.service.name`. */
  readonly serviceField: string;
}

/** Places a backend location; returns the failure when it cannot be placed, else null. */
export function placeBackendLocation(
  table: ServerTable,
  registry: BackendRegistry,
  request: BackendPlacement,
): Failure | null {
  const { host, location } = request;
  const collision = registry.collision(request.backend);
  if (collision !== null) {
    return makeFailure(location.ingress, 'BackendNameConflict', `${request.field}${request.serviceField}`, collision);
  }
  const placement = table.place(host, location);
  if (!placement.placed) {
    const what = `${location.match} path ${quoteValue(location.path)} on host ${quoteValue(host)}`;
    const holder = placement.holder.ingress;
    const sameIngress = holder !== null && location.ingress !== null && describeRef(holder) === describeRef(location.ingress);
    const message = sameIngress
      ? `${what} appears twice in ${describeRef(holder)}; the first one is used`
      : `${what} is already served by ${holderName(placement.holder)} (older); ignored for ${location.ingress ? describeRef(location.ingress) : 'a generated location'}`;
    return makeFailure(location.ingress, 'Conflict', `${request.field}.path`, message);
  }
  registry.add({
    ref: request.backend,
    loadBalance: request.loadBalance,
    hash: request.hash,
    affinity: request.affinity ?? null,
    serviceUpstream: request.serviceUpstream === true,
    rank: request.rank,
    routed: true,
    ingress: location.ingress,
    field: request.field,
    serviceField: request.serviceField,
  });
  return null;
}
