// What a routing build leaves for the next incremental one (routing-delta.ts):
// our Ingresses in order, which of them name each host and backend, and the
// build's failures and TLS entries kept per Ingress, per backend and per
// server so that a delta can replace those it places again and still give
// them in a full build's order.

import type { V1Ingress } from '@kubernetes/client-node';
import { backendName } from './backend-ref.ts';
import type { ResolvedBackend } from './backends.ts';
import type { GlobalDefault } from './default-backends.ts';
import type { ClassIndex } from './ingress-class.ts';
import type { IngressTranslation, TranslationCache } from './ingress-translation.ts';
import type { LookedUpServices } from './service-lookups.ts';
import type { IngressTls } from './tls-hosts.ts';
import type { Failure, GlobalSettings, Server } from './types.ts';

/** Hosts or backend names → the Ingresses naming them; one Ingress is kept bare (most names have one). */
export type NameIndex = Map<string, V1Ingress | V1Ingress[]>;

/** What a routing build leaves for the next delta; a delta updates it in place. */
export interface RoutingRecord {
  /** A cross-host feature, a tie or a backend name conflict: no delta may start from here. */
  readonly blocked: boolean;
  readonly classes: ClassIndex;
  /** The Services, remembering which the routing looked up (routing-source.ts keeps the routing when none of those changed). */
  readonly services: LookedUpServices;
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

/** The Ingresses naming `name` in the index. */
export function indexed(index: NameIndex, name: string): readonly V1Ingress[] {
  const held = index.get(name);
  return held === undefined ? [] : Array.isArray(held) ? held : [held];
}

/** The backend names an Ingress's own placements may claim (rules, spec.defaultBackend). */
export function claimedNames(translation: IngressTranslation): string[] {
  const names = translation.candidates.map((candidate) => backendName(candidate.backend));
  if (translation.defaultBackend !== null) names.push(backendName(translation.defaultBackend));
  return names;
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

/** What a delta placed again: the record's indices, failures and TLS entries follow it. */
export interface RecordUpdate {
  /** Our Ingresses after the change, oldest first; the added and removed ones. */
  readonly ours: V1Ingress[];
  readonly added: readonly V1Ingress[];
  readonly removed: readonly V1Ingress[];
  /** The placed Ingresses' failures and TLS entries (every placed Ingress has a failures entry). */
  readonly ingressFailures: ReadonlyMap<V1Ingress, readonly Failure[]>;
  readonly ingressTls: ReadonlyMap<V1Ingress, IngressTls>;
  /** The hosts and backend names placed again, and their failures. */
  readonly hosts: ReadonlySet<string>;
  readonly names: ReadonlySet<string>;
  readonly backendFailures: ReadonlyMap<string, readonly Failure[]>;
  readonly serverFailures: ReadonlyMap<string, readonly Failure[]>;
  /** The global default's backend name: its failures stay the full build's. */
  readonly globalName: string | null;
}

/** Makes the record follow the snapshot a delta was built from. */
export function updateRecord(record: RoutingRecord, translations: TranslationCache, update: RecordUpdate): void {
  const { added, removed, globalName } = update;
  for (const ingress of removed) unindexIngress(record, ingress, translations.translate(ingress));
  for (const ingress of added) indexIngress(record, ingress, translations.translate(ingress));
  for (const ingress of removed) {
    record.byIngress.delete(ingress);
    record.tlsByIngress.delete(ingress);
  }
  for (const [ingress, failures] of update.ingressFailures) {
    if (failures.length > 0) record.byIngress.set(ingress, failures);
    else record.byIngress.delete(ingress);
    const tls = update.ingressTls.get(ingress);
    if (tls !== undefined) record.tlsByIngress.set(ingress, tls);
    else record.tlsByIngress.delete(ingress);
  }
  for (const name of update.names) record.byBackend.delete(name);
  for (const [name, failures] of update.backendFailures) if (name !== globalName) record.byBackend.set(name, failures);
  for (const host of update.hosts) record.byServer.delete(host);
  for (const [host, failures] of update.serverFailures) if (failures.length > 0) record.byServer.set(host, failures);
  record.ours = update.ours;
  for (const ingress of removed) record.ourSet.delete(ingress);
  for (const ingress of added) record.ourSet.add(ingress);
}

/** The accepted Ingresses' TLS entries in a full build's order. */
export function tlsOf(record: RoutingRecord): IngressTls[] {
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
