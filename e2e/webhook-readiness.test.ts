// E2E: a pod with the admission webhook on (the chart's default, certificate
// managed by the controller) is not ready until its webhook serves: the
// Service sends the API server's reviews to ready pods only. The chart is
// installed with RBAC enforced, then its admission Secret is deleted — the
// controller may not create Secrets, so no certificate can be issued, which
// stands for a first install where issuing is slow. The real controller
// starts with the chart's flags: its first configuration goes live, /healthz
// answers 200 (liveness does not wait for the webhook) and /readyz 500, again
// and again, while nothing listens on the webhook port. Once the chart's empty
// Secret is back, the certificate is issued, and the first 200 of /readyz is
// followed at once by a TLS handshake with the webhook that verifies the
// managed certificate as the API server does (caBundle, Service DNS name).
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { test } from 'node:test';
import { CHART_DIR, RELEASE, runHelm } from './chart-render.ts';
import { chartControllerArgs } from './chart-controller-args.ts';
import { appManifest, freePorts, request, sleep, startCluster, startController, waitFor, type Cluster } from './harness/index.ts';

const FULLNAME = 'resty-resty-ingress';
const SERVICE = `${FULLNAME}-controller-admission`;
const ADMISSION = `${FULLNAME}-admission`;
const SERVICE_ACCOUNT = `system:serviceaccount:${RELEASE.namespace}:${FULLNAME}`;
const VALUES = ['controller.replicaCount=0', 'controller.shutdownGracePeriod=0'];
/** How long the test watches the not-ready pod before it lets the certificate be issued. */
const WATCH_NOT_READY_MS = 2_000;

const caBundle = (cluster: Cluster): string => {
  const config = cluster.api.store.get('validatingwebhookconfigurations.admissionregistration.k8s.io', undefined, ADMISSION) as { webhooks: { clientConfig: { caBundle?: string } }[] };
  return Buffer.from(config.webhooks[0].clientConfig.caBundle ?? '', 'base64').toString('utf8');
};

const secretCertificate = (cluster: Cluster): string => {
  const secret = cluster.api.store.get('secrets', RELEASE.namespace, ADMISSION) as { data?: Record<string, string> };
  return Buffer.from(secret.data?.['tls.crt'] ?? '', 'base64').toString('utf8');
};

/** Serial of the certificate the webhook serves, verified as the API server verifies it; rejects when no verified handshake happens. */
const servedSerial = (port: number, ca: string): Promise<string> => new Promise((resolve, reject) => {
  if (ca === '') { reject(new Error('no caBundle yet')); return; }
  const socket = connect({ host: '127.0.0.1', port, ca, servername: `${SERVICE}.${RELEASE.namespace}.svc`, timeout: 2_000 }, () => {
    resolve(socket.getPeerX509Certificate()?.serialNumber ?? '');
    socket.destroy();
  });
  socket.on('timeout', () => { socket.destroy(); reject(new Error('handshake timed out')); });
  socket.on('error', reject);
});

const statusOf = async (base: string, path: string): Promise<{ status: number; body: string }> => {
  const res = await request(base, { path });
  return { status: res.status, body: res.body };
};

void test('the webhook on: /readyz fails while the webhook cannot serve, /healthz does not; ready only once the webhook verifies with the managed certificate', async (t) => {
  const [webhookPort, healthzPort] = await freePorts(2);
  const cluster = await startCluster({
    rbac: true,
    resolveService: (namespace, name) => (namespace === RELEASE.namespace && name === SERVICE ? `https://127.0.0.1:${webhookPort}` : undefined),
  });
  t.after(() => cluster.stop());
  const install = await runHelm(['install', RELEASE.name, CHART_DIR, '--namespace', RELEASE.namespace, '--create-namespace', ...VALUES.flatMap((v) => ['--set', v])], { KUBECONFIG: cluster.kubeconfig });
  assert.equal(install.code, 0, `helm install failed:\n${install.stderr}`);
  const chartSecret = cluster.api.store.get('secrets', RELEASE.namespace, ADMISSION) as { metadata: { labels?: Record<string, string> }; type?: string };
  const deleted = await cluster.kubectl(['delete', 'secret', ADMISSION, '--namespace', RELEASE.namespace]);
  assert.equal(deleted.code, 0, deleted.stderr);

  const args = await chartControllerArgs(VALUES);
  assert.ok(args.includes(`--validating-webhook-secret=${RELEASE.namespace}/${ADMISSION}`), `on by default, self-managed: ${args.join(' ')}`);
  const withPort = args.map((arg) => (arg.startsWith('--validating-webhook=') ? `--validating-webhook=127.0.0.1:${webhookPort}` : arg));
  process.env.POD_NAMESPACE = RELEASE.namespace; // what the chart's Deployment sets from the downward API
  await cluster.apply(appManifest({ name: 'shop', replicas: 1 }));
  const controller = await startController(cluster, { kubeconfig: await cluster.kubeconfigFor(SERVICE_ACCOUNT), args: withPort, ports: { healthz: healthzPort } });
  t.after(() => controller.stop());
  const base = `http://127.0.0.1:${healthzPort}`;

  // First configuration live, no certificate: alive, not ready, nothing on the webhook port — and it stays so.
  const until = Date.now() + WATCH_NOT_READY_MS;
  let samples = 0;
  while (Date.now() < until) {
    assert.equal((await statusOf(base, '/healthz')).status, 200, 'liveness ignores the webhook');
    assert.deepEqual(await statusOf(base, '/readyz'), { status: 500, body: 'the admission webhook is not serving yet\n' }, 'not ready without the webhook');
    await assert.rejects(servedSerial(webhookPort, caBundle(cluster)), 'and indeed no webhook answers');
    samples += 1;
    await sleep(100);
  }
  assert.ok(samples >= 5, `watched the not-ready pod ${samples} times`);

  // The chart's empty Secret is back: the next attempt issues the certificate. The first 200 of /readyz
  // comes only once the webhook verifies with it.
  cluster.api.store.create('secrets', { metadata: { name: ADMISSION, labels: chartSecret.metadata.labels ?? {} }, type: chartSecret.type ?? 'Opaque' }, { namespace: RELEASE.namespace });
  await waitFor('/readyz 200', async () => ((await statusOf(base, '/readyz')).status === 200 ? true : undefined), { timeoutMs: 45_000, intervalMs: 20 });
  const served = await servedSerial(webhookPort, caBundle(cluster));
  assert.equal(served, new X509Certificate(secretCertificate(cluster)).serialNumber, 'ready: the webhook serves the Secret\'s certificate, trusted by the caBundle');
  assert.equal((await statusOf(base, '/healthz')).status, 200);
});
