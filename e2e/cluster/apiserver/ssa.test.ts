import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldSetOf, serverSideApply } from './ssa.ts';
import type { JsonObject } from './patch.ts';

const deployment = (env: { name: string; value: string }[], labels: Record<string, string>): JsonObject => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels },
  spec: { replicas: 2, template: { spec: { containers: [{ name: 'web', image: 'nginx', env }] } } },
});

void test('fieldSetOf names map keys, keyed list elements and atomic lists', () => {
  const set = fieldSetOf({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', labels: { a: '1' } }, spec: { ports: [{ port: 80 }], externalIPs: ['1.2.3.4'] } });
  assert.deepEqual(set, {
    'f:metadata': { 'f:labels': { 'f:a': {} } },
    'f:spec': { 'f:ports': { 'k:{"port":80}': { 'f:port': {} } }, 'f:externalIPs': {} },
  });
});

void test('re-applying removes what the same manager dropped and keeps what others set', () => {
  const rows: { name: string; manager: string; want: { env: string[]; labels: Record<string, string> } }[] = [
    { name: 'same manager drops B and label x', manager: 'helm', want: { env: ['A'], labels: { app: 'web', other: 'kept' } } },
    { name: 'another manager removes nothing', manager: 'kubectl', want: { env: ['A', 'B'], labels: { app: 'web', x: '1', other: 'kept' } } },
  ];
  for (const row of rows) {
    let obj = serverSideApply(undefined, deployment([{ name: 'A', value: '1' }, { name: 'B', value: '2' }], { app: 'web', x: '1' }), 'helm');
    (obj.metadata as { labels: Record<string, string> }).labels.other = 'kept';
    obj = serverSideApply(obj, deployment([{ name: 'A', value: '3' }], { app: 'web' }), row.manager);
    const container = ((obj.spec as JsonObject).template as { spec: { containers: { env: { name: string; value: string }[] }[] } }).spec.containers[0];
    assert.deepEqual(container.env.map((e) => e.name), row.want.env, row.name);
    assert.equal(container.env[0].value, '3', row.name);
    assert.deepEqual((obj.metadata as JsonObject).labels, row.want.labels, row.name);
    assert.equal((obj.spec as JsonObject).replicas, 2, row.name);
    const managers = ((obj.metadata as JsonObject).managedFields as { manager: string }[]).map((e) => e.manager).sort();
    assert.deepEqual(managers, [...new Set(['helm', row.manager])].sort(), row.name);
  }
});
