// The object store: one global resourceVersion counter, objects by kind and
// namespace/name, and the change log behind watch. Every HTTP verb is a call
// here, so in-process users (the simulator) get the same semantics as HTTP.
import { randomUUID } from 'node:crypto';
import equal from 'fast-deep-equal';
import { KeyIndex } from './key-index.ts';
import { findResource, KINDS, resourceKey, type KindInfo } from './kinds.ts';
import { applyPatch, isObject, type Json, type JsonObject, type PatchKind } from './patch.ts';
import { alreadyExists, ApiError, badRequest, conflict, gone, notFound } from './errors.ts';
import { validateObject } from './validate.ts';
import { serverSideApply } from './ssa.ts';
import { bumpGeneration, dependentsToCollect, generatedName, namespaceFor, nextForUpdate, normalise, now } from './object-meta.ts';
import { applyDefaults, ClusterIpAllocator, initialStatus } from './defaults.ts';
import { EventLog, type WatchSink } from './watch.ts';
import { decodeContinue, encodeContinue, objectFilter, type ListOptions, type ListResult, type WatchOptions } from './paging.ts';

export type KindRef = KindInfo | string;
export type Subresource = 'status' | undefined;

export type { ListOptions, ListResult, WatchOptions } from './paging.ts';

export function resolveKind(ref: KindRef): KindInfo {
  if (typeof ref !== 'string') return ref;
  const info = findResource(ref);
  if (!info) throw new Error(`unknown resource "${ref}"`);
  return info;
}

const meta = (obj: JsonObject): JsonObject => obj.metadata as JsonObject;
const keyOf = (ns: string | undefined, name: string): string => `${ns ?? ''}/${name}`;

export class Store {
  private rv = 0;
  private readonly objects = new Map<string, Map<string, JsonObject>>();
  /** Each table's keys in order, for list pages (key-index.ts). */
  private readonly indexes = new Map<string, KeyIndex>();
  private readonly ips = new ClusterIpAllocator();
  private readonly pending = new Set<NodeJS.Timeout>();
  private readonly namespaceFinalizeMs: number;
  readonly log: EventLog;

  constructor(opts: { eventWindow?: number; namespaceFinalizeMs?: number } = {}) {
    this.log = new EventLog(opts.eventWindow ?? 5000);
    this.namespaceFinalizeMs = opts.namespaceFinalizeMs ?? 200;
  }

  get resourceVersion(): string { return String(this.rv); }

  private table(info: KindInfo): Map<string, JsonObject> {
    const key = resourceKey(info);
    let table = this.objects.get(key);
    if (!table) { table = new Map(); this.objects.set(key, table); }
    return table;
  }

  private index(info: KindInfo): KeyIndex {
    const key = resourceKey(info);
    let index = this.indexes.get(key);
    if (!index) { index = new KeyIndex(); this.indexes.set(key, index); }
    return index;
  }

  private record(info: KindInfo, type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: JsonObject, previous?: JsonObject): JsonObject {
    this.rv++;
    meta(obj).resourceVersion = String(this.rv);
    // Every caller hands over a copy of its own (normalised, merged or cloned): kept as is.
    const frozen = obj;
    const key = keyOf(meta(obj).namespace as string, String(meta(obj).name));
    const table = this.table(info);
    if (type === 'DELETED') {
      if (table.delete(key)) this.index(info).remove(key);
    } else {
      if (!table.has(key)) this.index(info).add(key);
      table.set(key, frozen);
    }
    this.log.append({ rv: this.rv, resource: resourceKey(info), type, object: frozen, previous });
    return structuredClone(frozen);
  }

  create(ref: KindRef, body: Json, opts: { namespace?: string; dryRun?: boolean } = {}): JsonObject {
    const info = resolveKind(ref);
    const obj = normalise(info, body);
    const m = meta(obj);
    const ns = namespaceFor(info, obj, opts.namespace);
    if (ns !== undefined) {
      const namespace = this.table(resolveKind('namespaces')).get(keyOf(undefined, ns));
      if (!namespace) throw notFound('namespaces', '', ns);
      if (meta(namespace).deletionTimestamp) {
        throw new ApiError(403, 'Forbidden', `${info.plural} "${String(m.name ?? m.generateName ?? '')}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`);
      }
    }
    if (!m.name && typeof m.generateName === 'string' && m.generateName) {
      m.name = generatedName(m.generateName);
    }
    applyDefaults(info, obj, this.ips);
    if (info.status) obj.status = initialStatus(info) ?? {};
    validateObject(info, obj);
    if (this.table(info).has(keyOf(ns, String(m.name)))) throw alreadyExists(info.plural, info.group, String(m.name));
    Object.assign(m, { uid: randomUUID(), creationTimestamp: now(), generation: 1 });
    delete m.resourceVersion; delete m.deletionTimestamp;
    if (opts.dryRun) return obj;
    return this.record(info, 'ADDED', obj);
  }

  get(ref: KindRef, namespace: string | undefined, name: string): JsonObject {
    const info = resolveKind(ref);
    const obj = this.table(info).get(keyOf(info.namespaced ? namespace : undefined, name));
    if (!obj) throw notFound(info.plural, info.group, name);
    return structuredClone(obj);
  }

  /**
   * One page: the objects after the continue token's key, in key order, as they are now.
   * Costs the page plus a binary search (a namespace's keys are one run of the sorted keys);
   * only a label or field selector makes it read on to count what remains.
   * `shared`: the stored objects themselves, for a caller that only serialises them (the HTTP
   * list): as kube-apiserver encodes from its watch cache without copying. A stored object is
   * never changed in place (every write stores a new copy), so serialising it later is safe;
   * copying 30,000 objects per cold start was most of this server's CPU in the benches.
   */
  list(ref: KindRef, opts: ListOptions = {}, shared = false): ListResult {
    const info = resolveKind(ref);
    const namespace = info.namespaced ? opts.namespace || undefined : undefined;
    const matches = objectFilter({ ...opts, namespace });
    const selective = Boolean(opts.labelSelector) || Boolean(opts.fieldSelector);
    const after = opts.continue ? decodeContinue(opts.continue, (rv) => this.log.isResumable(rv)).key : '';
    const table = this.table(info);
    const index = this.index(info);
    const keys = index.sorted();
    let at = index.after(after);
    let end = keys.length;
    if (namespace !== undefined) {
      // Keys are "<namespace>/<name>": the run from "<namespace>/" up to "<namespace>0" ('0' follows '/').
      at = Math.max(at, index.from(`${namespace}/`));
      end = index.from(`${namespace}0`);
    }
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Number.POSITIVE_INFINITY;
    const page: [string, JsonObject][] = [];
    for (; at < end && page.length < limit; at++) {
      const obj = table.get(keys[at])!;
      if (matches(obj)) page.push([keys[at], obj]);
    }
    let remaining = end - at;
    if (selective) {
      remaining = 0;
      for (let i = at; i < end; i++) if (matches(table.get(keys[i])!)) remaining++;
    }
    return {
      items: page.map(([, obj]) => (shared ? obj : structuredClone(obj))),
      resourceVersion: this.resourceVersion,
      ...(remaining > 0 ? { continue: encodeContinue({ key: page[page.length - 1][0], rv: this.rv }), remainingItemCount: remaining } : {}),
    };
  }

  update(ref: KindRef, body: Json, opts: { namespace?: string; subresource?: Subresource; dryRun?: boolean } = {}): JsonObject {
    const info = resolveKind(ref);
    const obj = normalise(info, body);
    const ns = namespaceFor(info, obj, opts.namespace);
    const name = String(meta(obj).name ?? '');
    const existing = this.table(info).get(keyOf(ns, name));
    if (!existing) throw notFound(info.plural, info.group, name);
    const sentRv = meta(obj).resourceVersion;
    if (sentRv !== undefined && sentRv !== '' && sentRv !== meta(existing).resourceVersion) {
      throw conflict(info.plural, info.group, name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    const next = nextForUpdate(info, existing, obj, opts.subresource === 'status');
    if (!opts.subresource) {
      applyDefaults(info, next, this.ips);
      validateObject(info, next);
    }
    if (equal(next, existing)) return structuredClone(existing);
    bumpGeneration(next, existing);
    if (opts.dryRun) return next;
    return this.record(info, 'MODIFIED', next, existing);
  }

  /** PATCH semantics; `apply` (server-side apply, see ssa.ts) creates the object when absent. */
  patch(ref: KindRef, namespace: string | undefined, name: string, kind: PatchKind, body: Json,
    opts: { subresource?: Subresource; dryRun?: boolean; fieldManager?: string } = {}): JsonObject {
    const info = resolveKind(ref);
    const existing = this.table(info).get(keyOf(info.namespaced ? namespace : undefined, name));
    if (!existing && (kind !== 'apply' || opts.subresource)) throw notFound(info.plural, info.group, name);
    const patched = kind === 'apply'
      ? serverSideApply(existing, normalise(info, body), opts.fieldManager ?? 'in-process')
      : applyPatch(kind, structuredClone(existing!), body);
    if (!isObject(patched) || !isObject(patched.metadata)) throw badRequest('the patch removed the object metadata');
    if (!existing) meta(patched).name ??= name;
    if (meta(patched).name !== name) throw badRequest('the name of the object does not match the name on the URL');
    const writeOpts = { namespace, subresource: opts.subresource, dryRun: opts.dryRun };
    return existing ? this.update(info, patched, writeOpts) : this.create(info, patched, writeOpts);
  }

  delete(ref: KindRef, namespace: string | undefined, name: string,
    opts: { uid?: string; resourceVersion?: string; dryRun?: boolean; propagationPolicy?: string } = {}): JsonObject {
    const info = resolveKind(ref);
    const existing = this.table(info).get(keyOf(info.namespaced ? namespace : undefined, name));
    if (!existing) throw notFound(info.plural, info.group, name);
    if ((opts.uid && opts.uid !== meta(existing).uid) || (opts.resourceVersion && opts.resourceVersion !== meta(existing).resourceVersion)) {
      throw conflict(info.plural, info.group, name, 'the precondition (uid or resourceVersion) does not match the object');
    }
    if (opts.dryRun) return structuredClone(existing);
    if (info.kind === 'Namespace') return this.terminateNamespace(info, existing);
    const deleted = this.record(info, 'DELETED', structuredClone(existing));
    if (opts.propagationPolicy !== 'Orphan') this.collectGarbage(String(meta(existing).uid));
    return deleted;
  }

  /** The garbage collector: delete, transitively, objects whose every owner is gone. */
  private collectGarbage(ownerUid: string): void {
    const queue = [ownerUid];
    while (queue.length > 0) {
      const stored = KINDS.flatMap((info) => [...this.table(info).values()].map((obj) => ({ info, obj })));
      for (const { info, obj } of dependentsToCollect(queue.shift()!, stored)) {
        this.record(info, 'DELETED', structuredClone(obj));
        queue.push(String(meta(obj).uid));
      }
    }
  }

  /**
   * Namespace deletion as the namespace controller does it: the namespace
   * turns Terminating at once (no new objects), and a moment later its
   * objects and then the namespace itself are removed. Deleting objects in
   * it meanwhile still works, as `kubectl delete -f` of a whole app expects.
   */
  private terminateNamespace(info: KindInfo, existing: JsonObject): JsonObject {
    const name = String(meta(existing).name);
    if (meta(existing).deletionTimestamp) return structuredClone(existing);
    const terminating = structuredClone(existing);
    meta(terminating).deletionTimestamp = now();
    terminating.status = { ...(isObject(terminating.status) ? terminating.status : {}), phase: 'Terminating' };
    const result = this.record(info, 'MODIFIED', terminating, existing);
    const finalize = (): void => {
      this.pending.delete(timer);
      for (const kind of KINDS.filter((k) => k.namespaced)) {
        for (const obj of [...this.table(kind).values()]) {
          if (meta(obj).namespace === name) this.record(kind, 'DELETED', structuredClone(obj));
        }
      }
      const current = this.table(info).get(keyOf(undefined, name));
      if (current) this.record(info, 'DELETED', structuredClone(current));
    };
    const timer = setTimeout(finalize, this.namespaceFinalizeMs);
    this.pending.add(timer);
    return result;
  }

  /** Cancel background work (namespace finalization); the objects stay. */
  close(): void {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }

  /** Subscribe to changes; returns the function that ends the watch. */
  watch(ref: KindRef, opts: WatchOptions, sink: WatchSink): () => void {
    const info = resolveKind(ref);
    const filter = { resource: resourceKey(info), matches: objectFilter({ ...opts, namespace: info.namespaced ? opts.namespace || undefined : undefined }) };
    const from = opts.resourceVersion;
    if (from === undefined || from === '' || from === '0') {
      for (const obj of this.list(info, opts).items) sink.onEvent({ type: 'ADDED', object: obj });
    } else {
      const rv = Number(from);
      if (!Number.isInteger(rv) || rv < 0) throw badRequest(`invalid resourceVersion "${from}"`);
      const backlog = this.log.since(rv, filter);
      if (!backlog) {
        sink.onEvent({ type: 'ERROR', object: gone(`too old resource version: ${rv} (${this.rv})`).toStatus() as unknown as JsonObject });
        sink.onClose();
        return () => undefined;
      }
      for (const event of backlog) sink.onEvent(event);
    }
    return this.log.subscribe(filter, sink);
  }

  /** Fault hook: every resourceVersion before now becomes too old (410 on resume). */
  expireResourceVersions(): void {
    this.log.expire(this.rv);
  }
}
