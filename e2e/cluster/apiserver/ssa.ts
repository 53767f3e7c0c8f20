// Server-side apply, simplified: each field manager's applied fields are
// kept in metadata.managedFields (FieldsV1 form: "f:<field>" for map keys,
// "k:{...}" for list elements by merge key, "v:<value>" for set members).
// A re-apply removes the fields that manager applied before and no longer
// applies, then merges the new configuration (strategic merge). Conflicts
// with other managers are not detected: every apply acts as --force.
import type { Json, JsonObject } from './patch.ts';
import { isObject } from './patch.ts';
import { listStrategy, strategicMerge } from './strategic-merge.ts';
import { now } from './object-meta.ts';

export type FieldSet = { [key: string]: FieldSet };

/** Fields identifying the object itself are never owned. */
const IDENTITY = new Set(['apiVersion', 'kind']);
const OWNED_METADATA = new Set(['labels', 'annotations', 'finalizers', 'ownerReferences']);

function elementKey(parentPath: readonly string[], field: string, item: Json): string | undefined {
  const strategy = listStrategy(parentPath, field);
  if (strategy === 'union') return `v:${JSON.stringify(item)}`;
  if (strategy === 'replace' || !isObject(item) || item[strategy.mergeKey] === undefined) return undefined;
  return `k:${JSON.stringify({ [strategy.mergeKey]: item[strategy.mergeKey] })}`;
}

/** The FieldsV1 set of an applied configuration. */
export function fieldSetOf(obj: JsonObject, path: readonly string[] = []): FieldSet {
  const set: FieldSet = {};
  for (const [key, value] of Object.entries(obj)) {
    if (path.length === 0 && IDENTITY.has(key)) continue;
    if (path.length === 1 && path[0] === 'metadata' && !OWNED_METADATA.has(key)) continue;
    if (isObject(value)) set[`f:${key}`] = fieldSetOf(value, [...path, key]);
    else if (Array.isArray(value) && value.every((item) => elementKey(path, key, item) !== undefined) && value.length > 0) {
      const list: FieldSet = {};
      for (const item of value) list[elementKey(path, key, item)!] = isObject(item) ? fieldSetOf(item, [...path, key]) : {};
      set[`f:${key}`] = list;
    } else set[`f:${key}`] = {};
  }
  return set;
}

/** Delete from `target` what `before` owned and `after` no longer does. */
function removeDropped(target: JsonObject, before: FieldSet, after: FieldSet, path: readonly string[]): void {
  for (const [key, children] of Object.entries(before)) {
    if (!key.startsWith('f:')) continue;
    const field = key.slice(2);
    const kept = after[key];
    if (!kept) { delete target[field]; continue; }
    const value = target[field];
    if (isObject(value)) removeDropped(value, children, kept, [...path, field]);
    else if (Array.isArray(value)) {
      target[field] = value.filter((item) => {
        const id = elementKey(path, field, item);
        if (id === undefined || !(id in children)) return true;
        if (!(id in kept)) return false;
        if (isObject(item)) removeDropped(item, children[id], kept[id], [...path, field]);
        return true;
      });
    }
  }
}

interface ManagedFieldsEntry { manager?: string; operation?: string; fieldsV1?: FieldSet }

/** The object after `manager` applies `applied` to `existing` (undefined: a create). */
export function serverSideApply(existing: JsonObject | undefined, applied: JsonObject, manager: string): JsonObject {
  const after = fieldSetOf(applied);
  let base: JsonObject = existing ? structuredClone(existing) : {};
  const entries = (isObject(base.metadata) && Array.isArray(base.metadata.managedFields) ? base.metadata.managedFields : []) as ManagedFieldsEntry[];
  const mine = entries.find((e) => e.manager === manager && e.operation === 'Apply');
  if (mine?.fieldsV1) removeDropped(base, mine.fieldsV1, after, []);
  base = strategicMerge(base, applied) as JsonObject;
  const entry = { manager, operation: 'Apply', apiVersion: String(applied.apiVersion ?? ''), time: now(), fieldsType: 'FieldsV1', fieldsV1: after };
  const metadata = base.metadata as JsonObject;
  metadata.managedFields = [...entries.filter((e) => e !== mine), entry] as unknown as Json;
  return base;
}
