// RBAC authorization from the stored Roles, ClusterRoles and their bindings,
// evaluated per request like the real RBAC authorizer: a request is allowed
// when any rule bound to the user (directly, by group, or as a service
// account) covers its verb, API group, resource[/subresource] and name.
import type { Store } from './store.ts';
import type { JsonObject } from './patch.ts';
import { isObject } from './patch.ts';
import { parseFieldSelector, type Selector } from './selectors.ts';

export interface UserInfo {
  readonly user: string;
  readonly groups: readonly string[];
}

export interface RequestAttributes {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * The object a list or watch asks for by name: kube-apiserver (since 1.11,
 * RequestInfoFactory in k8s.io/apiserver requestinfo.go) takes an exact
 * `metadata.name=<name>` term of the field selector as the request's name, so
 * RBAC `resourceNames` can grant a list/watch of that one object. A name that
 * is not a valid path segment ("", ".", "..", or with "/" or "%") is ignored,
 * as there; the request is then authorized as a list of everything.
 */
export function selectedName(fieldSelector: string | null | undefined): string | undefined {
  if (!fieldSelector) return undefined;
  let terms: Selector;
  try {
    terms = parseFieldSelector(fieldSelector);
  } catch {
    return undefined; // the handler answers 400; authorization sees no name
  }
  for (const term of terms) {
    if (term.key !== 'metadata.name' || term.op !== 'in') continue;
    const name = term.values[0] ?? '';
    return name === '' || name === '.' || name === '..' || /[/%]/.test(name) ? undefined : name;
  }
  return undefined;
}

export function ruleAllows(rule: JsonObject, attrs: RequestAttributes): boolean {
  const verbs = strings(rule.verbs);
  if (!verbs.includes('*') && !verbs.includes(attrs.verb)) return false;
  const groups = strings(rule.apiGroups);
  if (!groups.includes('*') && !groups.includes(attrs.group)) return false;
  const resources = strings(rule.resources);
  const wanted = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const resourceOk = resources.includes('*') || resources.includes(wanted)
    || (attrs.subresource !== undefined && resources.includes(`*/${attrs.subresource}`));
  if (!resourceOk) return false;
  const names = strings(rule.resourceNames);
  return names.length === 0 || (attrs.name !== undefined && names.includes(attrs.name));
}

function subjectMatches(subject: unknown, user: UserInfo, bindingNamespace: string | undefined): boolean {
  if (!isObject(subject)) return false;
  switch (subject.kind) {
    case 'User': return subject.name === user.user;
    case 'Group': return typeof subject.name === 'string' && user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = typeof subject.namespace === 'string' && subject.namespace ? subject.namespace : bindingNamespace;
      return user.user === `system:serviceaccount:${ns}:${String(subject.name)}`;
    }
    default: return false;
  }
}

function rulesOf(store: Store, roleRef: unknown, bindingNamespace: string | undefined): JsonObject[] {
  if (!isObject(roleRef) || typeof roleRef.name !== 'string') return [];
  try {
    const role = roleRef.kind === 'ClusterRole'
      ? store.get('clusterroles.rbac.authorization.k8s.io', undefined, roleRef.name)
      : roleRef.kind === 'Role' && bindingNamespace ? store.get('roles.rbac.authorization.k8s.io', bindingNamespace, roleRef.name) : undefined;
    return role && Array.isArray(role.rules) ? role.rules.filter(isObject) : [];
  } catch {
    return []; // a binding to a missing role grants nothing, as in Kubernetes
  }
}

/** Whether `user` may perform the request; members of system:masters always may. */
export function authorize(store: Store, user: UserInfo, attrs: RequestAttributes): boolean {
  if (user.groups.includes('system:masters')) return true;
  const bindings: { binding: JsonObject; namespace: string | undefined }[] = [
    ...store.list('clusterrolebindings.rbac.authorization.k8s.io').items.map((b) => ({ binding: b, namespace: undefined })),
  ];
  if (attrs.namespace) {
    for (const b of store.list('rolebindings.rbac.authorization.k8s.io', { namespace: attrs.namespace }).items) {
      bindings.push({ binding: b, namespace: attrs.namespace });
    }
  }
  return bindings.some(({ binding, namespace }) => {
    const subjects = Array.isArray(binding.subjects) ? binding.subjects : [];
    if (!subjects.some((s) => subjectMatches(s, user, namespace))) return false;
    return rulesOf(store, binding.roleRef, namespace).some((rule) => ruleAllows(rule, attrs));
  });
}

/** Groups a token's user gets by default: service accounts get theirs, as the token authenticator gives them. */
export function defaultGroups(user: string): string[] {
  const sa = /^system:serviceaccount:([^:]+):[^:]+$/.exec(user);
  return sa ? ['system:serviceaccounts', `system:serviceaccounts:${sa[1]}`, 'system:authenticated'] : ['system:authenticated'];
}
