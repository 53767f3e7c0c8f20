// PATCH bodies by content type: RFC 7386 merge patch, RFC 6902 JSON patch,
// and strategic merge (strategic-merge.ts). Each returns a new object and
// never mutates its input; a bad patch is a 4xx ApiError.
import { ApiError, badRequest, unsupportedMediaType } from './errors.ts';
import { strategicMerge } from './strategic-merge.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const result: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

interface PatchOp { op: string; path: string; value?: Json; from?: string }

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw badRequest(`json patch: invalid pointer "${path}"`);
  return path.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(doc: Json, parts: string[], path: string): { parent: JsonObject | Json[]; key: string } {
  let cur: Json = doc;
  for (const part of parts.slice(0, -1)) {
    const next: Json | undefined = Array.isArray(cur) ? cur[Number(part)] : isObject(cur) ? cur[part] : undefined;
    if (next === undefined || next === null || typeof next !== 'object') {
      throw new ApiError(422, 'Invalid', `json patch: path "${path}" does not exist`);
    }
    cur = next;
  }
  if (cur === null || typeof cur !== 'object') throw new ApiError(422, 'Invalid', `json patch: path "${path}" does not exist`);
  return { parent: cur, key: parts[parts.length - 1] };
}

function getAt(doc: Json, path: string): Json {
  const parts = pointer(path);
  if (parts.length === 0) return doc;
  const { parent, key } = parentOf(doc, parts, path);
  const value = Array.isArray(parent) ? parent[Number(key)] : parent[key];
  if (value === undefined) throw new ApiError(422, 'Invalid', `json patch: path "${path}" does not exist`);
  return value;
}

function removeAt(doc: Json, path: string): void {
  const { parent, key } = parentOf(doc, pointer(path), path);
  if (Array.isArray(parent)) {
    const i = Number(key);
    if (!Number.isInteger(i) || i < 0 || i >= parent.length) throw new ApiError(422, 'Invalid', `json patch: no element at "${path}"`);
    parent.splice(i, 1);
  } else {
    if (!(key in parent)) throw new ApiError(422, 'Invalid', `json patch: no field at "${path}"`);
    delete parent[key];
  }
}

function setAt(doc: Json, path: string, value: Json, insert: boolean): Json {
  const parts = pointer(path);
  if (parts.length === 0) return value;
  const { parent, key } = parentOf(doc, parts, path);
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : Number(key);
    if (!Number.isInteger(i) || i < 0 || i > parent.length) throw new ApiError(422, 'Invalid', `json patch: bad index at "${path}"`);
    if (insert) parent.splice(i, 0, value);
    else parent[i] = value;
  } else {
    if (!insert && !(key in parent)) throw new ApiError(422, 'Invalid', `json patch: no field at "${path}" to replace`);
    parent[key] = value;
  }
  return doc;
}

export function jsonPatch(target: Json, ops: Json): Json {
  if (!Array.isArray(ops)) throw badRequest('json patch: the body must be an array of operations');
  let doc = structuredClone(target);
  for (const raw of ops) {
    if (!isObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw badRequest('json patch: each operation needs "op" and "path"');
    }
    const op = raw as unknown as PatchOp;
    switch (op.op) {
      case 'add': doc = setAt(doc, op.path, structuredClone(op.value ?? null), true); break;
      case 'replace': getAt(doc, op.path); doc = setAt(doc, op.path, structuredClone(op.value ?? null), false); break;
      case 'remove': removeAt(doc, op.path); break;
      case 'move': { const v = getAt(doc, op.from ?? ''); removeAt(doc, op.from ?? ''); doc = setAt(doc, op.path, v, true); break; }
      case 'copy': doc = setAt(doc, op.path, structuredClone(getAt(doc, op.from ?? '')), true); break;
      case 'test':
        if (JSON.stringify(getAt(doc, op.path)) !== JSON.stringify(op.value)) {
          throw new ApiError(422, 'Invalid', `json patch: test failed at "${op.path}"`);
        }
        break;
      default: throw badRequest(`json patch: unknown operation "${op.op}"`);
    }
  }
  return doc;
}

export type PatchKind = 'merge' | 'json' | 'strategic' | 'apply';

export function patchKindOf(contentType: string | undefined): PatchKind {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  switch (type) {
    case 'application/merge-patch+json': return 'merge';
    case 'application/json-patch+json': return 'json';
    case 'application/strategic-merge-patch+json': return 'strategic';
    case 'application/apply-patch+yaml': case 'application/apply-patch+json': return 'apply';
    default: throw unsupportedMediaType(type || '(none)');
  }
}

/** Apply one patch body to the current object. Server-side apply merges like strategic merge here. */
export function applyPatch(kind: PatchKind, current: JsonObject, body: Json): Json {
  switch (kind) {
    case 'merge': return mergePatch(current, body);
    case 'json': return jsonPatch(current, body);
    case 'strategic': case 'apply': return strategicMerge(current, body);
  }
}
