// A scoped install (controller.scope: watch namespace `apps`, installed in
// `ingress`) runs with exactly the chart's RBAC and still reads its own
// ConfigMap: helm installs the chart into the local cluster with RBAC
// enforced, the real controller uses a token of the chart's ServiceAccount
// and the chart's own flags, and the ConfigMap's proxy-body-size (set through
// the chart's controller.config) takes effect in NGINX, then follows a live
// edit. Its Events (an invalid value) land on the ConfigMap, the published
// Service is read by name for Ingress status, and no request is ever refused.
// The same account is refused every other ConfigMap, every Namespace and
// anything outside `apps`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHART_DIR, RELEASE, runHelm } from './chart-render.ts';
import { chartControllerArgs } from './chart-controller-args.ts';
import { appManifest, ingressManifest, request, startCluster, startController, waitFor, waitForResponse, isForbidden } from './harness/index.ts';

const FULLNAME = 'resty-resty-ingress';
const SERVICE_ACCOUNT = `system:serviceaccount:${RELEASE.namespace}:${FULLNAME}`;
const CONFIGMAP = `${FULLNAME}-controller`;
const WATCHED = 'apps';
// No simulated controller pods (the real controller runs as a process below), no shutdown
// grace; a ClusterIP Service, whose address status publishes at once. The admission webhook
// (on by default) runs in webhook-certificate.test.ts, where the API server can reach it;
// here it would refuse every Ingress (failurePolicy Fail, nothing answering).
const VALUES = [
  'controller.replicaCount=0', 'controller.shutdownGracePeriod=0', 'controller.service.type=ClusterIP', 'controller.admissionWebhooks.enabled=false',
  'controller.scope.enabled=true', `controller.scope.namespace=${WATCHED}`,
  'controller.config.proxy-body-size=1k',
];
const KB2 = 'x'.repeat(2048);

const forbidden = isForbidden;

/** What the controller's account may and may not do, through the real kubectl. */
const ACCESS: { name: string; args: string[]; allowed: boolean }[] = [
  { name: 'its own ConfigMap, by a name field selector', args: ['get', 'configmaps', '-n', RELEASE.namespace, '--field-selector', `metadata.name=${CONFIGMAP}`], allowed: true },
  { name: 'every ConfigMap of the release namespace', args: ['get', 'configmaps', '-n', RELEASE.namespace], allowed: false },
  { name: 'another ConfigMap of the release namespace', args: ['get', 'configmaps', '-n', RELEASE.namespace, '--field-selector', 'metadata.name=kube-root-ca.crt'], allowed: false },
  { name: 'ConfigMaps of the watched namespace', args: ['get', 'configmaps', '-n', WATCHED], allowed: false },
  { name: 'ConfigMaps of another namespace, even by its own ConfigMap\'s name', args: ['get', 'configmaps', '-n', 'default', '--field-selector', `metadata.name=${CONFIGMAP}`], allowed: false },
  { name: 'ConfigMaps of every namespace', args: ['get', 'configmaps', '-A'], allowed: false },
  { name: 'Namespaces', args: ['get', 'namespaces'], allowed: false },
  { name: 'Ingresses of the watched namespace', args: ['get', 'ingresses', '-n', WATCHED], allowed: true },
  { name: 'Ingresses of every namespace', args: ['get', 'ingresses', '-A'], allowed: false },
  { name: 'Secrets outside the watched namespace', args: ['get', 'secrets', '-n', 'default'], allowed: false },
  { name: 'IngressClasses (cluster-scoped, read-only)', args: ['get', 'ingressclasses'], allowed: true },
];

void test('scoped install: reads its own ConfigMap with exactly the chart RBAC, and nothing else', async (t) => {
  const cluster = await startCluster({ rbac: true });
  t.after(() => cluster.stop());
  await cluster.kubectlOk(['create', 'namespace', WATCHED]);
  const install = await runHelm(['install', RELEASE.name, CHART_DIR, '--namespace', RELEASE.namespace, '--create-namespace', '--no-hooks', ...VALUES.flatMap((v) => ['--set', v])], { KUBECONFIG: cluster.kubeconfig });
  assert.equal(install.code, 0, `helm install failed:\n${install.stderr}`);
  const saKubeconfig = await cluster.kubeconfigFor(SERVICE_ACCOUNT);

  await t.test('the account\'s rights, through kubectl', async () => {
    for (const row of ACCESS) {
      const res = await cluster.kubectl(['--kubeconfig', saKubeconfig, ...row.args]);
      if (row.allowed) assert.equal(res.code, 0, `${row.name}: allowed, got ${res.stderr}`);
      else assert.match(res.stderr, /forbidden/i, `${row.name}: refused (exit ${res.code}, ${res.stdout})`);
    }
  });

  process.env.POD_NAMESPACE = RELEASE.namespace; // what the chart's Deployment sets from the downward API
  const controller = await startController(cluster, { kubeconfig: saKubeconfig, args: await chartControllerArgs(VALUES) });
  t.after(() => controller.stop());
  await cluster.apply([
    appManifest({ name: 'shop', namespace: WATCHED, replicas: 1 }),
    ingressManifest({ name: 'shop', namespace: WATCHED, host: 'shop.test', paths: [{ path: '/', service: 'shop' }] }),
  ].join('---\n'));
  await waitForResponse(controller.http, { host: 'shop.test', path: '/' }, (r) => r.status === 200);
  const post = (body: string): Promise<number> => request(controller.http, { host: 'shop.test', path: '/upload', method: 'POST', body }).then((r) => r.status);

  await t.test('controller.config proxy-body-size=1k is in nginx.conf and refuses a 2 KB body', async () => {
    assert.match(await readFile(join(controller.prefix, 'nginx.conf'), 'utf8'), /client_max_body_size "?1k"?;/);
    assert.equal(await post(KB2), 413);
    assert.equal(await post('x'.repeat(512)), 200);
  });

  await t.test('an edit of the ConfigMap is followed live', async () => {
    assert.equal(await post(KB2), 413, 'still 1k before the edit');
    await cluster.kubectlOk(['patch', 'configmap', CONFIGMAP, '-n', RELEASE.namespace, '--type', 'merge', '-p', '{"data":{"proxy-body-size":"8k"}}']);
    await waitFor('a 2 KB body accepted', async () => ((await post(KB2)) === 200 ? true : undefined), { timeoutMs: 10_000 });
  });

  await t.test('an invalid value: an Event on the ConfigMap in the release namespace', async () => {
    await cluster.kubectlOk(['patch', 'configmap', CONFIGMAP, '-n', RELEASE.namespace, '--type', 'merge', '-p', '{"data":{"hsts-max-age":"forever"}}']);
    const event = await waitFor('the Warning Event', async () => (await cluster.events(`involvedObject.name=${CONFIGMAP},type=Warning`))
      .find((e) => e.involvedObject.kind === 'ConfigMap' && e.reason === 'InvalidConfigMapValue'), { timeoutMs: 10_000 });
    assert.match(event.message, /hsts-max-age/);
  });

  await t.test('Ingress status: the published Service\'s address, read by name', async () => {
    const service = JSON.parse(await cluster.kubectlOk(['get', 'service', CONFIGMAP, '-n', RELEASE.namespace, '-o', 'json'])) as { spec: { clusterIP: string } };
    const address = await waitFor('the status address', async () => {
      const ingress = JSON.parse(await cluster.kubectlOk(['get', 'ingress', 'shop', '-n', WATCHED, '-o', 'json'])) as { status?: { loadBalancer?: { ingress?: { ip?: string }[] } } };
      return ingress.status?.loadBalancer?.ingress?.[0]?.ip;
    });
    assert.equal(address, service.spec.clusterIP);
  });

  assert.deepEqual(controller.logs().filter(forbidden), [], 'no request of the controller was refused');
});
