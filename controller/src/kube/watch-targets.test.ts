// watchTargets: every kind's collection once, and the kinds read by name
// only as the objects named, each in its own namespace.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { KINDS } from './kinds.ts';
import type { KindName } from './kinds.ts';
import { parseObjectRef, watchTargets } from './watch-targets.ts';
import type { ObjectRef } from './watch-targets.ts';

/** A target as `Kind namespace|* [selector]`, for readable expectations. */
function describeTargets(namespace: string | null, configMaps: readonly ObjectRef[]): string[] {
  const named = new Map<KindName, readonly ObjectRef[]>([['ConfigMap', configMaps]]);
  return watchTargets(KINDS, namespace, named).map(({ descriptor, scope }) =>
    `${descriptor.kind} ${scope.namespace ?? '*'}${scope.fieldSelector === undefined ? '' : ` ${scope.fieldSelector}`}`);
}

const COLLECTIONS_EVERYWHERE = ['Ingress *', 'IngressClass *', 'Service *', 'EndpointSlice *', 'Secret *'];
const COLLECTIONS_IN_APPS = ['Ingress apps', 'IngressClass *', 'Service apps', 'EndpointSlice apps', 'Secret apps'];

const rows: { name: string; namespace: string | null; configMaps: ObjectRef[]; want: string[] }[] = [
  { name: 'no ConfigMap named: none is listed or watched', namespace: null, configMaps: [], want: COLLECTIONS_EVERYWHERE },
  {
    name: 'the controller\'s ConfigMap, by name, in its namespace',
    namespace: null, configMaps: [{ namespace: 'ingress', name: 'resty' }],
    want: [...COLLECTIONS_EVERYWHERE, 'ConfigMap ingress metadata.name=resty'],
  },
  {
    name: '--watch-namespace narrows the collections, not the named ConfigMap',
    namespace: 'apps', configMaps: [{ namespace: 'ingress', name: 'resty' }],
    want: [...COLLECTIONS_IN_APPS, 'ConfigMap ingress metadata.name=resty'],
  },
  {
    name: 'several names (e.g. the TCP/UDP services ones), duplicates once',
    namespace: null,
    configMaps: [{ namespace: 'ingress', name: 'resty' }, { namespace: 'ingress', name: 'tcp' }, { namespace: 'ingress', name: 'resty' }],
    want: [...COLLECTIONS_EVERYWHERE, 'ConfigMap ingress metadata.name=resty', 'ConfigMap ingress metadata.name=tcp'],
  },
];

void describe('watchTargets', () => {
  for (const row of rows) {
    void it(row.name, () => {
      assert.deepEqual(describeTargets(row.namespace, row.configMaps), row.want);
    });
  }
});

void describe('parseObjectRef', () => {
  void it('splits namespace/name', () => {
    assert.deepEqual(parseObjectRef('ingress/resty-config'), { namespace: 'ingress', name: 'resty-config' });
  });
  for (const bad of ['resty', '/resty', 'ingress/', 'a/b/c', '']) {
    void it(`refuses ${JSON.stringify(bad)}`, () => {
      assert.throws(() => parseObjectRef(bad), /expected namespace\/name/);
    });
  }
});
