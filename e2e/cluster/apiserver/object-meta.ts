// Pure steps of a write: the object's kind and namespace checked against
// the request, generated names, what an update may change (metadata the
// server owns, .status behind the status subresource), generation; and of
// a delete: garbage collection by ownerReferences, as the controller
// manager's collector does for background deletion — once an owner is
// deleted, each object that listed it goes too unless another owner lives
// (applied transitively: Deployment → ReplicaSet → Pod).
import equal from 'fast-deep-equal';
import { apiVersionOf, type KindInfo } from './kinds.ts';
import { isObject, type Json, type JsonObject } from './patch.ts';
import { badRequest } from './errors.ts';

const meta = (obj: JsonObject): JsonObject => obj.metadata as JsonObject;
const NAME_SUFFIX = 'bcdfghjklmnpqrstvwxz2456789';
/** Fields the server owns: an update keeps the stored values. */
const SERVER_OWNED = ['uid', 'creationTimestamp', 'generation', 'deletionTimestamp', 'resourceVersion'];

/** RFC 3339 without fractions, as the API server writes timestamps. */
export function now(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

/** generateName plus five random characters from the API server's alphabet. */
export function generatedName(prefix: string): string {
  return prefix + Array.from({ length: 5 }, () => NAME_SUFFIX[Math.floor(Math.random() * NAME_SUFFIX.length)]).join('');
}

export function normalise(info: KindInfo, body: Json): JsonObject {
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

/** The namespace an object lands in; a body naming another namespace than the URL is a 400. */
export function namespaceFor(info: KindInfo, obj: JsonObject, namespace: string | undefined): string | undefined {
  const m = meta(obj);
  if (!info.namespaced) { delete m.namespace; return undefined; }
  const ns = namespace ?? (typeof m.namespace === 'string' && m.namespace ? m.namespace : 'default');
  if (typeof m.namespace === 'string' && m.namespace !== '' && m.namespace !== ns) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  m.namespace = ns;
  return ns;
}

/** The object an update would store: status from the right source, server-owned metadata kept. */
export function nextForUpdate(info: KindInfo, existing: JsonObject, sent: JsonObject, statusOnly: boolean): JsonObject {
  if (statusOnly) return { ...structuredClone(existing), status: sent.status ?? {} };
  const next = structuredClone(sent);
  if (info.status) next.status = structuredClone(existing.status ?? {});
  for (const k of SERVER_OWNED) {
    if (meta(existing)[k] === undefined) delete meta(next)[k];
    else meta(next)[k] = meta(existing)[k];
  }
  // An update that leaves managedFields out keeps them, as the API server does.
  if (meta(next).managedFields === undefined && meta(existing).managedFields !== undefined) meta(next).managedFields = meta(existing).managedFields;
  return next;
}

/** metadata.generation counts changes outside metadata and status. */
export function bumpGeneration(next: JsonObject, existing: JsonObject): void {
  const { metadata: _a, status: _b, ...restNext } = next;
  const { metadata: _c, status: _d, ...restOld } = existing;
  if (!equal(restNext, restOld)) meta(next).generation = Number(meta(existing).generation ?? 0) + 1;
}

export interface StoredObject {
  readonly info: KindInfo;
  readonly obj: JsonObject;
}

function ownerUids(obj: JsonObject): string[] {
  const refs = isObject(obj.metadata) && Array.isArray(obj.metadata.ownerReferences) ? obj.metadata.ownerReferences : [];
  return refs.filter(isObject).map((ref) => String(ref.uid ?? '')).filter((uid) => uid !== '');
}

/** The objects to delete now that the object with `deletedUid` is gone. */
export function dependentsToCollect(deletedUid: string, stored: readonly StoredObject[]): StoredObject[] {
  const live = new Set(stored.map(({ obj }) => String((obj.metadata as JsonObject).uid)));
  live.delete(deletedUid);
  return stored.filter(({ obj }) => {
    const owners = ownerUids(obj);
    return owners.includes(deletedUid) && owners.every((uid) => uid === deletedUid || !live.has(uid));
  });
}
