// The kinds this API server serves: one row per kind, and everything else
// (discovery, routing, RBAC resource names, Table output) is derived from it.

export interface KindInfo {
  /** API group, '' for core */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** the resource name in URLs and RBAC rules */
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  /** has a `status` subresource: main-resource writes ignore .status */
  readonly status: boolean;
  /** has a `scale` subresource (autoscaling/v1 Scale over spec.replicas) */
  readonly scale: boolean;
  /** discovery categories (`kubectl get all`) */
  readonly categories: readonly string[];
  /** a review that is answered, never stored (create only), like SelfSubjectAccessReview */
  readonly review: boolean;
}

type Row = [group: string, version: string, kind: string, plural: string, namespaced: boolean,
  shortNames: string[], status: boolean, scale: boolean, categories: string[], review?: boolean];

const ALL = ['all'];
const ROWS: readonly Row[] = [
  ['', 'v1', 'Namespace', 'namespaces', false, ['ns'], true, false, []],
  ['', 'v1', 'Service', 'services', true, ['svc'], true, false, ALL],
  ['', 'v1', 'Endpoints', 'endpoints', true, ['ep'], false, false, []],
  ['', 'v1', 'Secret', 'secrets', true, [], false, false, []],
  ['', 'v1', 'ConfigMap', 'configmaps', true, ['cm'], false, false, []],
  ['', 'v1', 'ServiceAccount', 'serviceaccounts', true, ['sa'], false, false, []],
  ['', 'v1', 'Pod', 'pods', true, ['po'], true, false, ALL],
  ['', 'v1', 'Event', 'events', true, ['ev'], false, false, []],
  ['events.k8s.io', 'v1', 'Event', 'events', true, ['ev'], false, false, []],
  ['networking.k8s.io', 'v1', 'Ingress', 'ingresses', true, ['ing'], true, false, []],
  ['networking.k8s.io', 'v1', 'IngressClass', 'ingressclasses', false, [], false, false, []],
  ['discovery.k8s.io', 'v1', 'EndpointSlice', 'endpointslices', true, [], false, false, []],
  ['apps', 'v1', 'Deployment', 'deployments', true, ['deploy'], true, true, ALL],
  ['apps', 'v1', 'DaemonSet', 'daemonsets', true, ['ds'], true, false, ALL],
  ['apps', 'v1', 'ReplicaSet', 'replicasets', true, ['rs'], true, true, ALL],
  ['batch', 'v1', 'Job', 'jobs', true, [], true, false, ALL],
  ['coordination.k8s.io', 'v1', 'Lease', 'leases', true, [], false, false, []],
  ['rbac.authorization.k8s.io', 'v1', 'Role', 'roles', true, [], false, false, []],
  ['rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', false, [], false, false, []],
  ['rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings', true, [], false, false, []],
  ['rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', 'clusterrolebindings', false, [], false, false, []],
  ['admissionregistration.k8s.io', 'v1', 'ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', false, [], false, false, []],
  ['policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets', true, ['pdb'], true, false, []],
  ['autoscaling', 'v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', true, ['hpa'], true, false, ALL],
  ['authorization.k8s.io', 'v1', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', false, [], false, false, [], true],
];

export const KINDS: readonly KindInfo[] = ROWS.map(
  ([group, version, kind, plural, namespaced, shortNames, status, scale, categories, review]) => ({
    group, version, kind, plural, singular: kind.toLowerCase(), namespaced, shortNames, status, scale, categories, review: review ?? false,
  }),
);

export function apiVersionOf(info: KindInfo): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
}

/** Storage/identity key of a resource type: "apps/deployments", "/pods". */
export function resourceKey(info: KindInfo): string {
  return `${info.group}/${info.plural}`;
}

export function findByPath(group: string, version: string, plural: string): KindInfo | undefined {
  return KINDS.find((k) => k.group === group && k.version === version && k.plural === plural);
}

export function findByKind(apiVersion: string, kind: string): KindInfo | undefined {
  return KINDS.find((k) => apiVersionOf(k) === apiVersion && k.kind === kind);
}

/**
 * In-process lookup by the names kubectl accepts: "pods", "pod", "po",
 * "deployments.apps", "Deployment". A bare name prefers the core group.
 */
export function findResource(name: string): KindInfo | undefined {
  const dot = name.indexOf('.');
  const base = (dot < 0 ? name : name.slice(0, dot)).toLowerCase();
  const group = dot < 0 ? undefined : name.slice(dot + 1);
  const matches = KINDS.filter((k) => (group === undefined || k.group === group)
    && (k.plural === base || k.singular === base || k.shortNames.includes(base)));
  return matches.find((k) => k.group === '') ?? matches[0];
}

/** Groups with their versions, in table order (discovery lists them so). */
export function groupVersions(): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const k of KINDS) {
    const versions = groups.get(k.group) ?? [];
    if (!versions.includes(k.version)) versions.push(k.version);
    groups.set(k.group, versions);
  }
  return groups;
}
