import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch, jsonPatch, mergePatch, patchKindOf, type Json, type JsonObject } from './patch.ts';

const deployment: JsonObject = {
  metadata: { name: 'web', labels: { app: 'web' }, finalizers: ['a'] },
  spec: {
    replicas: 1,
    template: { spec: { containers: [
      { name: 'web', image: 'nginx:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80 }] },
      { name: 'side', image: 'busybox' },
    ] } },
  },
};
const containers = (obj: Json): JsonObject[] => (((obj as JsonObject).spec as JsonObject).template as { spec: { containers: JsonObject[] } }).spec.containers;

void test('merge patch (RFC 7386)', () => {
  const out = mergePatch(deployment, { metadata: { labels: { app: null, tier: 'x' } }, spec: { replicas: 3 } }) as JsonObject;
  assert.deepEqual((out.metadata as JsonObject).labels, { tier: 'x' });
  assert.equal((out.spec as JsonObject).replicas, 3);
  assert.equal(containers(out).length, 2, 'untouched fields stay');
  assert.equal(((deployment.spec as JsonObject).replicas), 1, 'input not mutated');
});

void test('json patch (RFC 6902) operations', () => {
  const rows: { name: string; ops: Json; check: (out: JsonObject) => void }[] = [
    { name: 'replace', ops: [{ op: 'replace', path: '/spec/replicas', value: 5 }], check: (o) => assert.equal((o.spec as JsonObject).replicas, 5) },
    { name: 'add to array end', ops: [{ op: 'add', path: '/metadata/finalizers/-', value: 'b' }], check: (o) => assert.deepEqual((o.metadata as JsonObject).finalizers, ['a', 'b']) },
    { name: 'remove', ops: [{ op: 'remove', path: '/metadata/labels/app' }], check: (o) => assert.deepEqual((o.metadata as JsonObject).labels, {}) },
    { name: 'escaped pointer', ops: [{ op: 'add', path: '/metadata/labels/a~1b', value: 'x' }], check: (o) => assert.equal(((o.metadata as JsonObject).labels as JsonObject)['a/b'], 'x') },
    { name: 'test then copy', ops: [{ op: 'test', path: '/spec/replicas', value: 1 }, { op: 'copy', from: '/spec/replicas', path: '/spec/minReadySeconds' }], check: (o) => assert.equal((o.spec as JsonObject).minReadySeconds, 1) },
    { name: 'move', ops: [{ op: 'move', from: '/metadata/labels', path: '/metadata/annotations' }], check: (o) => assert.deepEqual((o.metadata as JsonObject).annotations, { app: 'web' }) },
  ];
  for (const row of rows) row.check(jsonPatch(deployment, row.ops) as JsonObject);
  const failing: { name: string; ops: Json; code: number }[] = [
    { name: 'failed test', ops: [{ op: 'test', path: '/spec/replicas', value: 9 }], code: 422 },
    { name: 'missing path', ops: [{ op: 'replace', path: '/spec/nope/x', value: 1 }], code: 422 },
    { name: 'not an array', ops: { op: 'add' }, code: 400 },
    { name: 'unknown op', ops: [{ op: 'frob', path: '/a' }], code: 400 },
  ];
  for (const row of failing) assert.throws(() => jsonPatch(deployment, row.ops), (e: { code?: number }) => e.code === row.code, row.name);
});

void test('strategic merge patch merges lists by their patch merge key', () => {
  const out = applyPatch('strategic', deployment, {
    metadata: { finalizers: ['b'] },
    spec: { template: { spec: { containers: [
      { name: 'web', image: 'nginx:2', env: [{ name: 'B', value: '3' }, { name: 'C', value: '4' }], ports: [{ containerPort: 80, name: 'http' }] },
    ] } } },
  }) as JsonObject;
  const [web, side] = containers(out);
  assert.equal(web.image, 'nginx:2');
  assert.deepEqual(web.env, [{ name: 'A', value: '1' }, { name: 'B', value: '3' }, { name: 'C', value: '4' }]);
  assert.deepEqual(web.ports, [{ containerPort: 80, name: 'http' }]);
  assert.equal(side.name, 'side', 'the other container survives');
  assert.deepEqual((out.metadata as JsonObject).finalizers, ['a', 'b'], 'finalizers are a merged set');
});

void test('strategic merge directives used by kubectl apply', () => {
  const out = applyPatch('strategic', deployment, {
    spec: { template: { spec: {
      containers: [{ name: 'side', $patch: 'delete' }, { name: 'web', env: [{ name: 'A', $patch: 'delete' }] }],
    } } },
  }) as JsonObject;
  assert.deepEqual(containers(out).map((c) => c.name), ['web']);
  assert.deepEqual(containers(out)[0].env, [{ name: 'B', value: '2' }]);
  const ordered = applyPatch('strategic', deployment, { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'side' }, { name: 'web' }] } } } }) as JsonObject;
  assert.deepEqual(containers(ordered).map((c) => c.name), ['side', 'web']);
  const replaced = applyPatch('strategic', deployment, { metadata: { labels: { $patch: 'replace', only: 'this' } } }) as JsonObject;
  assert.deepEqual((replaced.metadata as JsonObject).labels, { only: 'this' });
  const removedPrimitive = applyPatch('strategic', deployment, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }) as JsonObject;
  assert.deepEqual((removedPrimitive.metadata as JsonObject).finalizers, []);
  const service = applyPatch('strategic', { spec: { ports: [{ port: 80, name: 'a' }, { port: 443, name: 'b' }] } }, { spec: { ports: [{ port: 443, targetPort: 8443 }] } }) as JsonObject;
  assert.deepEqual((service.spec as JsonObject).ports, [{ port: 80, name: 'a' }, { port: 443, name: 'b', targetPort: 8443 }]);
  assert.throws(() => applyPatch('strategic', deployment, { spec: { template: { spec: { containers: [{ image: 'x' }] } } } }), (e: { code?: number }) => e.code === 400);
});

void test('patch content types', () => {
  const rows: { name: string; type: string | undefined; want: string | number }[] = [
    { name: 'merge', type: 'application/merge-patch+json', want: 'merge' },
    { name: 'json', type: 'application/json-patch+json; charset=utf-8', want: 'json' },
    { name: 'strategic', type: 'application/strategic-merge-patch+json', want: 'strategic' },
    { name: 'server-side apply', type: 'application/apply-patch+yaml', want: 'apply' },
    { name: 'plain json is not a patch type', type: 'application/json', want: 415 },
    { name: 'missing', type: undefined, want: 415 },
  ];
  for (const row of rows) {
    if (typeof row.want === 'string') assert.equal(patchKindOf(row.type), row.want, row.name);
    else assert.throws(() => patchKindOf(row.type), (e: { code?: number }) => e.code === row.want, row.name);
  }
});
