// dropUnreadFields: what the caches never read is gone, everything else stays.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { KubernetesObject } from '@kubernetes/client-node';

import { dropUnreadFields, LAST_APPLIED_ANNOTATION } from './kinds.ts';

const MANAGED = [{ manager: 'kubectl', operation: 'Apply' }];

const rows: { name: string; object: KubernetesObject; want: KubernetesObject }[] = [
  { name: 'no metadata', object: { kind: 'Service' }, want: { kind: 'Service' } },
  { name: 'nothing to drop', object: { metadata: { name: 'a', annotations: { x: '1' } } }, want: { metadata: { name: 'a', annotations: { x: '1' } } } },
  { name: 'managedFields', object: { metadata: { name: 'a', managedFields: MANAGED } }, want: { metadata: { name: 'a', managedFields: undefined } } },
  {
    name: 'last-applied among other annotations',
    object: { metadata: { name: 'a', annotations: { [LAST_APPLIED_ANNOTATION]: '{}', 'nginx.ingress.kubernetes.io/ssl-redirect': 'false' } } },
    want: { metadata: { name: 'a', annotations: { 'nginx.ingress.kubernetes.io/ssl-redirect': 'false' } } },
  },
  {
    name: 'both, with spec untouched',
    object: { metadata: { name: 'a', managedFields: MANAGED, annotations: { [LAST_APPLIED_ANNOTATION]: '{}' } }, spec: { ports: [80] } } as KubernetesObject,
    want: { metadata: { name: 'a', managedFields: undefined, annotations: {} }, spec: { ports: [80] } } as KubernetesObject,
  },
];

void describe('dropUnreadFields', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const object = structuredClone(row.object);
      assert.equal(dropUnreadFields(object), object, 'in place');
      assert.deepStrictEqual(object, row.want);
    });
  }
});
