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
import type { ServiceIndex } from './cluster-index.ts';
import { placeGlobalDefaults, type GlobalDefault } from './default-backends.ts';
import { isOurIngress, type ClassIndex } from './ingress-class.ts';
import type { IngressTranslation, TranslationCache } from './ingress-translation.ts';
import { CATCH_ALL_HOST } from './names.ts';
import { compareIngressAge, compareText, sortIngressesOldestFirst } from './order.ts';
import { shadowedOnRegexHosts } from './regex-hosts.ts';
import { addIngress, type BuildState, type Routing } from './routing-state.ts';
import { ServerTable } from './server-table.ts';
import { PassthroughClaims } from './ssl-passthrough.ts';
import type { IngressTls } from './tls-hosts.ts';
import type { BuildOptions, Failure, GlobalSettings, Server, Snapshot } from './types.ts';

/** Past this many added + removed Ingresses, or this many Ingresses to place again, build in full. */
const MAX_CHANGED = 256;
const MAX_TOUCHED = 2048;

/** Hosts or backend names → the Ingresses naming them; one Ingress is kept bare (most names have one). */
type NameIndex = Map<string, V1Ingress | V1Ingress[]>;

/** What a routing build leaves for the next delta; a delta updates it in place. */
export interface RoutingRecord {
  /** A cross-host feature, a tie or a backend name conflict: no delta may start from here. */
  readonly blocked: boolean;
  readonly classes: ClassIndex;
  readonly services: ServiceIndex;
  readonly global: GlobalDefault;
  readonly settings: GlobalSettings;
  readonly passthroughEnabled: boolean;
  /** Our Ingresses, oldest first, and as a set. */
  ours: readonly V1Ingress[];
  readonly ourSet: Set<V1Ingress>;
  readonly hosts: NameIndex;
  readonly backends: NameIndex;
  /** Backends a canary's backend inherits affinity from. */
  readonly inheritSources: ReadonlySet<string>;
  /** Failures in build order: head, per Ingress (phase 1), middle (phases 2–7), per backend, afterBackends, per server (regex shadowing), tail. */
  readonly head: readonly Failure[];
  readonly byIngress: Map<V1Ingress, readonly Failure[]>;
  readonly middle: readonly Failure[];
  readonly byBackend: Map<string, readonly Failure[]>;
  readonly afterBackends: readonly Failure[];
  readonly byServer: Map<string, readonly Failure[]>;
  readonly tail: readonly Failure[];
  readonly tlsByIngress: Map<V1Ingress, IngressTls>;
}

function indexAdd(index: NameIndex, name: string, ingress: V1Ingress): void {
  const held = index.get(name);
  if (held === undefined) index.set(name, ingress);
  else if (Array.isArray(held)) held.push(ingress);
  else index.set(name, [held, ingress]);
}

function indexRemove(index: NameIndex, name: string, ingress: V1Ingress): void {
  const held = index.get(name);
  if (held === ingress) index.delete(name);
  else if (Array.isArray(held)) {
    const left = held.filter((other) => other !== ingress);
    if (left.length === 0) index.delete(name);
    else index.set(name, left.length === 1 ? left[0] as V1Ingress : left);
  }
}

function indexed(index: NameIndex, name: string): readonly V1Ingress[] {
  const held = index.get(name);
  return held === undefined ? [] : Array.isArray(held) ? held : [held];
}

/** The backend names an Ingress's own placements may claim (rules, spec.defaultBackend). */
export function claimedNames(translation: IngressTranslation): string[] {
  const names = translation.candidates.map((candidate) => backendName(candidate.backend));
  if (translation.defaultBackend !== null) names.push(backendName(translation.defaultBackend));
  return names;
}

/** True when this Ingress's outcome can change others' across hosts or backends it does not name. */
export function reachesAcross(translation: IngressTranslation): boolean {
  if (translation.failures.some((failure) => failure.reason === 'RegexNotChecked')) return true;
  const policy = translation.features?.policy;
  if (policy === undefined) return false;
  return (policy.serverAlias?.names.length ?? 0) > 0 || policy.redirect?.fromToWww === true
    || policy.sslPassthrough?.enabled === true || policy.customErrors !== undefined;
}

/** True when placing this Ingress touches nothing but its rule hosts and their backends. */
function isLocal(translation: IngressTranslation): boolean {
  if (reachesAcross(translation)) return false;
  const features = translation.features;
  // Refused: nothing placed, or the 503 paths of a protection it asked for (denied-paths.ts), local unless on the catch-all.
  if (features === null) return !translation.hosts.includes(CATCH_ALL_HOST);
  const policy = features.policy;
  return features.dynamic.canary?.enabled !== true && policy.clientCerts?.secret == null
    && (policy.fastcgi?.paramsConfigMap ?? null) === null && (policy.externalAuth?.proxySetHeadersConfigMap ?? null) === null
    && translation.defaultBackend === null && !translation.hosts.includes(CATCH_ALL_HOST);
}

/** Adds an Ingress's hosts and backend names to the record's indices. */
export function indexIngress(record: Pick<RoutingRecord, 'hosts' | 'backends'>, ingress: V1Ingress, translation: IngressTranslation): void {
  for (const host of translation.hosts) indexAdd(record.hosts, host, ingress);
  for (const name of new Set(claimedNames(translation))) indexAdd(record.backends, name, ingress);
}

function unindexIngress(record: RoutingRecord, ingress: V1Ingress, translation: IngressTranslation): void {
  for (const host of translation.hosts) indexRemove(record.hosts, host, ingress);
  for (const name of new Set(claimedNames(translation))) indexRemove(record.backends, name, ingress);
}

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

/** The closure of `changed` over shared hosts and backend names, or null when some member is not local or it grows too large. */
function closure(record: RoutingRecord, translations: TranslationCache, changed: readonly V1Ingress[]): { touched: Set<V1Ingress>; hosts: Set<string>; names: Set<string> } | null {
  const touched = new Set<V1Ingress>();
  const hosts = new Set<string>();
  const names = new Set<string>();
  const queue = [...changed];
  for (let ingress = queue.pop(); ingress !== undefined; ingress = queue.pop()) {
    if (touched.has(ingress)) continue;
    touched.add(ingress);
    if (touched.size > MAX_TOUCHED) return null;
    const translation = translations.translate(ingress);
    if (!isLocal(translation)) return null;
    for (const host of translation.hosts) {
      if (hosts.has(host)) continue;
      hosts.add(host);
      queue.push(...indexed(record.hosts, host));
    }
    for (const name of claimedNames(translation)) {
      if (names.has(name)) continue;
      names.add(name);
      queue.push(...indexed(record.backends, name));
    }
  }
  return { touched, hosts, names };
}

/**
 * The routing of `snapshot` from the last one when only the Ingresses changed (the caller checks the
 * other inputs are the same objects and the options equal), or null when a full build is needed.
 * Updates `record` only when it returns a routing.
 */
export function deltaRouting(record: RoutingRecord, previous: Routing, translations: TranslationCache, snapshot: Snapshot, options: BuildOptions): Routing | null {
  if (record.blocked) return null;
  const changes = changedIngresses(record, snapshot, options);
  if (changes === null) return null;
  const { ours, added, removed } = changes;
  translations.useContext(options.annotationsPrefix, record.settings);
  const reach = closure(record, translations, [...removed, ...added]);
  if (reach === null) return null;
  const globalName = record.global.backend === null ? null : backendName(record.global.backend);
  if (globalName !== null) {
    // The global default's Backend is kept as it was: it must keep a generated claim (the catch-all's `/`, outside any closure).
    const root = previous.servers[0]?.locations.find((location) => location.match === 'prefix' && location.path === '/');
    if (reach.names.has(globalName) || root?.ingress !== null) return null;
  }
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

  // Commit: the record follows the new snapshot.
  for (const ingress of removed) unindexIngress(record, ingress, translations.translate(ingress));
  for (const ingress of added) indexIngress(record, ingress, translations.translate(ingress));
  for (const ingress of removed) {
    record.byIngress.delete(ingress);
    record.tlsByIngress.delete(ingress);
  }
  for (const [ingress, failures] of ingressFailures) {
    if (failures.length > 0) record.byIngress.set(ingress, failures);
    else record.byIngress.delete(ingress);
    const tls = ingressTls.get(ingress);
    if (tls !== undefined) record.tlsByIngress.set(ingress, tls);
    else record.tlsByIngress.delete(ingress);
  }
  for (const name of reach.names) record.byBackend.delete(name);
  for (const [name, failures] of backendFailures) if (name !== globalName) record.byBackend.set(name, failures);
  for (const host of reach.hosts) record.byServer.delete(host);
  for (const [host, failures] of serverFailures) if (failures.length > 0) record.byServer.set(host, failures);
  record.ours = ours;
  for (const ingress of removed) record.ourSet.delete(ingress);
  for (const ingress of added) record.ourSet.add(ingress);

  const nextServers = replaceSorted(previous.servers, reach.hosts, servers, (server: Server) => server.hostname);
  const nextBackends = replaceSorted(previous.backends, reach.names, resolved, (entry: ResolvedBackend) => entry.current.name);
  return { ...previous, servers: nextServers, backends: nextBackends, tls: tlsOf(record), failures: failuresOf(record, nextBackends, nextServers) };
}

function tlsOf(record: RoutingRecord): IngressTls[] {
  const tls: IngressTls[] = [];
  if (record.tlsByIngress.size === 0) return tls;
  for (const ingress of record.ours) {
    const entry = record.tlsByIngress.get(ingress);
    if (entry !== undefined) tls.push(entry);
  }
  return tls;
}

/** The failures in a full build's order. */
export function failuresOf(record: RoutingRecord, backends: readonly ResolvedBackend[], servers: readonly Server[]): Failure[] {
  const failures = [...record.head];
  if (record.byIngress.size > 0) for (const ingress of record.ours) failures.push(...(record.byIngress.get(ingress) ?? []));
  failures.push(...record.middle);
  if (record.byBackend.size > 0) for (const entry of backends) failures.push(...(record.byBackend.get(entry.current.name) ?? []));
  failures.push(...record.afterBackends);
  if (record.byServer.size > 0) for (const server of servers) failures.push(...(record.byServer.get(server.hostname) ?? []));
  failures.push(...record.tail);
  return failures;
}
