// The store reads ConfigMaps by name only (watch-targets.ts): one list/watch
// per named ConfigMap, narrowed by `metadata.name`, in its own namespace, with
// the same resilience as every informer (resume after a dropped watch, relist
// after 410 Gone). Other ConfigMaps are never requested.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';

import { pino } from 'pino';

import type { Snapshot } from '../model/types.ts';
import type { KindName } from './kinds.ts';
import { createStore } from './store.ts';
import type { Store } from './store.ts';
import { FakeApiServer } from './testing/fake-api-server.ts';
import type { FakeObject } from './testing/fake-api-server.ts';
import type { ObjectRef } from './watch-targets.ts';

const FAST_BACKOFF = { initialMs: 20, maxMs: 200, jitter: 0 };
const OWN: ObjectRef = { namespace: 'ingress', name: 'resty' };

function configMap(namespace: string, name: string, data: Record<string, string> = {}): FakeObject {
  return { metadata: { name, namespace, creationTimestamp: '2024-05-01T10:00:00Z' }, data };
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const configMapsOf = (snapshot: Snapshot): string[] =>
  snapshot.configMaps.map((cm) => `${cm.metadata?.namespace}/${cm.metadata?.name}:${JSON.stringify(cm.data ?? {})}`);

void describe('ConfigMaps read by name', () => {
  let server: FakeApiServer;
  let store: Store | undefined;
  let changes: KindName[];

  beforeEach(async () => {
    server = await FakeApiServer.start();
    server.upsert('configmaps', configMap('ingress', 'resty', { 'proxy-body-size': '1k' }));
    server.upsert('configmaps', configMap('ingress', 'someone-else'));
    server.upsert('configmaps', configMap('apps', 'resty'));
    changes = [];
  });
  afterEach(async () => {
    await store?.stop();
    store = undefined;
    await server.close();
  });

  async function start(configMaps: readonly ObjectRef[], namespace: string | null = null): Promise<Store> {
    store = createStore(server.kubeConfig(), {
      logger: pino({ level: 'silent' }), onChange: (kind) => changes.push(kind), backoff: FAST_BACKOFF, namespace, configMaps,
    });
    await store.waitForInitialSync();
    changes.length = 0; // the initial list's adds
    return store;
  }

  const configMapRequests = (): { path: string; watch: boolean; selector: string | null }[] => server.requests
    .filter((r) => r.path.endsWith('/configmaps'))
    .map((r) => ({ path: r.path, watch: r.watch, selector: r.query.get('fieldSelector') }));

  void it('lists and watches only the named ConfigMap, narrowed by metadata.name in its namespace', async () => {
    const live = await start([OWN], 'apps');
    assert.deepEqual(configMapsOf(live.snapshot()), ['ingress/resty:{"proxy-body-size":"1k"}']);
    await waitFor('the watch', () => configMapRequests().some((r) => r.watch));
    const wanted = { path: '/api/v1/namespaces/ingress/configmaps', selector: 'metadata.name=resty' };
    assert.deepEqual(configMapRequests(), [{ ...wanted, watch: false }, { ...wanted, watch: true }]);

    server.upsert('configmaps', configMap('ingress', 'someone-else', { x: '1' }));
    server.upsert('configmaps', configMap('apps', 'resty', { x: '1' }));
    server.upsert('configmaps', configMap('ingress', 'resty', { 'proxy-body-size': '8k' }));
    await waitFor('the update', () => live.snapshot().configMaps[0]?.data?.['proxy-body-size'] === '8k');
    assert.deepEqual(changes, ['ConfigMap'], 'other ConfigMaps\' changes never arrive');
  });

  void it('sees the named ConfigMap deleted and created again', async () => {
    const live = await start([OWN]);
    server.remove('configmaps', 'ingress', 'resty');
    await waitFor('the delete', () => live.snapshot().configMaps.length === 0);
    server.upsert('configmaps', configMap('ingress', 'resty', { 'http-redirect-code': '301' }));
    await waitFor('the new one', () => configMapsOf(live.snapshot()).join() === 'ingress/resty:{"http-redirect-code":"301"}');
    assert.deepEqual(changes, ['ConfigMap', 'ConfigMap']);
  });

  void it('resumes after a dropped watch with the same selector', async () => {
    const live = await start([OWN]);
    await waitFor('the watch', () => server.openWatchCount() === 6);
    server.dropWatches('destroy');
    server.upsert('configmaps', configMap('ingress', 'resty', { 'proxy-body-size': '2k' }));
    await waitFor('the change after the drop', () => live.snapshot().configMaps[0]?.data?.['proxy-body-size'] === '2k');
    await waitFor('the watch again', () => server.openWatchCount() === 6);
    const watches = configMapRequests().filter((r) => r.watch);
    assert.ok(watches.length >= 2 && watches.every((r) => r.selector === 'metadata.name=resty'), JSON.stringify(watches));
  });

  void it('relists after 410 Gone with the same selector, catching a delete the watch never delivered', async () => {
    const live = await start([OWN]);
    await waitFor('the watch', () => server.openWatchCount() === 6);
    server.remove('configmaps', 'ingress', 'resty', true);
    server.expireHistory();
    await waitFor('the relisted (empty) ConfigMap', () => live.snapshot().configMaps.length === 0);
    const lists = configMapRequests().filter((r) => !r.watch);
    assert.deepEqual(lists.map((r) => r.selector), ['metadata.name=resty', 'metadata.name=resty']);
    assert.deepEqual(changes, ['ConfigMap'], 'the delete is reported');
  });

  void it('several names: one informer each, their union in the snapshot', async () => {
    server.upsert('configmaps', configMap('ingress', 'tcp', { 9000: 'apps/db:5432' }));
    const live = await start([OWN, { namespace: 'ingress', name: 'tcp' }, OWN]);
    assert.deepEqual(configMapsOf(live.snapshot()), ['ingress/resty:{"proxy-body-size":"1k"}', 'ingress/tcp:{"9000":"apps/db:5432"}']);
    assert.equal(configMapRequests().filter((r) => !r.watch).length, 2, 'a duplicate name is watched once');
  });

  void it('no ConfigMap named: none is listed or watched, and the snapshot has none', async () => {
    const live = await start([]);
    await waitFor('five watches', () => server.openWatchCount() === 5);
    assert.deepEqual(configMapRequests(), []);
    assert.deepEqual(live.snapshot().configMaps, []);
    assert.ok(Object.isFrozen(live.snapshot().configMaps));
  });

  void it('ConfigMaps Ingresses name: watched by name once named, and no more once no Ingress names them', async () => {
    server.upsert('configmaps', configMap('apps', 'fcgi-params', { SCRIPT_FILENAME: '/srv/index.php' }));
    const live = await start([OWN]);
    const params = { namespace: 'apps', name: 'fcgi-params' };
    live.watchReferencedConfigMaps([params, OWN]);
    await waitFor('the named ConfigMap in the snapshot', () => live.snapshot().configMaps.length === 2);
    assert.deepEqual(configMapsOf(live.snapshot()), ['apps/fcgi-params:{"SCRIPT_FILENAME":"/srv/index.php"}', 'ingress/resty:{"proxy-body-size":"1k"}']);
    const lists = (): (string | null)[] => configMapRequests().filter((r) => !r.watch).map((r) => `${r.path} ${r.selector}`);
    assert.deepEqual(lists(), ['/api/v1/namespaces/ingress/configmaps metadata.name=resty', '/api/v1/namespaces/apps/configmaps metadata.name=fcgi-params'],
      'the flag\'s own ConfigMap is not listed twice');
    live.watchReferencedConfigMaps([params]);
    assert.equal(lists().length, 2, 'the same set again starts nothing');
    server.upsert('configmaps', configMap('apps', 'fcgi-params', { SCRIPT_FILENAME: '/srv/app.php' }));
    await waitFor('the update', () => configMapsOf(live.snapshot()).includes('apps/fcgi-params:{"SCRIPT_FILENAME":"/srv/app.php"}'));
    changes.length = 0;
    live.watchReferencedConfigMaps([]);
    assert.deepEqual(configMapsOf(live.snapshot()), ['ingress/resty:{"proxy-body-size":"1k"}'], 'gone from the snapshot at once');
    assert.deepEqual(changes, ['ConfigMap'], 'and a sync is kicked');
  });
});
