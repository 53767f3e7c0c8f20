// Discovery documents derived from the kind table: /version, /api, /apis,
// and the APIResourceList of each group version. Clients that ask for
// aggregated discovery (apidiscovery.k8s.io/v2) get these plain documents
// with a plain application/json content type, and fall back to them.
import { apiVersionOf, groupVersions, KINDS, type KindInfo } from './kinds.ts';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export interface VersionInfo {
  readonly major: string; readonly minor: string; readonly gitVersion: string; readonly gitCommit: string;
  readonly gitTreeState: string; readonly buildDate: string; readonly goVersion: string;
  readonly compiler: string; readonly platform: string;
}

export function versionInfo(): VersionInfo {
  return {
    major: '1', minor: '32', gitVersion: 'v1.32.0-resty-e2e', gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean', buildDate: '2025-01-01T00:00:00Z', goVersion: 'go1.23', compiler: 'gc', platform: 'linux/amd64',
  };
}

export function coreVersions(serverAddress: string): object {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groupDoc(name: string, versions: readonly string[]): object {
  const list = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: list, preferredVersion: list[0] };
}

export function apiGroupList(): object {
  const groups = [...groupVersions()].filter(([g]) => g !== '').map(([g, versions]) => groupDoc(g, versions));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

export function apiGroup(group: string): object | undefined {
  const versions = groupVersions().get(group);
  if (!versions || group === '') return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(group, versions) };
}

function resourceEntries(k: KindInfo): object[] {
  const main = {
    name: k.plural, singularName: k.singular, namespaced: k.namespaced, kind: k.kind, verbs: k.review ? ['create'] : VERBS,
    ...(k.shortNames.length ? { shortNames: k.shortNames } : {}),
    ...(k.categories.length ? { categories: k.categories } : {}),
    storageVersionHash: Buffer.from(`${apiVersionOf(k)}/${k.kind}`).toString('base64').slice(0, 11),
  };
  const subs: object[] = [];
  if (k.status) subs.push({ name: `${k.plural}/status`, singularName: '', namespaced: k.namespaced, kind: k.kind, verbs: ['get', 'patch', 'update'] });
  if (k.scale) subs.push({ name: `${k.plural}/scale`, singularName: '', namespaced: k.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
  return [main, ...subs];
}

/** APIResourceList for one group version, or undefined when it is not served. */
export function apiResourceList(group: string, version: string): object | undefined {
  const kinds = KINDS.filter((k) => k.group === group && k.version === version);
  if (kinds.length === 0) return undefined;
  return {
    kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version,
    resources: kinds.flatMap(resourceEntries),
  };
}
