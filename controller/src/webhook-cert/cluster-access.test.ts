// The certificate manager's API access against the local API server (in
// process, real resourceVersions): a create that finds the Secret already
// there and an update from a stale read are conflicts (the manager then
// reads again), an update keeps a Secret's type, and the caBundle is
// written into every webhook of the configuration.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer, type JsonObject } from '../../../e2e/cluster/apiserver/index.ts';
import { ApiConflictError } from '../kube/cluster-writer.ts';
import { createCertificateCluster } from './cluster-access.ts';

const VWC = 'validatingwebhookconfigurations.admissionregistration.k8s.io';

void describe('certificate cluster access (local API server)', () => {
  let api: ApiServer;
  let kc: KubeConfig;
  before(async () => {
    api = await startApiServer();
    kc = new KubeConfig();
    kc.loadFromString(api.kubeconfigFor());
    api.store.create('namespaces', { metadata: { name: 'ingress' } });
  });
  after(() => api.stop());

  void it('create, then a second create is a conflict; a stale update is a conflict; a fresh one writes', async () => {
    const a = createCertificateCluster(kc, { namespace: 'ingress', name: 'hook' }, 'hook');
    assert.equal(await a.readSecret(), null);
    const created = await a.createSecret({ 'tls.crt': 'one' });
    assert.equal(created.type, 'kubernetes.io/tls');
    await assert.rejects(a.createSecret({ 'tls.crt': 'two' }), ApiConflictError);
    const updated = await a.updateSecret({ 'tls.crt': 'three' }, created);
    assert.deepEqual(updated.data, { 'tls.crt': 'three' });
    await assert.rejects(a.updateSecret({ 'tls.crt': 'four' }, created), ApiConflictError, 'the read it came from is stale');
    assert.deepEqual((await a.readSecret())?.data, { 'tls.crt': 'three' });
  });

  void it('fills the chart\'s empty Opaque Secret, keeping its type and labels', async () => {
    api.store.create('secrets', { metadata: { name: 'chart', namespace: 'ingress', labels: { 'app.kubernetes.io/managed-by': 'Helm' } }, type: 'Opaque' });
    const access = createCertificateCluster(kc, { namespace: 'ingress', name: 'chart' }, 'hook');
    const empty = await access.readSecret();
    assert.ok(empty);
    assert.deepEqual(empty.data, {});
    await access.updateSecret({ 'tls.crt': 'x', 'tls.key': 'y' }, empty);
    const stored = api.store.get('secrets', 'ingress', 'chart') as { type: string; metadata: { labels: Record<string, string> }; data: Record<string, string> };
    assert.equal(stored.type, 'Opaque');
    assert.equal(stored.metadata.labels['app.kubernetes.io/managed-by'], 'Helm');
    assert.equal(Buffer.from(stored.data['tls.key'], 'base64').toString(), 'y');
  });

  void it('caBundle: null without the configuration, then written into every webhook', async () => {
    const access = createCertificateCluster(kc, { namespace: 'ingress', name: 'hook' }, 'webhooks');
    assert.equal(await access.readCaBundles(), null);
    const hook = (name: string): JsonObject => ({
      name, admissionReviewVersions: ['v1'], sideEffects: 'None',
      clientConfig: { service: { namespace: 'ingress', name: 'svc', path: '/x' } },
      rules: [{ apiGroups: ['networking.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['ingresses'] }],
    });
    api.store.create(VWC, { metadata: { name: 'webhooks' }, webhooks: [hook('a.resty.test'), hook('b.resty.test')] });
    assert.deepEqual(await access.readCaBundles(), ['', '']);
    await access.writeCaBundle('PEM');
    assert.deepEqual(await access.readCaBundles(), ['PEM', 'PEM']);
    const stored = api.store.get(VWC, undefined, 'webhooks') as { webhooks: { clientConfig: { service: { name: string } } }[] };
    assert.equal(stored.webhooks[1].clientConfig.service.name, 'svc', 'the rest of the configuration is kept');
  });
});
