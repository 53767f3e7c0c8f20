// Incremental routing: when only Ingresses changed since the last build, place
// again only the Ingresses the change can reach and keep the rest of the last
// routing (its Server and ResolvedBackend objects, so the diff meets them by
// identity). At 50,000 Ingresses a full routing build walks every Ingress,
// host and backend (~0.4 s on an idle core); one changed Ingress touches one
// host and one backend.
//
// Exactness: the result must equal a full build (routing-delta.test.ts checks
// it over random change sequences). Placement is oldest-wins per host +
// path, and a backend's settings come from its oldest claim, so an Ingress's
// outcome depends only on the Ingresses sharing a host or a backend name
// with it. The delta takes the closure of the changed Ingresses over shared
// hosts and backend names and replays addIngress over that closure, in the
// global oldest-first order. It gives up (null: the caller builds in full)
// when that reasoning does not hold:
// - a feature that reaches across hosts exists anywhere (server-alias,
//   from-to-www-redirect, ssl-passthrough, custom error pages), a regex path
//   was not checked for want of time, two Ingresses tie in the order, or two
//   Service ports share a backend name (RoutingRecord.blocked);
// - the closure holds an Ingress whose placement is not local to its own
//   rule hosts and backends (canary, spec.defaultBackend, client
//   certificates, a rule without host, ConfigMap-read settings), the global
//   default backend, or a backend a canary takes its affinity from;
// - the change or its closure is large (a full build is then as cheap).
// Failures keep the full build's order: the record holds them per Ingress,
// per backend and per server, between the segments no delta can change.

import type { V1Ingress } from '@kubernetes/client-node';
import { backendName } from './backend-ref.ts';
import { BackendRegistry, type ResolvedBackend } from './backends.ts';
import { placeGlobalDefaults } from './default-backends.ts';
import { isOurIngress } from './ingress-class.ts';
import type { TranslationCache } from './ingress-translation.ts';
import { CATCH_ALL_HOST } from './names.ts';
import { compareIngressAge, compareText, sortIngressesOldestFirst } from './order.ts';
import { shadowedOnRegexHosts } from './regex-hosts.ts';
import { reachOf } from './routing-reach.ts';
import { failuresOf, tlsOf, updateRecord, type RoutingRecord } from './routing-record.ts';
import { addIngress, type BuildState, type Routing } from './routing-state.ts';
import { ServerTable } from './server-table.ts';
import { PassthroughClaims } from './ssl-passthrough.ts';
import type { IngressTls } from './tls-hosts.ts';
import type { BuildOptions, Failure, Server, Snapshot } from './types.ts';

/** Past this many added + removed Ingresses, build in full. */
const MAX_CHANGED = 256;

/** True when two neighbours of the sorted list tie: their order would then follow the snapshot's. */
export function hasTies(sorted: readonly V1Ingress[]): boolean {
  for (let i = 1; i < sorted.length; i++) if (compareIngressAge(sorted[i - 1] as V1Ingress, sorted[i] as V1Ingress) === 0) return true;
  return false;
}

/** The first index of `sorted` (by `key` under compareText after the catch-all server) whose key is not below `name`. */
function lowerBound<T>(sorted: readonly T[], name: string, key: (item: T) => string): number {
  let low = sorted.length > 0 && key(sorted[0] as T) === CATCH_ALL_HOST ? 1 : 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareText(key(sorted[middle] as T), name) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * `sorted` (unique keys under compareText, the catch-all server first) without the items whose key is in
 * `names`, with `fresh` (sorted, keys within `names`) in their place: a copy and a binary search per name.
 */
function replaceSorted<T>(sorted: readonly T[], names: ReadonlySet<string>, fresh: readonly T[], key: (item: T) => string): T[] {
  const next = [...sorted];
  for (const name of names) {
    const at = lowerBound(next, name, key);
    if (at < next.length && key(next[at] as T) === name) next.splice(at, 1);
  }
  for (const item of fresh) next.splice(lowerBound(next, key(item), key), 0, item);
  return next;
}

/**
 * Our Ingresses in the snapshot, oldest first, and which were added and removed since the record;
 * null when too many changed, or an order between two of them would follow the snapshot's (a tie).
 * Only the added ones are sorted into the kept order.
 */
function changedIngresses(record: RoutingRecord, snapshot: Snapshot, options: BuildOptions): { ours: V1Ingress[]; added: V1Ingress[]; removed: V1Ingress[] } | null {
  const all = snapshot?.ingresses ?? [];
  const present = new Set(all);
  if (present.size !== all.length) return null;
  const removed = record.ours.filter((ingress) => !present.has(ingress));
  const exclude = options.exclude;
  const added = all.filter((ingress) => !record.ourSet.has(ingress) && isOurIngress(ingress, record.classes, options) && exclude?.has(ingress) !== true);
  if (added.length + removed.length > MAX_CHANGED) return null;
  const gone = new Set(removed);
  const ours = removed.length === 0 ? [...record.ours] : record.ours.filter((ingress) => !gone.has(ingress));
  for (const ingress of sortIngressesOldestFirst(added)) {
    let low = 0;
    let high = ours.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareIngressAge(ours[middle] as V1Ingress, ingress) < 0) low = middle + 1;
      else high = middle;
    }
    const next = ours[low];
    if (next !== undefined && compareIngressAge(next, ingress) === 0) return null;
    ours.splice(low, 0, ingress);
  }
  return { ours, added, removed };
}

/**
 * The routing of `snapshot` from the last one when only the Ingresses changed (the caller checks the
 * other inputs are the same objects, the Services those looked up, and the options equal), or null
 * when a full build is needed.
 * Updates `record` only when it returns a routing.
 */
export function deltaRouting(record: RoutingRecord, previous: Routing, translations: TranslationCache, snapshot: Snapshot, options: BuildOptions): Routing | null {
  if (record.blocked) return null;
  const changes = changedIngresses(record, snapshot, options);
  if (changes === null) return null;
  const { ours, added, removed } = changes;
  translations.useContext(options.annotationsPrefix, record.settings);
  const reach = reachOf(record, translations, [...removed, ...added]);
  if (reach === null) return null;
  const globalName = record.global.backend === null ? null : backendName(record.global.backend);
  if (globalName !== null) {
    // The global default's Backend is kept as it was: it must keep a generated claim (the catch-all's `/`, outside any closure).
    const root = previous.servers[0]?.locations.find((location) => location.match === 'prefix' && location.path === '/');
    if (reach.names.has(globalName) || root?.ingress !== null) return null;
  }
  // A guard the checks above already give (routing-delta-scenarios.test.ts shows the case stopped
  // by them): a canary's main location is the global default's (refused above), or an Ingress's
  // claim on the backend; that Ingress joins the closure through the backend's name, and is either
  // on a host of the canary (which then joins: not local) or a rule without host (not local).
  for (const name of reach.names) if (record.inheritSources.has(name)) return null;

  // Phase 1 over the closure, in the global order (ranks as a full build gives them).
  const state: BuildState = {
    table: new ServerTable(), registry: new BackendRegistry(), failures: [], accepted: [], tls: [], canaries: [],
    settings: record.settings, translations, services: record.services, prefix: options.annotationsPrefix, globalErrorPages: false,
    clientCerts: [], configMaps: snapshot?.configMaps ?? [], serverAliases: [], passthrough: new PassthroughClaims(record.passthroughEnabled),
  };
  const ingressFailures = new Map<V1Ingress, readonly Failure[]>();
  const ingressTls = new Map<V1Ingress, IngressTls>();
  for (const [rank, ingress] of ours.entries()) {
    if (!reach.touched.has(ingress)) continue;
    const before = state.failures.length;
    const tlsBefore = state.tls.length;
    try {
      addIngress(ingress, rank, state);
    } catch {
      return null; // the full build reports it (InternalError)
    }
    ingressFailures.set(ingress, state.failures.slice(before));
    const tls = state.tls[tlsBefore];
    if (tls !== undefined) ingressTls.set(ingress, tls);
  }
  if (state.failures.some((failure) => failure.reason === 'BackendNameConflict')) return null;
  if (placeGlobalDefaults(state.table, state.registry, record.global, record.settings).length > 0) return null;
  const backendFailures = new Map<string, readonly Failure[]>();
  const resolved = state.registry.resolve(record.services, backendFailures).backends.filter((entry) => entry.current.name !== globalName);
  const servers = state.table.toServers().filter((server) => server.hostname !== CATCH_ALL_HOST);
  const serverFailures = new Map(servers.map((server) => [server.hostname, shadowedOnRegexHosts([server], record.settings)]));

  updateRecord(record, translations, {
    ours, added, removed, ingressFailures, ingressTls, hosts: reach.hosts, names: reach.names, backendFailures, serverFailures, globalName,
  });

  const nextServers = replaceSorted(previous.servers, reach.hosts, servers, (server: Server) => server.hostname);
  const nextBackends = replaceSorted(previous.backends, reach.names, resolved, (entry: ResolvedBackend) => entry.current.name);
  return { ...previous, servers: nextServers, backends: nextBackends, tls: tlsOf(record), failures: failuresOf(record, nextBackends, nextServers) };
}
