// An ingress-nginx user's production values file
// (charts/resty-ingress/ci/ingress-nginx-production-values.yaml: their image
// digest, probes with their own httpGet, metrics, a default backend, extraArgs,
// values this chart does not support) installs into the local cluster with
// the real helm: the release deploys, its notes name what was replaced or
// ignored, and the real controller, run with the rendered Deployment's flags
// and the chart's ServiceAccount (RBAC enforced), serves their class `nginx`,
// sends unmatched hosts to the chart's default backend and reports
// per-request metrics (metrics.enabled), with its proxySetHeaders/addHeaders,
// behind the admission webhook (on by default, its certificate managed by the
// controller).
// The local API has no prometheus-operator CRDs and no kubelet: the
// ServiceMonitor is switched off, the controller Deployment runs no simulated
// pods (the real process below is the controller) and the HPA is off so the
// Deployment keeps replicas 0. The default backend's pods are simulated
// (echo servers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { CHART_DIR, RELEASE, parseManifests, runHelm, type Manifest } from './chart-render.ts';
import { appManifest, freePort, ingressManifest, request, startCluster, startController, waitFor, waitForResponse, isForbidden } from './harness/index.ts';

const VALUES_FILE = join(CHART_DIR, 'ci/ingress-nginx-production-values.yaml');
const ENVIRONMENT = ['controller.metrics.serviceMonitor.enabled=false', 'controller.autoscaling.enabled=false', 'controller.replicaCount=0', 'controller.shutdownGracePeriod=0'];
const HARNESS_FLAGS = ['--http-port', '--https-port', '--healthz-port', '--status-port', '--nginx-prefix'];
const SERVICE_ACCOUNT = `system:serviceaccount:${RELEASE.namespace}:resty-resty-ingress`;

interface Workload { spec: { template: { spec: { containers: { image: string; args: string[] }[] } } } }

void test('an ingress-nginx production values file installs, warns, and the controller serves', async (t) => {
  // The admission webhook is on (the chart's default): the API server reaches its Service on a loopback port.
  const webhookPort = await freePort();
  const cluster = await startCluster({
    rbac: true,
    resolveService: (namespace, name) => (namespace === RELEASE.namespace && name === 'resty-resty-ingress-controller-admission' ? `https://127.0.0.1:${webhookPort}` : undefined),
  });
  t.after(() => cluster.stop());
  const helmArgs = ['--namespace', RELEASE.namespace, '-f', VALUES_FILE, ...ENVIRONMENT.flatMap((v) => ['--set', v])];
  const install = await runHelm(['install', RELEASE.name, CHART_DIR, '--create-namespace', '--no-hooks', ...helmArgs], { KUBECONFIG: cluster.kubeconfig });
  assert.equal(install.code, 0, `helm install failed:\n${install.stderr}`);
  assert.match(install.stdout, /STATUS: deployed/);
  const warnings = install.stdout.split('\n').filter((line) => line.startsWith('- '));
  assert.deepEqual(warnings.map((line) => line.split(':')[0]), ['- controller.image', '- controller.enableTopologyAwareRouting', '- controller.maxmindLicenseKey'], install.stdout);

  // What helm stored is what runs: the rendered controller Deployment (our image) and its flags.
  const manifest = await runHelm(['get', 'manifest', RELEASE.name, '--namespace', RELEASE.namespace], { KUBECONFIG: cluster.kubeconfig });
  assert.equal(manifest.code, 0, manifest.stderr);
  const controllerDeployment = parseManifests(manifest.stdout).find((m: Manifest) => m.kind === 'Deployment' && m.metadata.name === 'resty-resty-ingress-controller') as unknown as Workload | undefined;
  const container = controllerDeployment?.spec.template.spec.containers[0];
  assert.ok(container, 'the controller Deployment was installed');
  assert.match(container.image, /^ghcr\.io\/resty-ingress\/controller:/);
  const args = container.args.filter((arg) => !HARNESS_FLAGS.some((flag) => arg.startsWith(`${flag}=`)))
    // Loopback only: the chart's `:8444` would bind every address.
    .map((arg) => (arg.startsWith('--validating-webhook=') ? `--validating-webhook=127.0.0.1:${webhookPort}` : arg));
  assert.ok(args.some((arg) => arg.startsWith('--validating-webhook-secret=')), 'the webhook is on, its certificate managed by the controller');

  const saKubeconfig = await cluster.kubeconfigFor(SERVICE_ACCOUNT);
  process.env.POD_NAMESPACE = RELEASE.namespace; // what the Deployment sets from the downward API
  const controller = await startController(cluster, { kubeconfig: saKubeconfig, args });
  t.after(() => controller.stop());
  // Ingress writes go through the webhook (failurePolicy Fail): wait until it is trusted and listening.
  await waitFor('the webhook caBundle', () => {
    const config = cluster.api.store.get('validatingwebhookconfigurations.admissionregistration.k8s.io', undefined, 'resty-resty-ingress-admission') as { webhooks: { clientConfig: { caBundle?: string } }[] };
    return config.webhooks[0].clientConfig.caBundle ? true : undefined;
  }, { timeoutMs: 20_000, intervalMs: 100 });
  await controller.waitForLog((e) => e.msg === 'validating webhook listening', { timeoutMs: 20_000 });

  await cluster.apply([
    appManifest({ name: 'shop', replicas: 2 }),
    ingressManifest({ name: 'shop', host: 'shop.test', className: 'nginx', paths: [{ path: '/', service: 'shop' }] }),
  ].join('---\n'));
  // The default backend answers 200 too: wait for the shop's own pods.
  const served = await waitForResponse(controller.http, { host: 'shop.test', path: '/' }, (r) => r.status === 200 && (r.pod ?? '').startsWith('shop-'));
  assert.match(served.pod ?? '', /^shop-/, 'a shop pod answered');
  // controller.proxySetHeaders / addHeaders: the chart's header ConfigMaps, read with the chart's RBAC.
  const withHeaders = await waitForResponse(controller.http, { host: 'shop.test', path: '/' }, (r) => r.headers['x-frame-options'] === 'SAMEORIGIN');
  assert.match(String(withHeaders.echo?.headers['x-request-start']), /^t=\d+\.\d+$/, 'the backend got X-Request-Start');

  // A host no Ingress names goes to the chart's default backend (--default-backend-service), not a built-in 404.
  const unmatched = await waitForResponse(controller.http, { host: 'nobody.test', path: '/x' }, (r) => r.status === 200);
  assert.match(unmatched.pod ?? '', /^resty-resty-ingress-defaultbackend-/, 'a default backend pod (simulated echo server) answered');

  // metrics.enabled: true → --enable-metrics=true → per-request series on the healthz port.
  const healthzPort = `http://127.0.0.1:${controller.ports.healthz}`;
  for (let i = 0; i < 10; i++) assert.equal((await request(controller.http, { host: 'shop.test', path: `/item/${i}` })).status, 200);
  await waitFor('per-request metrics for shop', async () => {
    const text = (await request(healthzPort, { path: '/metrics' })).body;
    return /nginx_ingress_controller_requests\{[^}]*ingress="shop"/.test(text) ? true : undefined;
  }, { timeoutMs: 15_000, intervalMs: 250 });
  const ready = await request(healthzPort, { path: '/readyz' });
  assert.equal(ready.status, 200, 'ready: the probes the chart renders answer');
  const forbidden = controller.logs().filter(isForbidden);
  assert.deepEqual(forbidden, [], 'the chart RBAC covers what these values make the controller do');
});
