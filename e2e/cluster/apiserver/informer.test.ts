// A @kubernetes/client-node informer against the local API server: it
// lists, watches, resumes after dropped watches, and relists after 410.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { startApiServer } from './server.ts';

async function until(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

void test('client-node informer sees adds, updates, deletes across dropped and expired watches', async () => {
  const server = await startApiServer({ rbac: true, bookmarkIntervalMs: 200 });
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfigFor());
  const core = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1ConfigMap>(kc, '/api/v1/namespaces/default/configmaps',
    () => core.listNamespacedConfigMap({ namespace: 'default' }));
  const seen: string[] = [];
  const errors: unknown[] = [];
  informer.on('add', (o) => seen.push(`add:${o.metadata?.name}`));
  informer.on('update', (o) => seen.push(`update:${o.metadata?.name}:${o.data?.v}`));
  informer.on('delete', (o) => seen.push(`delete:${o.metadata?.name}`));
  informer.on('error', (err) => errors.push(err));
  const store = server.store;
  try {
    store.create('configmaps', { metadata: { name: 'before', namespace: 'default' }, data: { v: '0' } });
    await informer.start();
    await until('initial list', () => seen.includes('add:before'));
    const a = store.create('configmaps', { metadata: { name: 'a', namespace: 'default' }, data: { v: '1' } });
    await until('add', () => seen.includes('add:a'));
    store.update('configmaps', { ...a, data: { v: '2' } });
    await until('update', () => seen.includes('update:a:2'));

    server.dropWatches();
    store.patch('configmaps', 'default', 'a', 'merge', { data: { v: '3' } });
    await until('update after a dropped watch', () => seen.includes('update:a:3'));

    store.delete('configmaps', 'default', 'before');
    server.expireResourceVersions();
    server.dropWatches();
    store.create('configmaps', { metadata: { name: 'after-410', namespace: 'default' } });
    await until('relist after 410', () => informer.list().some((o) => o.metadata?.name === 'after-410'));
    assert.deepEqual(informer.list().map((o) => o.metadata?.name).sort(), ['a', 'after-410'], 'the cache matches the server after relisting');
    assert.deepEqual(errors, [], 'no informer errors');
  } finally {
    await informer.stop();
    await server.stop();
  }
});
