// Strategic merge patch for the built-in kinds this server serves: lists
// with a patch merge key (containers by name, container ports by
// containerPort, Service ports by port, ...) merge element-wise; other lists
// are replaced, as in the API types' `patchStrategy` tags. The directives
// kubectl's 3-way apply sends ($patch, $setElementOrder, $retainKeys,
// $deleteFromPrimitiveList) are honoured.
import type { Json, JsonObject } from './patch.ts';
import { badRequest } from './errors.ts';

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export type ListStrategy = { readonly mergeKey: string } | 'union' | 'replace';

const MERGE_KEY_BY_FIELD: Readonly<Record<string, string>> = {
  containers: 'name', initContainers: 'name', ephemeralContainers: 'name',
  env: 'name', volumes: 'name', imagePullSecrets: 'name', resourceClaims: 'name',
  volumeMounts: 'mountPath', volumeDevices: 'devicePath', hostAliases: 'ip',
  ownerReferences: 'uid', conditions: 'type', topologySpreadConstraints: 'topologyKey',
  readinessGates: 'conditionType', webhooks: 'name',
};

/** How the list at `field` (under `parentPath`) merges. */
export function listStrategy(parentPath: readonly string[], field: string): ListStrategy {
  if (field === 'finalizers' && parentPath[parentPath.length - 1] === 'metadata') return 'union';
  if (field === 'ports') {
    const parent = parentPath[parentPath.length - 1];
    if (parent === 'containers' || parent === 'initContainers' || parent === 'ephemeralContainers') return { mergeKey: 'containerPort' };
    if (parentPath.length === 1 && parentPath[0] === 'spec') return { mergeKey: 'port' };
    return 'replace';
  }
  const key = MERGE_KEY_BY_FIELD[field];
  return key ? { mergeKey: key } : 'replace';
}

function withoutDirectives(value: Json): Json {
  if (Array.isArray(value)) return value.filter((v) => !(isObject(v) && v.$patch !== undefined && Object.keys(v).length === 1)).map(withoutDirectives);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) if (!k.startsWith('$')) out[k] = withoutDirectives(v);
  return out;
}

function mergeList(original: Json[], patch: Json[], path: readonly string[], field: string): Json[] {
  if (patch.some((p) => isObject(p) && p.$patch === 'replace')) {
    return withoutDirectives(patch.filter((p) => !(isObject(p) && p.$patch === 'replace'))) as Json[];
  }
  const strategy = listStrategy(path, field);
  if (strategy === 'replace') return withoutDirectives(patch) as Json[];
  if (strategy === 'union') {
    const out = [...original];
    for (const p of patch) if (!out.some((o) => JSON.stringify(o) === JSON.stringify(p))) out.push(p);
    return out;
  }
  const key = strategy.mergeKey;
  const out = original.map((o) => structuredClone(o));
  const elementPath = [...path, field];
  for (const item of patch) {
    if (!isObject(item) || item[key] === undefined) {
      throw badRequest(`strategic merge patch: element of "${field}" lacks its merge key "${key}"`);
    }
    const at = out.findIndex((o) => isObject(o) && JSON.stringify(o[key]) === JSON.stringify(item[key]));
    if (item.$patch === 'delete') {
      if (at >= 0) out.splice(at, 1);
    } else if (at >= 0) {
      out[at] = mergeObject(out[at] as JsonObject, item, elementPath);
    } else {
      out.push(withoutDirectives(item));
    }
  }
  return out;
}

/** Order a merged list as `$setElementOrder` says; unlisted elements keep their place after. */
function orderList(list: Json[], order: Json[], path: readonly string[], field: string): Json[] {
  const strategy = listStrategy(path, field);
  const keyOf = (v: Json): string => JSON.stringify(typeof strategy === 'object' && isObject(v) ? v[strategy.mergeKey] : v);
  const rank = new Map(order.map((o, i) => [keyOf(o), i]));
  return list.map((v, i) => ({ v, i, r: rank.get(keyOf(v)) ?? order.length + i })).sort((a, b) => a.r - b.r).map((e) => e.v);
}

function mergeObject(original: JsonObject, patch: JsonObject, path: readonly string[]): JsonObject {
  if (patch.$patch === 'replace') return withoutDirectives(patch) as JsonObject;
  const result: JsonObject = { ...original };
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue;
    const current = result[key];
    if (value === null || (isObject(value) && value.$patch === 'delete')) delete result[key];
    else if (isObject(value) && isObject(current)) result[key] = mergeObject(current, value, [...path, key]);
    else if (Array.isArray(value) && Array.isArray(current)) result[key] = mergeList(current, value, path, key);
    else result[key] = withoutDirectives(value);
  }
  for (const [key, value] of Object.entries(patch)) {
    const [directive, field] = key.split('/');
    if (directive === '$deleteFromPrimitiveList' && field && Array.isArray(result[field]) && Array.isArray(value)) {
      const drop = new Set(value.map((v) => JSON.stringify(v)));
      result[field] = (result[field] as Json[]).filter((v) => !drop.has(JSON.stringify(v)));
    } else if (directive === '$setElementOrder' && field && Array.isArray(result[field]) && Array.isArray(value)) {
      result[field] = orderList(result[field] as Json[], value, path, field);
    }
  }
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set(patch.$retainKeys.map(String));
    for (const key of Object.keys(result)) if (!keep.has(key) && !(key in patch)) delete result[key];
  }
  return result;
}

/** Apply a strategic merge patch; neither input is mutated. */
export function strategicMerge(original: Json, patch: Json): Json {
  if (!isObject(patch)) throw badRequest('strategic merge patch: the body must be a JSON object');
  return mergeObject(isObject(original) ? original : {}, patch, []);
}
