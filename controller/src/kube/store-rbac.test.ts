// The store against the local API server with RBAC enforced, as an account
// whose only ConfigMap right is list/watch of one ConfigMap by name (what the
// chart grants): the store syncs and follows that ConfigMap, while the same
// account is refused every other ConfigMap read. The local API server
// authorizes a list/watch narrowed by metadata.name as kube-apiserver does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';

import { startApiServer, type ApiServer } from '../../../e2e/cluster/apiserver/index.ts';
import { createStore } from './store.ts';

const RBAC = 'rbac.authorization.k8s.io';
const ACCOUNT = 'system:serviceaccount:ingress:ctl';

/** Rejects after `ms` so a store that can never sync fails the test instead of hanging it. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms); });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

void describe('store with RBAC: one ConfigMap by name', () => {
  let api: ApiServer;
  let kc: KubeConfig;
  before(async () => {
    api = await startApiServer({ rbac: true });
    const { store } = api;
    for (const ns of ['ingress', 'apps']) store.create('namespaces', { metadata: { name: ns } });
    store.create('configmaps', { metadata: { namespace: 'ingress', name: 'resty' }, data: { 'proxy-body-size': '1k' } });
    store.create('configmaps', { metadata: { namespace: 'ingress', name: 'other' }, data: { secret: 'x' } });
    store.create(`clusterroles.${RBAC}`, { metadata: { name: 'ctl' }, rules: [
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'ingressclasses'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['services', 'secrets'], verbs: ['list', 'watch'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
    ] });
    store.create(`clusterrolebindings.${RBAC}`, { metadata: { name: 'ctl' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'ctl' }, subjects: [{ kind: 'ServiceAccount', name: 'ctl', namespace: 'ingress' }] });
    store.create(`roles.${RBAC}`, { metadata: { namespace: 'ingress', name: 'ctl-config' }, rules: [
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['resty'], verbs: ['list', 'watch'] },
    ] });
    store.create(`rolebindings.${RBAC}`, { metadata: { namespace: 'ingress', name: 'ctl-config' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'ctl-config' }, subjects: [{ kind: 'ServiceAccount', name: 'ctl', namespace: 'ingress' }] });
    kc = new KubeConfig();
    kc.loadFromString(api.kubeconfigFor(ACCOUNT));
  });
  after(() => api.stop());

  void it('syncs and follows the named ConfigMap with list/watch granted by resourceNames only', async () => {
    const warnings: string[] = [];
    const store = createStore(kc, {
      logger: pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) }),
      onChange: () => {}, configMaps: [{ namespace: 'ingress', name: 'resty' }], backoff: { initialMs: 20, maxMs: 200, jitter: 0 },
    });
    try {
      await within(5000, 'initial sync', store.waitForInitialSync());
      assert.deepEqual(store.snapshot().configMaps.map((cm) => cm.data), [{ 'proxy-body-size': '1k' }]);
      api.store.patch('configmaps', 'ingress', 'resty', 'merge', { data: { 'proxy-body-size': '8k' } });
      await waitFor('the edit through the watch', () => store.snapshot().configMaps[0]?.data?.['proxy-body-size'] === '8k');
      assert.deepEqual(warnings, [], 'no list or watch was refused');
    } finally {
      await store.stop();
    }
  });

  const refused: { name: string; call: (core: CoreV1Api) => Promise<unknown> }[] = [
    { name: 'every ConfigMap of its namespace', call: (core) => core.listNamespacedConfigMap({ namespace: 'ingress' }) },
    { name: 'another ConfigMap by name', call: (core) => core.listNamespacedConfigMap({ namespace: 'ingress', fieldSelector: 'metadata.name=other' }) },
    { name: 'its own ConfigMap by get (a verb not granted)', call: (core) => core.readNamespacedConfigMap({ namespace: 'ingress', name: 'resty' }) },
    { name: 'ConfigMaps of another namespace', call: (core) => core.listNamespacedConfigMap({ namespace: 'apps' }) },
    { name: 'ConfigMaps cluster-wide', call: (core) => core.listConfigMapForAllNamespaces() },
    { name: 'Namespaces', call: (core) => core.listNamespace() },
  ];
  for (const row of refused) {
    void it(`the same account is refused: ${row.name}`, async () => {
      await assert.rejects(row.call(kc.makeApiClient(CoreV1Api)), (err: unknown) => (err as { code?: number }).code === 403);
    });
  }
});
