// E2E: the admission webhook as the chart installs it by default, its
// certificate managed by the controller. helm installs the chart into the
// local cluster with RBAC enforced (no cert-manager, no Jobs; the admission
// Secret empty); two real controller replicas start at once with the chart's
// own flags and the chart's ServiceAccount: exactly one fills the Secret,
// both serve its certificate, the ValidatingWebhookConfiguration gets its
// caBundle, and the API server (which, as a real one, checks the certificate
// against <service>.<namespace>.svc) calls the webhook: kubectl is refused an
// invalid Ingress. helm upgrade keeps the caBundle and the Secret's data. With a 30 s validity the
// certificate is renewed after 20 s from the same CA (caBundle untouched),
// both replicas serve the new one without a restart, and invalid Ingresses
// are still refused. A broken Secret is replaced with a Warning Event on it.
// No request of the controller is forbidden.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { test } from 'node:test';
import { CHART_DIR, RELEASE, runHelm } from './chart-render.ts';
import { chartControllerArgs } from './chart-controller-args.ts';
import { appManifest, freePorts, ingressManifest, startCluster, startController, waitFor, type Cluster, type ControllerHandle, isForbidden } from './harness/index.ts';

const FULLNAME = 'resty-resty-ingress';
const SERVICE = `${FULLNAME}-controller-admission`;
const ADMISSION = `${FULLNAME}-admission`;
const SERVICE_ACCOUNT = `system:serviceaccount:${RELEASE.namespace}:${FULLNAME}`;
// No simulated controller pods (the real controller runs below); a short validity to see a renewal.
const VALUES = ['controller.replicaCount=0', 'controller.shutdownGracePeriod=0', 'controller.admissionWebhooks.certificateValidity=30s'];
const ISSUED = 'admission webhook certificate issued';
const ROTATED = 'admission webhook serving certificate rotated';

const secretData = (cluster: Cluster): Record<string, string> | undefined => {
  try {
    const secret = cluster.api.store.get('secrets', RELEASE.namespace, ADMISSION) as { data?: Record<string, string> };
    return Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  } catch {
    return undefined;
  }
};

const caBundle = (cluster: Cluster): string => {
  const config = cluster.api.store.get('validatingwebhookconfigurations.admissionregistration.k8s.io', undefined, ADMISSION) as { webhooks: { clientConfig: { caBundle?: string } }[] };
  return Buffer.from(config.webhooks[0].clientConfig.caBundle ?? '', 'base64').toString('utf8');
};

/** Serial of the certificate a replica's webhook serves, verified as the API server verifies it (caBundle, Service DNS name). */
const servedSerial = (port: number, ca: string): Promise<string> => new Promise((resolve, reject) => {
  const socket = connect({ host: '127.0.0.1', port, ca, servername: `${SERVICE}.${RELEASE.namespace}.svc` }, () => {
    resolve(socket.getPeerX509Certificate()?.serialNumber ?? '');
    socket.destroy();
  });
  socket.on('error', reject);
});

const serialOf = (pem: string | undefined): string => new X509Certificate(pem ?? '').serialNumber;
const count = (replicas: readonly ControllerHandle[], msg: string): number => replicas.reduce((n, r) => n + r.logs().filter((e) => e.msg === msg).length, 0);
const forbidden = isForbidden;

const invalidIngress = (name: string): string => ingressManifest({
  name, host: 'bad.test', paths: [{ path: '/', service: 'shop' }], annotations: { 'nginx.ingress.kubernetes.io/load-balance': 'fastest' },
});

async function assertRefusesInvalid(cluster: Cluster, when: string): Promise<void> {
  const refused = await cluster.kubectl(['apply', '-f', '-'], invalidIngress(`bad-${when}`));
  assert.notEqual(refused.code, 0, `${when}: the invalid Ingress is refused`);
  assert.match(refused.stderr, /admission webhook "validate\.resty-ingress\.dev" denied the request: .*"fastest" for .*load-balance/, when);
  const good = await cluster.kubectl(['apply', '-f', '-'], ingressManifest({ name: `good-${when}`, host: `${when}.test`, paths: [{ path: '/', service: 'shop' }] }));
  assert.equal(good.code, 0, `${when}: ${good.stderr}`);
}

void test('the chart\'s default webhook: certificate issued once by two replicas, caBundle set, invalid Ingress refused, renewed without a restart, a broken Secret replaced', async (t) => {
  const [portA, portB] = await freePorts(2);
  // The Service's calls reach replica A (Service IPs do not route here); B is checked directly.
  const cluster = await startCluster({
    rbac: true,
    resolveService: (namespace, name) => (namespace === RELEASE.namespace && name === SERVICE ? `https://127.0.0.1:${portA}` : undefined),
  });
  t.after(() => cluster.stop());
  const install = await runHelm(['install', RELEASE.name, CHART_DIR, '--namespace', RELEASE.namespace, '--create-namespace', ...VALUES.flatMap((v) => ['--set', v])], { KUBECONFIG: cluster.kubeconfig });
  assert.equal(install.code, 0, `helm install failed:\n${install.stderr}`);
  assert.equal(caBundle(cluster), '', 'the chart installs the webhook without a caBundle');
  assert.deepEqual(secretData(cluster), {}, 'and with the Secret empty (the controller may not create Secrets)');

  const args = await chartControllerArgs(VALUES);
  assert.ok(args.includes(`--validating-webhook-secret=${RELEASE.namespace}/${ADMISSION}`), `on by default, self-managed: ${args.join(' ')}`);
  // Loopback only, one port per replica: the chart's `:8444` would bind every address.
  const withPort = (port: number): string[] => args.map((arg) => (arg.startsWith('--validating-webhook=') ? `--validating-webhook=127.0.0.1:${port}` : arg));
  const saKubeconfig = await cluster.kubeconfigFor(SERVICE_ACCOUNT);
  process.env.POD_NAMESPACE = RELEASE.namespace; // what the chart's Deployment sets from the downward API
  await cluster.apply(appManifest({ name: 'shop', replicas: 1 }));
  const replicas = await Promise.all([portA, portB].map((port) => startController(cluster, { kubeconfig: saKubeconfig, args: withPort(port) })));
  for (const replica of replicas) t.after(() => replica.stop());

  const ca = await waitFor('the caBundle', () => caBundle(cluster) || undefined, { timeoutMs: 20_000, intervalMs: 100 });
  const first = secretData(cluster);
  assert.ok(first, 'the admission Secret exists');
  assert.equal(ca, first['ca.crt'], 'the caBundle is the Secret\'s CA');
  await waitFor('both replicas serving the Secret\'s certificate', async () => {
    const serials = await Promise.all([portA, portB].map((port) => servedSerial(port, ca).catch(() => '')));
    return serials.every((s) => s === serialOf(first['tls.crt'])) ? true : undefined;
  }, { timeoutMs: 10_000, intervalMs: 200 });
  assert.equal(count(replicas, ISSUED), 1, 'one replica issued it; the other read it');

  await assertRefusesInvalid(cluster, 'first');

  // helm upgrade re-applies the ValidatingWebhookConfiguration (without a caBundle): the controller's caBundle survives.
  const upgrade = await runHelm(['upgrade', RELEASE.name, CHART_DIR, '--namespace', RELEASE.namespace, ...VALUES.flatMap((v) => ['--set', v])], { KUBECONFIG: cluster.kubeconfig });
  assert.equal(upgrade.code, 0, `helm upgrade failed:\n${upgrade.stderr}`);
  assert.equal(caBundle(cluster), ca, 'helm upgrade keeps the caBundle');
  assert.deepEqual(secretData(cluster), first, 'and the Secret\'s certificate (helm renders it without data)');
  await assertRefusesInvalid(cluster, 'upgraded');

  // 30 s validity: renewed when 10 s are left; every replica rereads the Secret at least every 5 s.
  await waitFor('both replicas serving a renewed certificate', async () => {
    const now = serialOf(secretData(cluster)?.['tls.crt']);
    if (now === serialOf(first['tls.crt'])) return undefined;
    const serials = await Promise.all([portA, portB].map((port) => servedSerial(port, ca).catch(() => '')));
    return serials.every((s) => s === now) ? true : undefined;
  }, { timeoutMs: 40_000, intervalMs: 250 });
  assert.equal(count(replicas, ISSUED), 2, 'the renewal was issued once');
  assert.ok(count(replicas, ROTATED) >= 2, 'both replicas swapped the certificate in');
  assert.equal(caBundle(cluster), ca, 'the CA is kept: the caBundle did not change');
  assert.equal(replicas.every((r) => r.process.exitCode === null), true, 'no restart');

  await assertRefusesInvalid(cluster, 'renewed');

  // Someone breaks the Secret: the next read replaces it, with a Warning Event on the Secret.
  const secret = cluster.api.store.get('secrets', RELEASE.namespace, ADMISSION) as { data: Record<string, string> };
  cluster.api.store.update('secrets', { ...secret, data: { ...secret.data, 'tls.crt': Buffer.from('not a certificate').toString('base64') } }, { namespace: RELEASE.namespace });
  const warning = await waitFor('a Warning Event on the Secret', async () => (await cluster.events(`involvedObject.name=${ADMISSION},type=Warning`))[0], { timeoutMs: 15_000, intervalMs: 250 });
  assert.equal(warning.reason, 'InvalidWebhookCertificate');
  assert.equal(warning.involvedObject.kind, 'Secret');
  assert.match(warning.message, /serving certificate is unusable.*a new certificate was issued/);
  const repaired = await waitFor('a sound certificate in the Secret again', () => {
    try { return serialOf(secretData(cluster)?.['tls.crt']); } catch { return undefined; }
  });
  await waitFor('replica A serving the repaired Secret\'s certificate', async () => ((await servedSerial(portA, caBundle(cluster)).catch(() => '')) === repaired ? true : undefined), { timeoutMs: 10_000, intervalMs: 200 });
  await assertRefusesInvalid(cluster, 'repaired');
  const denials = replicas.flatMap((r) => r.logs().filter(forbidden));
  assert.deepEqual(denials, [], 'no request of the controller was forbidden');
});
