// E2E: one Ingress never blocks another (DESIGN). A tenant's Ingress whose
// configuration NGINX refuses (`nginx -t` meets a directive it does not know
// in that Ingress's location: harness/refusing-templates.ts) is left out:
// its paths are not served, every Ingress created after it is, traffic on
// the others never fails, and the tenant learns why from a Warning Event
// (RejectedByNginx, NGINX's own words) and a metric. Once the tenant changes
// the Ingress, it is tried again and served.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  appManifest, ingressManifest, loadLoop, refusingTemplates, REFUSED_DIRECTIVE, REFUSED_PATH, request, startStack, waitFor, waitForResponse,
} from './harness/index.ts';

/** The series of the tenant's Ingress (the registry adds the controller's own labels after these). */
const REJECTED_SERIES = 'resty_ingress_rejected_ingress{namespace="default",ingress="tenant",';

/** The value of the first series starting with `series`, or null when there is none. */
async function metricValue(url: string, series: string): Promise<number | null> {
  const line = (await (await fetch(url)).text()).split('\n').find((l) => l.startsWith(series));
  return line === undefined ? null : Number(line.slice(line.lastIndexOf(' ') + 1));
}

test('an Ingress NGINX refuses is left out; every other one is applied', async (t) => {
  const templates = await refusingTemplates();
  t.after(() => templates.remove());
  const { cluster, controller } = await startStack(t, { controller: { env: templates.env } });
  assert.ok(controller.metricsUrl, 'metrics are served');
  const metrics = controller.metricsUrl;
  await cluster.apply(`${appManifest({ name: 'web', replicas: 2 })}---\n${ingressManifest({ name: 'before', host: 'before.test', paths: [{ path: '/', service: 'web' }] })}`);
  await waitForResponse(controller.http, { host: 'before.test' }, (r) => r.status === 200);
  // Reloads follow: fresh connections, so an old worker closing its idle keep-alive ones is not counted.
  const load = loadLoop({ url: controller.http, host: 'before.test', rate: 40, durationMs: 6_000, freshConnections: true });

  const tenant = (paths: string[]): string => ingressManifest({ name: 'tenant', host: 'tenant.test', paths: paths.map((path) => ({ path, service: 'web' })) });
  await cluster.apply(tenant(['/ok', REFUSED_PATH]));
  const appliedAt = Date.now();
  await cluster.apply(ingressManifest({ name: 'after-1', host: 'after-1.test', paths: [{ path: '/', service: 'web' }] }));
  await cluster.apply(ingressManifest({ name: 'after-2', host: 'after-2.test', paths: [{ path: '/', service: 'web' }] }));
  await waitForResponse(controller.http, { host: 'after-1.test' }, (r) => r.status === 200, 5_000);
  await waitForResponse(controller.http, { host: 'after-2.test' }, (r) => r.status === 200, 5_000);
  t.diagnostic(`Ingresses created after the refused one served ${Date.now() - appliedAt} ms after it was applied`);
  assert.equal((await request(controller.http, { host: 'tenant.test', path: '/ok' })).status, 404, 'none of its paths is served');
  assert.equal((await request(controller.http, { host: 'tenant.test', path: REFUSED_PATH })).status, 404);

  const event = await waitFor('a RejectedByNginx Warning on the tenant\'s Ingress', async () => (await cluster.events('involvedObject.name=tenant,type=Warning'))
    .find((e) => e.reason === 'RejectedByNginx'));
  assert.match(event.message, new RegExp(`unknown directive "${REFUSED_DIRECTIVE}"`), `NGINX's own words: ${event.message}`);
  assert.ok(!event.message.includes(controller.prefix), `no controller path in the Event: ${event.message}`);
  const blamed = (await cluster.events('type=Warning')).filter((e) => e.involvedObject.name !== 'tenant');
  assert.deepEqual(blamed.map((e) => `${e.involvedObject.name}: ${e.reason}`), [], 'no other Ingress is blamed');
  assert.equal(await metricValue(metrics, REJECTED_SERIES), 1);
  assert.ok(controller.logs().some((l) => l.msg === 'NGINX refused an Ingress; it is left out, the others are applied' && l.ingress === 'default/tenant'));
  // The tenant's Ingress carries no snippet, so its reload was signalled without nginx -t: the
  // master's own parse refused it (the old workers kept serving: the load below), the version was
  // not confirmed, and nginx -t ran only then, to find the Ingress at fault.
  assert.ok(controller.logs().some((l) => l.msg === 'a reload without nginx -t was not confirmed; validating it'), 'the master refused the unvalidated reload');

  // The tenant fixes it: the changed Ingress is tried again, and served.
  const fixedAt = Date.now();
  await cluster.apply(tenant(['/ok', '/fixed']));
  await waitForResponse(controller.http, { host: 'tenant.test', path: '/ok' }, (r) => r.status === 200, 5_000);
  t.diagnostic(`the fixed Ingress served ${Date.now() - fixedAt} ms after it changed`);
  await waitFor('the metric cleared', async () => ((await metricValue(metrics, REJECTED_SERIES)) === null ? true : undefined));

  const report = await load;
  assert.equal(report.non2xx, 0, `the other tenants' traffic failed: ${JSON.stringify({ statuses: report.statuses, errors: report.errors })}`);
});
