// What the store lists and watches: one informer per kind over its whole
// collection (in --watch-namespace, or everywhere), except the kinds read
// only by name. Those get one informer per named object, in that object's
// own namespace whatever --watch-namespace says, narrowed by the field
// selector `metadata.name=<name>`.
//
// Why by name: the controller reads one ConfigMap (--configmap; the TCP/UDP
// services ConfigMaps will be two more names in the same list), so watching
// every ConfigMap in the cluster would cache other tenants' data for nothing
// and need cluster-wide read rights on it. A list/watch whose field selector
// names one object is authorized as a request for that object (Kubernetes
// ≥ 1.11 puts the name into the request's attributes), so the chart can grant
// exactly these ConfigMaps with RBAC `resourceNames`.

import type { KindDescriptor, KindName, ListScope } from './kinds.ts';

/** One object by namespace and name. */
export interface ObjectRef {
  readonly namespace: string;
  readonly name: string;
}

/** One informer's worth of watching: a kind and which of its objects. */
export interface WatchTarget {
  readonly descriptor: KindDescriptor;
  readonly scope: ListScope;
}

/** `namespace/name` (a flag's value, already validated) as an ObjectRef. */
export function parseObjectRef(key: string): ObjectRef {
  const slash = key.indexOf('/');
  if (slash <= 0 || slash === key.length - 1 || key.includes('/', slash + 1)) {
    throw new Error(`expected namespace/name, got ${JSON.stringify(key)}`);
  }
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** The field selector that narrows a list/watch to one object. */
export function nameSelector(name: string): string {
  return `metadata.name=${name}`;
}

/**
 * The informers to start, in KINDS order: a collection target per kind, and
 * for a kind read by name one target per distinct object `named` lists for
 * it (none at all when it names none).
 */
export function watchTargets(
  kinds: readonly KindDescriptor[],
  namespace: string | null,
  named: ReadonlyMap<KindName, readonly ObjectRef[]>,
): WatchTarget[] {
  const targets: WatchTarget[] = [];
  for (const descriptor of kinds) {
    if (!descriptor.byName) {
      targets.push({ descriptor, scope: { namespace: descriptor.namespaced ? namespace : null } });
      continue;
    }
    const seen = new Set<string>();
    for (const ref of named.get(descriptor.kind) ?? []) {
      const key = `${ref.namespace}/${ref.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      targets.push({ descriptor, scope: { namespace: ref.namespace, fieldSelector: nameSelector(ref.name) } });
    }
  }
  return targets;
}
