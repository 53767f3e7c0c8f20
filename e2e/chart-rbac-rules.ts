// What a rendered chart grants its controller ServiceAccount, flattened to
// one line per (where, group/resource, verb, name) so the RBAC tests can
// compare exact sets: anything added to the chart shows up as a diff.
import type { Manifest } from './chart-render.ts';

interface Rule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly verbs?: readonly string[];
  readonly resourceNames?: readonly string[];
}
interface Subject { readonly kind: string; readonly name: string; readonly namespace?: string }
interface RoleRef { readonly kind: string; readonly name: string }

/** The ServiceAccount whose grants are collected. */
export interface AccountRef {
  readonly namespace: string;
  readonly name: string;
}

function ruleLines(where: string, rule: Rule): string[] {
  const lines: string[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs ?? []) {
        const names = rule.resourceNames?.length ? rule.resourceNames : [null];
        for (const name of names) lines.push(`${where} ${group || 'core'}/${resource} ${verb}${name ? ` name=${name}` : ''}`);
      }
    }
  }
  return lines;
}

/**
 * Every permission the manifests grant `account`, sorted: `cluster …` for
 * ClusterRoleBindings, `ns:<namespace> …` for RoleBindings (a RoleBinding to
 * a ClusterRole counts in its namespace, as Kubernetes evaluates it).
 */
export function grantsOf(manifests: readonly Manifest[], account: AccountRef): string[] {
  const find = (kind: string, name: string, namespace?: string): Manifest | undefined =>
    manifests.find((m) => m.kind === kind && m.metadata.name === name && (namespace === undefined || m.metadata.namespace === namespace));
  const lines = new Set<string>();
  for (const binding of manifests.filter((m) => m.kind === 'ClusterRoleBinding' || m.kind === 'RoleBinding')) {
    const namespace = binding.metadata.namespace;
    const subjects = (binding.subjects ?? []) as Subject[];
    const bound = subjects.some((s) => s.kind === 'ServiceAccount' && s.name === account.name && (s.namespace ?? namespace) === account.namespace);
    if (!bound) continue;
    const ref = binding.roleRef as RoleRef;
    const role = ref.kind === 'ClusterRole' ? find('ClusterRole', ref.name) : find('Role', ref.name, namespace);
    if (!role) throw new Error(`${binding.kind}/${binding.metadata.name} refers to a missing ${ref.kind}/${ref.name}`);
    const where = binding.kind === 'ClusterRoleBinding' ? 'cluster' : `ns:${namespace}`;
    for (const rule of (role.rules ?? []) as Rule[]) for (const line of ruleLines(where, rule)) lines.add(line);
  }
  return [...lines].sort();
}
