// Collects which Service ports the placed locations route to, resolves each
// against its Service, then (withEndpoints) gives each its endpoints. Only
// backends some location uses appear in the model. The claim with the lowest
// rank (the oldest Ingress; generated locations rank last) decides the
// balancing algorithm and service-upstream.

import type { V1Service, V1ServicePort } from '@kubernetes/client-node';
import { inheritedFrom, ownAffinity, type AffinityClaim } from './affinity-backends.ts';
import { backendName, type ServiceRef } from './backend-ref.ts';
import type { ServiceIndex, SliceIndex } from './cluster-index.ts';
import { findServicePort, type EndpointCache } from './endpoints.ts';
import { describeRef, makeFailure, makeWarning, quoteValue } from './failure.ts';
import { compareText } from './order.ts';
import { sameHash } from './backend-balancing.ts';
import { clusterEndpointOf } from './service-upstream.ts';
import type { Backend, BackendHash, Endpoint, Failure, IngressRef, LoadBalance } from './types.ts';

/** One location's use of a backend. */
export interface BackendClaim extends AffinityClaim {
  readonly ref: ServiceRef;
  readonly loadBalance: LoadBalance;
  /** Consistent hashing (upstream-hash-by) the claiming Ingress asks for; absent or null = none. */
  readonly hash?: BackendHash | null;
  /** service-upstream: the Service's ClusterIP is the one endpoint (absent = false). */
  readonly serviceUpstream?: boolean;
  /** Position of the claiming Ingress, oldest first; generated locations use +Infinity. */
  readonly rank: number;
  /** False for a canary split's claim: no location routes to it (Backend.routed). */
  readonly routed: boolean;
  /** The claiming Ingress, or null for the global default backend. */
  readonly ingress: IngressRef | null;
  /**
   * The field that named the Service, for failures, in two parts joined only
   * when a failure is made (e.g. `spec.rules[0].http.paths[0]` +
   * `.backend.service.name`): 10k joined strings outlived every
   * young-generation collection of a build, only to become garbage.
   */
  readonly field: string;
  readonly serviceField: string;
}

interface BackendEntry {
  readonly ref: ServiceRef;
  readonly claims: BackendClaim[];
}

/** Backends claimed by placed locations, keyed by Backend name. */
export class BackendRegistry {
  readonly #entries = new Map<string, BackendEntry>();

  /** Why `ref` cannot use its name (another Service port already has it), or null. */
  collision(ref: ServiceRef): string | null {
    const existing = this.#entries.get(backendName(ref))?.ref;
    if (!existing || (existing.namespace === ref.namespace && existing.service === ref.service && existing.port === ref.port)) {
      return null;
    }
    return `backend name ${quoteValue(backendName(ref))} is already used by Service ${existing.namespace}/${existing.service} port ${existing.port}`;
  }

  /** Records a claim; call only after collision() returned null and the location was placed. */
  add(claim: BackendClaim): void {
    const name = backendName(claim.ref);
    const entry = this.#entries.get(name);
    // Most backends have one claim: `[claim]` allocates one slot where push() onto [] reserves 17.
    if (entry) entry.claims.push(claim);
    else this.#entries.set(name, { ref: claim.ref, claims: [claim] });
  }

  /**
   * Resolves every claimed backend against its Service, sorted by name; endpoints come after (withEndpoints).
   * `byName`, when given, receives each backend's failures (the returned list is their concatenation in name order).
   */
  resolve(services: ServiceIndex, byName?: Map<string, readonly Failure[]>): { backends: ResolvedBackend[]; failures: Failure[] } {
    const backends: ResolvedBackend[] = [];
    const failures: Failure[] = [];
    const names = [...this.#entries.keys()].sort(compareText);
    for (const name of names) {
      const entry = this.#entries.get(name);
      if (!entry) continue;
      const first = failures.length;
      const winner = oldestClaim(entry.claims);
      const service = services.service(entry.ref.namespace, entry.ref.service);
      const lookup = lookupServicePort(entry.ref, service);
      if (lookup.problem) failures.push(...claimFailures(entry, lookup.problem));
      if (winner !== undefined) failures.push(...hashConflicts(name, entry.claims, winner));
      let fixedEndpoints: readonly Endpoint[] | null = null;
      if (winner?.serviceUpstream === true && service !== undefined && lookup.servicePort !== null) {
        const cluster = clusterEndpointOf(service, lookup.servicePort);
        if (cluster.ok) fixedEndpoints = cluster.endpoints;
        else failures.push(...claimFailures(entry, cluster, (claim) => claim.serviceUpstream === true, true));
      }
      const backend: Backend = {
        name,
        namespace: entry.ref.namespace,
        service: entry.ref.service,
        port: entry.ref.port,
        endpoints: [],
        loadBalance: winner?.loadBalance ?? 'round_robin',
        hash: winner?.hash ?? null,
        affinity: ownAffinity(entry.claims),
        routed: entry.claims.some((claim) => claim.routed),
      };
      backends.push({ current: backend, servicePort: lookup.servicePort, fixedEndpoints });
      if (byName !== undefined && failures.length > first) byName.set(name, failures.slice(first));
    }
    this.#inheritAffinity(backends);
    return { backends, failures };
  }

  /** The backends some canary's backend may take its affinity from (inheritedFrom). */
  inheritSources(): Set<string> {
    const sources = new Set<string>();
    for (const entry of this.#entries.values()) {
      for (const claim of entry.claims) if (claim.affinityFrom !== undefined) sources.add(claim.affinityFrom);
    }
    return sources;
  }

  /** A canary's backend without affinity of its own takes its main backend's (affinity-backends.ts). */
  #inheritAffinity(backends: readonly ResolvedBackend[]): void {
    const byName = new Map(backends.map((entry) => [entry.current.name, entry.current]));
    for (const entry of backends) {
      if (entry.current.affinity !== null) continue;
      const from = inheritedFrom(this.#entries.get(entry.current.name)?.claims ?? []);
      const affinity = from === null ? null : byName.get(from)?.affinity ?? null;
      if (affinity !== null) entry.current = { ...entry.current, affinity };
    }
  }
}

/**
 * A claimed backend resolved against its Service. Kept by a builder between
 * builds (build.ts), so that a build where only EndpointSlices changed
 * re-reads only the endpoints, and hands on the same Backend object for
 * every Service whose endpoints did not move.
 */
export interface ResolvedBackend {
  /** The Backend as the last withEndpoints() gave it (endpoints empty before the first). */
  current: Backend;
  /** The Service port whose slices hold the endpoints; null when there is none (a failure said why: no endpoints, 503). */
  readonly servicePort: V1ServicePort | null;
  /** service-upstream: the endpoints whatever the slices say (the ClusterIP's), else null/absent. */
  readonly fixedEndpoints?: readonly Endpoint[] | null;
}

/**
 * The Backends with their endpoints from `slices`; a Backend whose endpoints array did not change is the same object as last time.
 * `done`: entries already given their endpoints from these same slices (the caller keeps it while the slices are the same
 * objects); they are handed on without a look-up, and the others are added to it.
 */
export function withEndpoints(resolved: readonly ResolvedBackend[], slices: SliceIndex, cache: EndpointCache, done?: WeakSet<ResolvedBackend>): Backend[] {
  return resolved.map((entry) => {
    const { current, servicePort, fixedEndpoints } = entry;
    if (servicePort === null) return current;
    if (done !== undefined) {
      if (done.has(entry)) return current;
      done.add(entry);
    }
    const endpoints = fixedEndpoints ?? cache.collect(servicePort, slices.slicesFor(current.namespace, current.service));
    if (endpoints !== current.endpoints) entry.current = { ...current, endpoints };
    return entry.current;
  });
}

/** The first claim of the lowest rank: what `[...claims].sort(byRank)[0]` gives, without a copy per backend. */
function oldestClaim(claims: readonly BackendClaim[]): BackendClaim | undefined {
  let oldest = claims[0];
  for (const claim of claims) if (oldest !== undefined && byRank(claim, oldest) < 0) oldest = claim;
  return oldest;
}

/** Oldest claim first; +Infinity (generated) last. Stable for equal ranks. */
function byRank(a: BackendClaim, b: BackendClaim): number {
  if (a.rank === b.rank) return 0;
  return a.rank < b.rank ? -1 : 1;
}

interface Problem {
  readonly reason: string;
  readonly message: string;
}

function lookupServicePort(ref: ServiceRef, service: V1Service | undefined): { servicePort: V1ServicePort | null; problem: Problem | null } {
  const serviceKey = `${ref.namespace}/${ref.service}`;
  if (!service) {
    return { servicePort: null, problem: { reason: 'ServiceNotFound', message: `Service ${serviceKey} not found; requests get 503` } };
  }
  if (service.spec?.type === 'ExternalName') {
    return {
      servicePort: null,
      problem: { reason: 'UnsupportedServiceType', message: `Service ${serviceKey} is of type ExternalName, which is not supported yet; requests get 503` },
    };
  }
  const servicePort = findServicePort(service, ref.port);
  if (!servicePort) {
    return {
      servicePort: null,
      problem: { reason: 'ServicePortNotFound', message: `Service ${serviceKey} has no port ${quoteValue(ref.port)}; requests get 503` },
    };
  }
  // Zero ready endpoints is normal (scale to 0, rollout): no failure.
  return { servicePort, problem: null };
}

/**
 * A warning per Ingress that asks for another upstream-hash-by on the backend than the oldest
 * claim's: as in ingress-nginx, the Ingress that made the upstream first decides for every path.
 */
function hashConflicts(name: string, claims: readonly BackendClaim[], winner: BackendClaim): Failure[] {
  const warned = new Set<string>();
  const failures: Failure[] = [];
  for (const claim of claims) {
    const hash = claim.hash ?? null;
    if (hash === null || claim.ingress === null || sameHash(hash, winner.hash ?? null)) continue;
    const who = describeRef(claim.ingress);
    if (warned.has(who)) continue;
    warned.add(who);
    const decided = winner.ingress === null ? 'a generated location' : `the older Ingress ${describeRef(winner.ingress)}`;
    failures.push(makeWarning(claim.ingress, 'UpstreamHashConflict', `${claim.field}${claim.serviceField}`,
      `backend ${quoteValue(name)} balances as ${decided} says (upstream-hash-by ${winner.hash ? quoteValue(winner.hash.by) : 'none'}); this Ingress's upstream-hash-by is not used`));
  }
  return failures;
}

/** One failure (or warning) per claiming Ingress (not per path) that `concerns`, each naming the first field that referenced it. */
function claimFailures(entry: BackendEntry, problem: Problem, concerns: (claim: BackendClaim) => boolean = () => true, warning = false): Failure[] {
  const seen = new Set<string>();
  const failures: Failure[] = [];
  const make = warning ? makeWarning : makeFailure;
  for (const claim of [...entry.claims].sort(byRank)) {
    const who = claim.ingress ? describeRef(claim.ingress) : '';
    if (seen.has(who) || !concerns(claim)) continue;
    seen.add(who);
    failures.push(make(claim.ingress, problem.reason, `${claim.field}${claim.serviceField}`, problem.message));
  }
  return failures;
}
