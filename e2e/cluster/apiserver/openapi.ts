// The OpenAPI v3 documents kubectl reads before it writes. kubectl's
// default `--validate=strict` asks /openapi/v3 whether the PATCH operation
// of each kind takes the `fieldValidation` query parameter; when it does,
// validation is left to the server and no client-side schema is needed.
// So each group version document lists, per kind, the object path with a
// PATCH operation tagged with its group/version/kind and that parameter.
// Without these documents `kubectl apply` fails with "failed to download
// openapi" unless run with --validate=false.
import { createHash } from 'node:crypto';
import { groupVersions, KINDS, type KindInfo } from './kinds.ts';

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

function objectPath(k: KindInfo): string {
  const base = `/${gvPath(k.group, k.version)}`;
  return k.namespaced ? `${base}/namespaces/{namespace}/${k.plural}/{name}` : `${base}/${k.plural}/{name}`;
}

function queryParam(name: string): object {
  return { name, in: 'query', schema: { type: 'string', uniqueItems: true } };
}

function gvDocument(group: string, version: string): object {
  const paths: Record<string, object> = {};
  for (const k of KINDS.filter((x) => x.group === group && x.version === version)) {
    const gvk = { group: k.group, version: k.version, kind: k.kind };
    const op = (action: string): object => ({
      'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk,
      parameters: [queryParam('dryRun'), queryParam('fieldManager'), queryParam('fieldValidation')],
      responses: { 200: { description: 'OK' } },
    });
    paths[objectPath(k)] = { get: op('get'), put: op('put'), patch: op('patch'), delete: op('delete') };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas: {} },
  };
}

function hashOf(doc: object): string {
  return createHash('sha256').update(JSON.stringify(doc)).digest('hex').slice(0, 32).toUpperCase();
}

/** The document served at `path` (/openapi/v3 or /openapi/v3/<gv>), or undefined (404). */
export function openApiDocument(path: string): object | undefined {
  const gvs = [...groupVersions()].flatMap(([group, versions]) => versions.map((version) => ({ group, version })));
  if (path === '/openapi/v3') {
    const paths: Record<string, object> = {};
    for (const { group, version } of gvs) {
      const rel = gvPath(group, version);
      paths[rel] = { serverRelativeURL: `/openapi/v3/${rel}?hash=${hashOf(gvDocument(group, version))}` };
    }
    return { paths };
  }
  const match = gvs.find(({ group, version }) => path === `/openapi/v3/${gvPath(group, version)}`);
  return match ? gvDocument(match.group, match.version) : undefined;
}
