// The cluster writer against the local API server (e2e/cluster/apiserver):
// the exact requests client-node sends for Events, Ingress status and
// Service lookups must be ones a Kubernetes API accepts.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../../../e2e/cluster/apiserver/index.ts';
import { createEventSink, createIngressStatusWriter, createServiceReader } from './cluster-writer.ts';

const INGRESS = 'ingresses.networking.k8s.io';

void describe('cluster writer (local API server)', () => {
  let api: ApiServer;
  let kc: KubeConfig;
  before(async () => {
    api = await startApiServer();
    kc = new KubeConfig();
    kc.loadFromString(api.kubeconfigFor());
    api.store.create('services', { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default', name: 'edge' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } });
    api.store.create('services', { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default', name: 'edge-other' }, spec: { ports: [{ port: 80 }] } });
    api.store.create(INGRESS, { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { namespace: 'default', name: 'web' }, spec: { rules: [{ host: 'a.test' }] } });
  });
  after(() => api.stop());

  void it('finds a Service by exact name, and null for a missing one', async () => {
    const read = createServiceReader(kc);
    assert.equal((await read('default', 'edge'))?.metadata?.name, 'edge');
    assert.equal(await read('default', 'nope'), null);
  });

  void it('writes Ingress status through the status subresource, and clears it', async () => {
    const writer = createIngressStatusWriter(kc);
    await writer.write('default', 'web', [{ ip: '203.0.113.1' }, { hostname: 'lb.test' }]);
    const written = api.store.get(INGRESS, 'default', 'web') as { status?: { loadBalancer?: { ingress?: unknown[] } }; spec?: unknown };
    assert.deepEqual(written.status?.loadBalancer?.ingress, [{ ip: '203.0.113.1' }, { hostname: 'lb.test' }]);
    assert.deepEqual(written.spec, { rules: [{ host: 'a.test' }] }, 'spec untouched');
    await writer.write('default', 'web', []);
    const cleared = api.store.get(INGRESS, 'default', 'web') as { status?: { loadBalancer?: { ingress?: unknown[] } } };
    assert.equal(cleared.status?.loadBalancer?.ingress, undefined);
  });

  void it('creates an Event and bumps its count', async () => {
    const sink = createEventSink(kc);
    const at = new Date('2025-01-01T00:00:00Z');
    await sink.create({
      metadata: { namespace: 'default', name: 'web.1' }, involvedObject: { kind: 'Ingress', namespace: 'default', name: 'web' },
      type: 'Warning', reason: 'Conflict', message: 'x', count: 1, firstTimestamp: at, lastTimestamp: at,
    });
    await sink.bump('default', 'web.1', 2, new Date('2025-01-01T00:01:00Z'));
    const event = api.store.get('events', 'default', 'web.1') as { count?: number; lastTimestamp?: string; reason?: string };
    assert.deepEqual([event.reason, event.count, event.lastTimestamp], ['Conflict', 2, '2025-01-01T00:01:00.000Z']);
    await assert.rejects(sink.bump('default', 'gone', 2, at), (err: unknown) => (err as { code?: number }).code === 404);
  });
});

void describe('cluster writer with RBAC: the published Service by name', () => {
  const RBAC = 'rbac.authorization.k8s.io';
  let api: ApiServer;
  before(async () => {
    api = await startApiServer({ rbac: true });
    api.store.create('namespaces', { metadata: { name: 'ingress' } });
    api.store.create('services', { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'ingress', name: 'edge' }, spec: { ports: [{ port: 80 }] } });
    // What the chart grants: get on the published Service only; no list in its namespace.
    api.store.create(`roles.${RBAC}`, { metadata: { namespace: 'ingress', name: 'publish' }, rules: [{ apiGroups: [''], resources: ['services'], resourceNames: ['edge'], verbs: ['get'] }] });
    api.store.create(`rolebindings.${RBAC}`, { metadata: { namespace: 'ingress', name: 'publish' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'publish' }, subjects: [{ kind: 'ServiceAccount', name: 'ctl', namespace: 'ingress' }] });
  });
  after(() => api.stop());

  void it('reads it with get granted by resourceNames alone', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(api.kubeconfigFor('system:serviceaccount:ingress:ctl'));
    const read = createServiceReader(kc);
    assert.equal((await read('ingress', 'edge'))?.metadata?.name, 'edge');
    await assert.rejects(read('ingress', 'other'), (err: unknown) => (err as { code?: number }).code === 403, 'no other Service');
  });
});
