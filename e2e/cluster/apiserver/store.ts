// The object store: one global resourceVersion counter, objects by kind and
// namespace/name, and the change log behind watch. Every HTTP verb is a call
// here, so in-process users (the simulator) get the same semantics as HTTP.
import { randomUUID } from 'node:crypto';
import equal from 'fast-deep-equal';
import { apiVersionOf, findResource, KINDS, resourceKey, type KindInfo } from './kinds.ts';
import { applyPatch, isObject, type Json, type JsonObject, type PatchKind } from './patch.ts';
import { alreadyExists, ApiError, badRequest, conflict, gone, notFound } from './errors.ts';
import { validateObject } from './validate.ts';
import { applyDefaults, ClusterIpAllocator, initialStatus } from './defaults.ts';
import { EventLog, type WatchSink } from './watch.ts';
import { fieldValue, matchesSelector, parseFieldSelector, parseLabelSelector } from './selectors.ts';

export type KindRef = KindInfo | string;
export type Subresource = 'status' | undefined;

export interface ListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  readonly continue?: string;
}

export interface ListResult {
  readonly items: JsonObject[];
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

export interface WatchOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** absent or "0": synthetic ADDED for the current state first */
  readonly resourceVersion?: string;
}

export function resolveKind(ref: KindRef): KindInfo {
  if (typeof ref !== 'string') return ref;
  const info = findResource(ref);
  if (!info) throw new Error(`unknown resource "${ref}"`);
  return info;
}

const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const meta = (obj: JsonObject): JsonObject => obj.metadata as JsonObject;
const keyOf = (ns: string | undefined, name: string): string => `${ns ?? ''}/${name}`;
const NAME_SUFFIX = 'bcdfghjklmnpqrstvwxz2456789';

export class Store {
  private rv = 0;
  private readonly objects = new Map<string, Map<string, JsonObject>>();
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

  private record(info: KindInfo, type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: JsonObject, previous?: JsonObject): JsonObject {
    this.rv++;
    meta(obj).resourceVersion = String(this.rv);
    const frozen = structuredClone(obj);
    if (type === 'DELETED') this.table(info).delete(keyOf(meta(obj).namespace as string, String(meta(obj).name)));
    else this.table(info).set(keyOf(meta(obj).namespace as string, String(meta(obj).name)), frozen);
    this.log.append({ rv: this.rv, resource: resourceKey(info), type, object: frozen, previous });
    return structuredClone(frozen);
  }

  private namespaceFor(info: KindInfo, obj: JsonObject, namespace: string | undefined): string | undefined {
    const m = meta(obj);
    if (!info.namespaced) { delete m.namespace; return undefined; }
    const ns = namespace ?? (typeof m.namespace === 'string' && m.namespace ? m.namespace : 'default');
    if (typeof m.namespace === 'string' && m.namespace !== '' && m.namespace !== ns) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    m.namespace = ns;
    return ns;
  }

  private normalise(info: KindInfo, body: Json): JsonObject {
    if (!isObject(body)) throw badRequest('the request body must be a JSON object');
    const obj = structuredClone(body);
    if ((obj.apiVersion !== undefined && obj.apiVersion !== apiVersionOf(info)) || (obj.kind !== undefined && obj.kind !== info.kind)) {
      throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${apiVersionOf(info)}) for kind ${info.kind}`);
    }
    obj.apiVersion = apiVersionOf(info);
    obj.kind = info.kind;
    if (!isObject(obj.metadata)) obj.metadata = {};
    return obj;
  }

  create(ref: KindRef, body: Json, opts: { namespace?: string; dryRun?: boolean } = {}): JsonObject {
    const info = resolveKind(ref);
    const obj = this.normalise(info, body);
    const m = meta(obj);
    const ns = this.namespaceFor(info, obj, opts.namespace);
    if (ns !== undefined) {
      const namespace = this.table(resolveKind('namespaces')).get(keyOf(undefined, ns));
      if (!namespace) throw notFound('namespaces', '', ns);
      if (meta(namespace).deletionTimestamp) {
        throw new ApiError(403, 'Forbidden', `${info.plural} "${String(m.name ?? m.generateName ?? '')}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`);
      }
    }
    if (!m.name && typeof m.generateName === 'string' && m.generateName) {
      m.name = m.generateName + Array.from({ length: 5 }, () => NAME_SUFFIX[Math.floor(Math.random() * NAME_SUFFIX.length)]).join('');
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

  list(ref: KindRef, opts: ListOptions = {}): ListResult {
    const info = resolveKind(ref);
    const labels = parseLabelSelector(opts.labelSelector);
    const fields = parseFieldSelector(opts.fieldSelector);
    let after = '';
    if (opts.continue) {
      let token: { k?: unknown; rv?: unknown };
      try { token = JSON.parse(Buffer.from(opts.continue, 'base64url').toString()) as typeof token; } catch { throw badRequest('invalid continue token'); }
      if (typeof token.k !== 'string' || typeof token.rv !== 'number') throw badRequest('invalid continue token');
      if (!this.log.isResumable(token.rv)) throw gone('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
      after = token.k;
    }
    const scoped = info.namespaced && opts.namespace ? opts.namespace : undefined;
    const all = [...this.table(info).entries()]
      .filter(([key, obj]) => key > after && (scoped === undefined || meta(obj).namespace === scoped)
        && matchesSelector(labels, (k) => (meta(obj).labels as Record<string, string> | undefined)?.[k])
        && matchesSelector(fields, (k) => fieldValue(obj, k)))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const limit = opts.limit && opts.limit > 0 ? opts.limit : all.length;
    const page = all.slice(0, limit);
    const more = all.length > page.length;
    return {
      items: page.map(([, obj]) => structuredClone(obj)),
      resourceVersion: this.resourceVersion,
      ...(more ? {
        continue: Buffer.from(JSON.stringify({ k: page[page.length - 1][0], rv: this.rv })).toString('base64url'),
        remainingItemCount: all.length - page.length,
      } : {}),
    };
  }

  update(ref: KindRef, body: Json, opts: { namespace?: string; subresource?: Subresource; dryRun?: boolean } = {}): JsonObject {
    const info = resolveKind(ref);
    const obj = this.normalise(info, body);
    const ns = this.namespaceFor(info, obj, opts.namespace);
    const name = String(meta(obj).name ?? '');
    const existing = this.table(info).get(keyOf(ns, name));
    if (!existing) throw notFound(info.plural, info.group, name);
    const sentRv = meta(obj).resourceVersion;
    if (sentRv !== undefined && sentRv !== '' && sentRv !== meta(existing).resourceVersion) {
      throw conflict(info.plural, info.group, name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    let next: JsonObject;
    if (opts.subresource === 'status') {
      next = { ...structuredClone(existing), status: obj.status ?? {} };
    } else {
      next = obj;
      if (info.status) next.status = structuredClone(existing.status ?? {});
      for (const k of ['uid', 'creationTimestamp', 'generation', 'deletionTimestamp']) {
        if (meta(existing)[k] === undefined) delete meta(next)[k];
        else meta(next)[k] = meta(existing)[k];
      }
      applyDefaults(info, next, this.ips);
      validateObject(info, next);
    }
    meta(next).resourceVersion = meta(existing).resourceVersion;
    if (equal(next, existing)) return structuredClone(existing);
    const { metadata: _a, status: _b, ...restNext } = next;
    const { metadata: _c, status: _d, ...restOld } = existing;
    if (!equal(restNext, restOld)) meta(next).generation = Number(meta(existing).generation ?? 0) + 1;
    if (opts.dryRun) return next;
    return this.record(info, 'MODIFIED', next, existing);
  }

  /** PATCH semantics; `apply` (server-side apply) creates the object when absent. */
  patch(ref: KindRef, namespace: string | undefined, name: string, kind: PatchKind, body: Json,
    opts: { subresource?: Subresource; dryRun?: boolean } = {}): JsonObject {
    const info = resolveKind(ref);
    const existing = this.table(info).get(keyOf(info.namespaced ? namespace : undefined, name));
    if (!existing) {
      if (kind !== 'apply' || opts.subresource) throw notFound(info.plural, info.group, name);
      const fresh = this.normalise(info, body);
      meta(fresh).name ??= name;
      if (meta(fresh).name !== name) throw badRequest('the name of the object does not match the name on the URL');
      return this.create(info, fresh, { namespace, dryRun: opts.dryRun });
    }
    const patched = applyPatch(kind, structuredClone(existing), body);
    if (!isObject(patched) || !isObject(patched.metadata)) throw badRequest('the patch removed the object metadata');
    if (meta(patched).name !== name) throw badRequest('the name of the object may not be changed by a patch');
    return this.update(info, patched, { namespace, subresource: opts.subresource, dryRun: opts.dryRun });
  }

  delete(ref: KindRef, namespace: string | undefined, name: string, opts: { uid?: string; resourceVersion?: string; dryRun?: boolean } = {}): JsonObject {
    const info = resolveKind(ref);
    const existing = this.table(info).get(keyOf(info.namespaced ? namespace : undefined, name));
    if (!existing) throw notFound(info.plural, info.group, name);
    if ((opts.uid && opts.uid !== meta(existing).uid) || (opts.resourceVersion && opts.resourceVersion !== meta(existing).resourceVersion)) {
      throw conflict(info.plural, info.group, name, 'the precondition (uid or resourceVersion) does not match the object');
    }
    if (opts.dryRun) return structuredClone(existing);
    if (info.kind === 'Namespace') return this.terminateNamespace(info, existing);
    return this.record(info, 'DELETED', structuredClone(existing));
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
    const labels = parseLabelSelector(opts.labelSelector);
    const fields = parseFieldSelector(opts.fieldSelector);
    const ns = info.namespaced ? opts.namespace : undefined;
    const filter = {
      resource: resourceKey(info),
      matches: (obj: JsonObject): boolean => (ns === undefined || meta(obj).namespace === ns)
        && matchesSelector(labels, (k) => (meta(obj).labels as Record<string, string> | undefined)?.[k])
        && matchesSelector(fields, (k) => fieldValue(obj, k)),
    };
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
