// Reading manifests as `kubectl apply -f` does: documents, Lists, folders;
// then sorting them into the builder's Snapshot.

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { snapshotFromManifests } from './manifest-snapshot.ts';
import { ManifestError, parseManifestObjects, readManifests } from './manifests.ts';

const kinds = (text: string): string[] => parseManifestObjects(text, 'x.yaml').map((object) => `${String(object.kind)}/${String(object.metadata?.name)}`);

void describe('parseManifestObjects', () => {
  const rows: { name: string; text: string; want: string[] }[] = [
    { name: 'one document', text: 'kind: Service\nmetadata: {name: a}\n', want: ['Service/a'] },
    { name: 'several documents, empty ones skipped', text: '---\nkind: Service\nmetadata: {name: a}\n---\n---\nkind: Ingress\nmetadata: {name: b}\n', want: ['Service/a', 'Ingress/b'] },
    { name: 'a List is opened into its items', text: 'kind: List\nitems:\n- {kind: Service, metadata: {name: a}}\n- {kind: Ingress, metadata: {name: b}}\n', want: ['Service/a', 'Ingress/b'] },
    { name: 'a typed list (IngressList) too', text: 'kind: IngressList\nitems:\n- {kind: Ingress, metadata: {name: b}}\n', want: ['Ingress/b'] },
    { name: 'a kind ending in List without items is an object', text: 'kind: AllowList\nmetadata: {name: c}\n', want: ['AllowList/c'] },
    { name: 'scalars and arrays are not objects', text: '--- 3\n--- [1, 2]\n---\nkind: Service\nmetadata: {name: a}\n', want: ['Service/a'] },
  ];
  for (const row of rows) void it(row.name, () => assert.deepEqual(kinds(row.text), row.want));

  void it('makes creationTimestamp a Date, as the informer does', () => {
    const [object] = parseManifestObjects('kind: Ingress\nmetadata: {name: a, creationTimestamp: "2024-03-01T10:00:00Z"}\n', 'x.yaml');
    assert.deepEqual(object?.metadata?.creationTimestamp, new Date('2024-03-01T10:00:00Z'));
  });

  void it('a YAML error names the file', () => {
    assert.throws(() => parseManifestObjects('kind: Service\n  bad: [\n', 'apps/x.yaml'), (err: unknown) => err instanceof ManifestError && /^apps\/x\.yaml: /.test(err.message));
  });
});

void describe('readManifests', () => {
  void it('walks folders recursively in name order, reading only *.yaml and *.yml and skipping hidden entries', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'migrate-manifests-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    await mkdir(join(dir, 'b', 'deep'), { recursive: true });
    await mkdir(join(dir, '.git'));
    await writeFile(join(dir, 'b', 'deep', 'z.yml'), 'kind: Service\nmetadata: {name: z}\n');
    await writeFile(join(dir, 'a.yaml'), 'kind: Service\nmetadata: {name: a}\n---\nkind: Service\nmetadata: {name: a2}\n');
    await writeFile(join(dir, 'c.YAML'), 'kind: Service\nmetadata: {name: c}\n');
    await writeFile(join(dir, 'notes.txt'), 'kind: Service\n');
    await writeFile(join(dir, '.git', 'x.yaml'), 'kind: Service\nmetadata: {name: hidden}\n');
    const single = join(dir, 'b', 'deep', 'z.yml');
    const read = await readManifests([dir, single]);
    assert.deepEqual(read.files, [join(dir, 'a.yaml'), join(dir, 'b', 'deep', 'z.yml'), join(dir, 'c.YAML'), single]);
    assert.deepEqual(read.objects.map((item) => item.object.metadata?.name), ['a', 'a2', 'z', 'c', 'z']);
  });

  void it('a missing path is an error', async () => {
    await assert.rejects(readManifests(['/nonexistent/migrate-input']), { code: 'ENOENT' });
  });
});

void describe('snapshotFromManifests', () => {
  const found = parseManifestObjects(`
kind: Ingress
apiVersion: networking.k8s.io/v1
metadata: {name: web}
---
kind: Ingress
apiVersion: extensions/v1beta1
metadata: {name: old, namespace: shop}
---
kind: IngressClass
apiVersion: networking.k8s.io/v1
metadata: {name: nginx}
---
kind: Service
apiVersion: v1
metadata: {name: web, namespace: shop}
---
kind: ConfigMap
apiVersion: v1
metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
---
kind: Deployment
apiVersion: apps/v1
metadata: {name: web}
---
kind: Secret
apiVersion: v1
metadata: {name: tls}
`, 'all.yaml').map((object) => ({ file: 'all.yaml', object }));
  const read = snapshotFromManifests(found, 'team');

  void it('keeps the kinds the builder reads, and gives namespaced ones without a namespace the default', () => {
    const where = (items: readonly { metadata?: { namespace?: string; name?: string } }[]): string[] => items.map((item) => `${item.metadata?.namespace}/${item.metadata?.name}`);
    assert.deepEqual(where(read.snapshot.ingresses), ['team/web']);
    assert.deepEqual(where(read.snapshot.services), ['shop/web']);
    assert.deepEqual(where(read.snapshot.configMaps), ['ingress-nginx/ingress-nginx-controller']);
    assert.deepEqual(where(read.snapshot.ingressClasses), ['undefined/nginx'], 'cluster-scoped: no namespace added');
    assert.deepEqual(read.snapshot.secrets, [], 'Secrets are never read');
  });

  void it('skips an Ingress of a removed apiVersion, saying why, and counts other kinds', () => {
    assert.equal(read.skipped.length, 1);
    assert.equal(read.skipped[0]?.name, 'old');
    assert.match(read.skipped[0]?.why ?? '', /extensions\/v1beta1.*networking\.k8s\.io\/v1/);
    assert.equal(read.otherObjects, 2);
  });
});
