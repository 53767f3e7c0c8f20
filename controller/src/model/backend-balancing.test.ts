// How Ingresses set a Backend's balancing (Backend.loadBalance and
// Backend.hash) through the real builder: upstream-hash-by with and without
// subsets, the ConfigMap's load-balance under the annotation, the default
// backend of an Ingress, and the oldest Ingress deciding when several route to
// one Service port (as in ingress-nginx, whose upstream takes the config of the
// Ingress that made it first), with a warning to a newer Ingress whose
// upstream-hash-by is not used.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1Ingress } from '@kubernetes/client-node';
import { buildModel } from './build.ts';
import { ann, configMap, ingress, options, path, rule, service, snapshot, svc } from './testdata/fixtures.ts';
import { findBackend } from './testdata/inspect.ts';
import type { Backend, Failure } from './types.ts';

const web = service('web', [{ port: 80 }]);

function withAnnotations(name: string, created: string, annotations: Record<string, string>, host = `${name}.example`): V1Ingress {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [ann(key), value]));
  return ingress(name, { created, annotations: prefixed, rules: [rule(host, path('/', svc('web', 80)))] });
}

interface Row {
  readonly name: string;
  readonly ingresses: readonly V1Ingress[];
  readonly configMap?: Record<string, string>;
  readonly want: Pick<Backend, 'loadBalance' | 'hash'>;
  /** `reason ingress` of each warning. */
  readonly warnings?: readonly string[];
}

const OLD = '2024-01-01T00:00:00Z';
const NEW = '2024-02-01T00:00:00Z';

const rows: readonly Row[] = [
  { name: 'nothing set: round robin, no hash', ingresses: [withAnnotations('a', OLD, {})], want: { loadBalance: 'round_robin', hash: null } },
  {
    name: 'upstream-hash-by: one endpoint per key', ingresses: [withAnnotations('a', OLD, { 'upstream-hash-by': '$request_uri' })],
    want: { loadBalance: 'round_robin', hash: { by: '$request_uri', subsetSize: null } },
  },
  {
    name: 'with subset: subsets of the default size 3', ingresses: [withAnnotations('a', OLD, { 'upstream-hash-by': '$remote_addr', 'upstream-hash-by-subset': 'true' })],
    want: { loadBalance: 'round_robin', hash: { by: '$remote_addr', subsetSize: 3 } },
  },
  {
    name: 'with subset and a size', ingresses: [withAnnotations('a', OLD, { 'upstream-hash-by': '$remote_addr', 'upstream-hash-by-subset': 'true', 'upstream-hash-by-subset-size': '5' })],
    want: { loadBalance: 'round_robin', hash: { by: '$remote_addr', subsetSize: 5 } },
  },
  {
    name: 'a size without subset: no subsets', ingresses: [withAnnotations('a', OLD, { 'upstream-hash-by': '$uri', 'upstream-hash-by-subset-size': '5' })],
    want: { loadBalance: 'round_robin', hash: { by: '$uri', subsetSize: null } },
  },
  { name: 'subset without upstream-hash-by: no hash', ingresses: [withAnnotations('a', OLD, { 'upstream-hash-by-subset': 'true' })], want: { loadBalance: 'round_robin', hash: null } },
  {
    name: 'hash and ewma: both kept (Lua hashes first)', ingresses: [withAnnotations('a', OLD, { 'upstream-hash-by': '$uri', 'load-balance': 'ewma' })],
    want: { loadBalance: 'ewma', hash: { by: '$uri', subsetSize: null } },
  },
  { name: 'the ConfigMap\'s load-balance', ingresses: [withAnnotations('a', OLD, {})], configMap: { 'load-balance': 'ewma' }, want: { loadBalance: 'ewma', hash: null } },
  {
    name: 'the annotation beats the ConfigMap', ingresses: [withAnnotations('a', OLD, { 'load-balance': 'round_robin' })], configMap: { 'load-balance': 'ewma' },
    want: { loadBalance: 'round_robin', hash: null },
  },
  {
    name: 'two Ingresses disagree: the older one\'s hash, a warning to the newer',
    ingresses: [withAnnotations('b', NEW, { 'upstream-hash-by': '$host' }), withAnnotations('a', OLD, { 'upstream-hash-by': '$request_uri' })],
    want: { loadBalance: 'round_robin', hash: { by: '$request_uri', subsetSize: null } }, warnings: ['UpstreamHashConflict default/b'],
  },
  {
    name: 'the same key, another subset size: the older one\'s, a warning',
    ingresses: [withAnnotations('a', OLD, { 'upstream-hash-by': '$uri' }), withAnnotations('b', NEW, { 'upstream-hash-by': '$uri', 'upstream-hash-by-subset': 'true' })],
    want: { loadBalance: 'round_robin', hash: { by: '$uri', subsetSize: null } }, warnings: ['UpstreamHashConflict default/b'],
  },
  {
    name: 'the older Ingress hashes, the newer sets nothing: hashed, no warning',
    ingresses: [withAnnotations('a', OLD, { 'upstream-hash-by': '$uri' }), withAnnotations('b', NEW, {})],
    want: { loadBalance: 'round_robin', hash: { by: '$uri', subsetSize: null } },
  },
  {
    name: 'the older Ingress sets nothing, the newer hashes: not hashed, a warning',
    ingresses: [withAnnotations('a', OLD, {}), withAnnotations('b', NEW, { 'upstream-hash-by': '$uri' })],
    want: { loadBalance: 'round_robin', hash: null }, warnings: ['UpstreamHashConflict default/b'],
  },
  {
    name: 'the same hash on both: no warning',
    ingresses: [withAnnotations('a', OLD, { 'upstream-hash-by': '$uri' }), withAnnotations('b', NEW, { 'upstream-hash-by': '$uri' })],
    want: { loadBalance: 'round_robin', hash: { by: '$uri', subsetSize: null } },
  },
  {
    name: 'an Ingress\'s spec.defaultBackend hashes as its Ingress says',
    ingresses: [ingress('d', { created: OLD, annotations: { [ann('upstream-hash-by')]: '$cookie_user' }, defaultBackend: svc('web', 80) })],
    want: { loadBalance: 'round_robin', hash: { by: '$cookie_user', subsetSize: null } },
  },
];

const warningsOf = (failures: readonly Failure[]): string[] =>
  failures.filter((f) => f.warning === true && f.reason === 'UpstreamHashConflict').map((f) => `${f.reason} ${f.ingress?.namespace}/${f.ingress?.name}`);

void describe('backend balancing from Ingresses', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const configMaps = row.configMap === undefined ? [] : [configMap(row.configMap)];
      const result = buildModel(snapshot({ ingresses: [...row.ingresses], services: [web], configMaps }), options(row.configMap ? { configMap: 'ingress/resty-ingress' } : {}));
      const backend = findBackend(result, 'default-web-80');
      assert.deepEqual({ loadBalance: backend?.loadBalance, hash: backend?.hash }, row.want);
      assert.deepEqual(warningsOf(result.failures), row.warnings ?? []);
      assert.deepEqual(result.failures.filter((f) => f.warning !== true).map((f) => f.reason), []);
    });
  }
});
