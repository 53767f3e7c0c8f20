// Authentication and RBAC over HTTP: tokens, Roles and ClusterRoles bound
// to users, groups and service accounts, subresources and resourceNames.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from './server.ts';
import { call } from './testing.ts';

const RBAC = 'rbac.authorization.k8s.io';

void test('authentication: 401 without a valid token when auth is on', async () => {
  const server = await startApiServer({ rbac: true });
  try {
    assert.equal((await call(server, 'GET', '/api/v1/namespaces', { token: null })).status, 401);
    assert.equal((await call(server, 'GET', '/api/v1/namespaces', { token: 'made-up' })).status, 401);
    assert.equal((await call(server, 'GET', '/api/v1/namespaces')).status, 200, 'the admin token bypasses RBAC');
  } finally { await server.stop(); }
});

void test('RBAC allows exactly what the bound rules grant', async () => {
  const server = await startApiServer({ rbac: true });
  const { store } = server;
  try {
    store.create('namespaces', { metadata: { name: 'other' } });
    store.create(`roles.${RBAC}`, { metadata: { name: 'cm-reader', namespace: 'default' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }] });
    store.create(`rolebindings.${RBAC}`, { metadata: { name: 'alice-reads', namespace: 'default' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'cm-reader' }, subjects: [{ kind: 'User', name: 'alice' }] });
    store.create(`clusterroles.${RBAC}`, { metadata: { name: 'ingress-status' }, rules: [
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: ['list', 'watch'] },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses/status'], verbs: ['update', 'patch'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['leader'], verbs: ['get', 'update'] },
    ] });
    store.create(`clusterrolebindings.${RBAC}`, { metadata: { name: 'controller' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'ingress-status' }, subjects: [{ kind: 'ServiceAccount', name: 'ctl', namespace: 'ingress' }] });
    store.create(`clusterrolebindings.${RBAC}`, { metadata: { name: 'ops' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'ingress-status' }, subjects: [{ kind: 'Group', name: 'ops' }] });
    store.create(`rolebindings.${RBAC}`, { metadata: { name: 'dangling', namespace: 'default' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'missing' }, subjects: [{ kind: 'User', name: 'bob' }] });
    const alice = server.tokenFor('alice');
    const bob = server.tokenFor('bob');
    const sa = server.tokenFor('system:serviceaccount:ingress:ctl');
    const ops = server.tokenFor('carol', ['ops', 'system:authenticated']);
    const ing = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';
    const rows: { name: string; token: string; method: string; path: string; body?: unknown; want: number }[] = [
      { name: 'alice lists configmaps in default', token: alice, method: 'GET', path: '/api/v1/namespaces/default/configmaps', want: 200 },
      { name: 'alice may not list in another namespace', token: alice, method: 'GET', path: '/api/v1/namespaces/other/configmaps', want: 403 },
      { name: 'alice may not list cluster-wide', token: alice, method: 'GET', path: '/api/v1/configmaps', want: 403 },
      { name: 'alice may not create', token: alice, method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: { metadata: { name: 'x' } }, want: 403 },
      { name: 'alice may not read secrets', token: alice, method: 'GET', path: '/api/v1/namespaces/default/secrets', want: 403 },
      { name: 'a binding to a missing role grants nothing', token: bob, method: 'GET', path: '/api/v1/namespaces/default/configmaps', want: 403 },
      { name: 'service account lists ingresses anywhere', token: sa, method: 'GET', path: '/apis/networking.k8s.io/v1/ingresses', want: 200 },
      { name: 'service account may not update the ingress itself', token: sa, method: 'PUT', path: `${ing}/x`, body: { metadata: { name: 'x' } }, want: 403 },
      { name: 'service account may patch ingress status (404: no such ingress)', token: sa, method: 'PATCH', path: `${ing}/x/status`, body: {}, want: 404 },
      { name: 'resourceNames allow the named lease', token: sa, method: 'GET', path: '/apis/coordination.k8s.io/v1/namespaces/default/leases/leader', want: 404 },
      { name: 'resourceNames deny other leases', token: sa, method: 'GET', path: '/apis/coordination.k8s.io/v1/namespaces/default/leases/other', want: 403 },
      { name: 'group binding', token: ops, method: 'GET', path: '/apis/networking.k8s.io/v1/ingresses', want: 200 },
      { name: 'discovery is open to authenticated users', token: alice, method: 'GET', path: '/apis', want: 200 },
    ];
    for (const row of rows) {
      const res = await call(server, row.method, row.path, { token: row.token, body: row.body, contentType: row.method === 'PATCH' ? 'application/merge-patch+json' : undefined });
      assert.equal(res.status, row.want, row.name);
      if (row.want === 403) assert.equal(res.body.reason, 'Forbidden', row.name);
    }
  } finally { await server.stop(); }
});

void test('resourceNames grant a list/watch narrowed by metadata.name to that object, as kube-apiserver does', async () => {
  const server = await startApiServer({ rbac: true });
  const { store } = server;
  try {
    store.create('namespaces', { metadata: { name: 'ingress' } });
    for (const name of ['own', 'other']) store.create('configmaps', { metadata: { name, namespace: 'ingress' }, data: { k: name } });
    store.create(`roles.${RBAC}`, { metadata: { name: 'own-config', namespace: 'ingress' }, rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['own'], verbs: ['list', 'watch'] }] });
    store.create(`rolebindings.${RBAC}`, { metadata: { name: 'ctl', namespace: 'ingress' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'own-config' }, subjects: [{ kind: 'ServiceAccount', name: 'ctl', namespace: 'ingress' }] });
    const sa = server.tokenFor('system:serviceaccount:ingress:ctl');
    const cms = '/api/v1/namespaces/ingress/configmaps';
    const rows: { name: string; path: string; want: number; items?: string[] }[] = [
      { name: 'list narrowed to the named object', path: `${cms}?fieldSelector=metadata.name%3Down`, want: 200, items: ['own'] },
      { name: 'the == form too', path: `${cms}?fieldSelector=metadata.name%3D%3Down`, want: 200, items: ['own'] },
      { name: 'with another term beside the name', path: `${cms}?fieldSelector=metadata.name%3Down,metadata.namespace%3Dingress`, want: 200, items: ['own'] },
      { name: 'watch narrowed to the named object', path: `${cms}?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3Down`, want: 200 },
      { name: 'a list of everything is not that object', path: cms, want: 403 },
      { name: 'a watch of everything is not that object', path: `${cms}?watch=true&timeoutSeconds=1`, want: 403 },
      { name: 'another name', path: `${cms}?fieldSelector=metadata.name%3Dother`, want: 403 },
      { name: 'a negated name selects everything else', path: `${cms}?fieldSelector=metadata.name!%3Down`, want: 403 },
      { name: 'the same name in another namespace', path: '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Down', want: 403 },
      { name: 'the same name cluster-wide', path: '/api/v1/configmaps?fieldSelector=metadata.name%3Down', want: 403 },
      { name: 'get is a verb the rule does not grant', path: `${cms}/own`, want: 403 },
    ];
    for (const row of rows) {
      const res = await call(server, 'GET', row.path, { token: sa });
      assert.equal(res.status, row.want, row.name);
      if (row.items) assert.deepEqual(res.body.items?.map((i) => (i.metadata as { name: string }).name), row.items, row.name);
    }
  } finally { await server.stop(); }
});
