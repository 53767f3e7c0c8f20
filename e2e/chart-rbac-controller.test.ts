// The controller runs with exactly the permissions the chart grants: helm
// installs the chart into the local cluster with RBAC enforced, the real
// controller process uses a token of the chart's ServiceAccount and the
// chart's own flags, and a full scenario — serve an Ingress, hold the
// leader-election Lease, write Ingress status (once the chart's LoadBalancer
// Service has an address: none is published while it is pending), record Normal and Warning
// Events, edit and delete the Ingress — completes with no 403 anywhere in
// the controller's logs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CHART_DIR, RELEASE, parseManifests, renderChart, runHelm } from './chart-render.ts';
import { appManifest, ingressManifest, sleep, startCluster, startController, waitFor, waitForResponse, type Cluster, isForbidden } from './harness/index.ts';

const SERVICE_ACCOUNT = `system:serviceaccount:${RELEASE.namespace}:resty-resty-ingress`;
// The harness picks free ports and a temp prefix: the chart's values for these would collide.
const HARNESS_FLAGS = ['--http-port', '--https-port', '--healthz-port', '--status-port', '--nginx-prefix'];
// No simulated controller pods: the real controller runs as a process below;
// no shutdown grace period, so stopping it stays quick. The admission webhook
// (on by default) and its grants run in webhook-certificate.test.ts, which
// makes its Service reachable from the API server; here it would refuse
// every Ingress (failurePolicy Fail, nothing answering).
const VALUES = ['controller.replicaCount=0', 'controller.shutdownGracePeriod=0', 'controller.admissionWebhooks.enabled=false'];

async function chartControllerArgs(): Promise<string[]> {
  const manifests = parseManifests(await renderChart({ name: 'default', valuesFile: null }, VALUES));
  const deployment = manifests.find((m) => m.kind === 'Deployment') as { spec: { template: { spec: { containers: { args: string[] }[] } } } } | undefined;
  const args = deployment?.spec.template.spec.containers[0]?.args;
  assert.ok(args, 'the chart renders the controller Deployment');
  return args.filter((arg) => !HARNESS_FLAGS.some((flag) => arg.startsWith(`${flag}=`)));
}

/** An object as the admin sees it, or undefined while it does not exist. */
function read(cluster: Cluster, resource: string, namespace: string, name: string): Record<string, unknown> | undefined {
  try {
    return cluster.api.store.get(resource, namespace, name);
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

const eventsAbout = (cluster: Cluster, ingress: string, type: string): unknown[] => cluster.api.store.list('events', { namespace: 'default' }).items
  .filter((e) => (e.involvedObject as { name?: string } | undefined)?.name === ingress && e.type === type);

const forbidden = isForbidden;

void test('serve, status, events and leases with exactly the chart RBAC and never a 403', async (t) => {
  const cluster = await startCluster({ rbac: true });
  t.after(() => cluster.stop());
  const install = await runHelm(['install', RELEASE.name, CHART_DIR, '--namespace', RELEASE.namespace, '--create-namespace', '--no-hooks', ...VALUES.flatMap((v) => ['--set', v])], { KUBECONFIG: cluster.kubeconfig });
  assert.equal(install.code, 0, `helm install failed:\n${install.stderr}`);

  // The ServiceAccount's token sees exactly what the chart's bindings allow.
  const saKubeconfig = await cluster.kubeconfigFor(SERVICE_ACCOUNT);
  const denied = await cluster.kubectl(['--kubeconfig', saKubeconfig, 'get', 'deployments', '-A']);
  assert.notEqual(denied.code, 0, 'the controller account cannot read Deployments');
  assert.match(denied.stderr, /forbidden/i);

  process.env.POD_NAMESPACE = RELEASE.namespace; // what the chart's Deployment sets from the downward API
  const controller = await startController(cluster, { kubeconfig: saKubeconfig, args: await chartControllerArgs() });
  t.after(() => controller.stop());

  await cluster.apply([
    appManifest({ name: 'shop', replicas: 2 }),
    ingressManifest({ name: 'shop', host: 'shop.test', paths: [{ path: '/', service: 'shop' }] }),
  ].join('---\n'));
  await waitForResponse(controller.http, { host: 'shop.test', path: '/' }, (r) => r.status === 200);

  // Leader election (leases get/create/update), status (services get, ingresses/status patch), events (create).
  const lease = await waitFor('the election Lease held', () => {
    const spec = read(cluster, 'leases.coordination.k8s.io', RELEASE.namespace, 'resty-resty-ingress-leader')?.spec as { holderIdentity?: string } | undefined;
    return spec?.holderIdentity ? spec : undefined;
  });
  assert.ok(lease.holderIdentity);
  await waitFor('a Normal Event on the Ingress', () => (eventsAbout(cluster, 'shop', 'Normal').length > 0 ? true : undefined));
  // The chart's Service is a LoadBalancer, and this cluster has no load-balancer controller:
  // like ingress-nginx, nothing is published while it is pending (not its clusterIP).
  const shownAddress = (): unknown[] | undefined => {
    const status = read(cluster, 'ingresses.networking.k8s.io', 'default', 'shop')?.status as { loadBalancer?: { ingress?: unknown[] } } | undefined;
    return status?.loadBalancer?.ingress?.length ? status.loadBalancer.ingress : undefined;
  };
  await sleep(1500); // status runs 500 ms after a sync
  assert.equal(shownAddress(), undefined, 'no address while the load balancer is pending');
  // A cloud's load-balancer controller assigns an address: the status shows it.
  const service = cluster.api.store.list('services', { namespace: RELEASE.namespace }).items.find((s) => (s.spec as { type?: string }).type === 'LoadBalancer');
  assert.ok(service, 'the chart renders a LoadBalancer Service');
  cluster.api.store.update('services', { ...service, status: { loadBalancer: { ingress: [{ ip: '127.0.0.200' }] } } }, { namespace: RELEASE.namespace, subresource: 'status' });
  const address = await waitFor('the Ingress status address', shownAddress);
  assert.deepEqual(address, [{ ip: '127.0.0.200' }]);

  await cluster.apply(ingressManifest({ name: 'shop', host: 'shop.test', paths: [{ path: '/', service: 'shop' }, { path: '/missing', service: 'nowhere' }] }));
  await waitForResponse(controller.http, { host: 'shop.test', path: '/missing' }, (r) => r.status === 503);
  await waitFor('a Warning Event for the missing Service', () => (eventsAbout(cluster, 'shop', 'Warning').length > 0 ? true : undefined));
  await cluster.kubectlOk(['delete', 'ingress', 'shop']);
  await waitForResponse(controller.http, { host: 'shop.test', path: '/' }, (r) => r.status === 404);

  const denials = controller.logs().filter(forbidden);
  assert.deepEqual(denials, [], 'no request of the controller was forbidden');
});
