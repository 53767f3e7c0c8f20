// E2E: an Ingress NGINX refuses is already there when the controller starts.
// The first model carries no snippet, so NGINX starts without `nginx -t`
// (sync/nginx-test-need.ts): the master's own parse refuses the file and
// exits, `nginx -t` then runs on the same text and names the Ingress's line,
// the Ingress is left out (RejectedByNginx), NGINX starts on the rest, and the
// controller becomes ready: a bad configuration is never served, and the
// other Ingresses are.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  appManifest, ingressClassManifest, ingressManifest, refusingTemplates, REFUSED_DIRECTIVE, REFUSED_PATH, request, startCluster, startController, waitFor,
} from './harness/index.ts';

test('an Ingress NGINX refuses, present at start: NGINX starts without it after one refused start, the others are served', async (t) => {
  const templates = await refusingTemplates();
  t.after(() => templates.remove());
  const cluster = await startCluster();
  t.after(() => cluster.stop());
  await cluster.apply(ingressClassManifest('resty', 'resty-ingress.dev/controller'));
  await cluster.apply([
    appManifest({ name: 'web', replicas: 1 }),
    ingressManifest({ name: 'good', host: 'good.test', paths: [{ path: '/', service: 'web' }] }),
    ingressManifest({ name: 'tenant', host: 'tenant.test', paths: [{ path: '/ok', service: 'web' }, { path: REFUSED_PATH, service: 'web' }] }),
  ].join('---\n'));

  const controller = await startController(cluster, { env: templates.env });
  t.after(() => controller.stop());

  const logs = controller.logs();
  assert.ok(logs.some((l) => l.msg === 'NGINX did not start without nginx -t; validating its configuration'), 'the first start went without nginx -t and the master refused it');
  assert.ok(logs.some((l) => l.msg === 'NGINX refused an Ingress; it is left out, the others are applied' && l.ingress === 'default/tenant'), 'the tenant\'s Ingress is found');
  assert.equal((await request(controller.http, { host: 'good.test' })).status, 200, 'the other Ingress is served once ready');
  assert.equal((await request(controller.http, { host: 'tenant.test', path: '/ok' })).status, 404, 'none of the refused Ingress\'s paths is served');
  assert.equal((await request(controller.http, { host: 'tenant.test', path: REFUSED_PATH })).status, 404);
  const health = await fetch(controller.healthzUrl);
  assert.equal(health.status, 200, `ready: ${await health.text()}`);
  const event = await waitFor('a RejectedByNginx Warning on the tenant\'s Ingress', async () => (await cluster.events('involvedObject.name=tenant,type=Warning'))
    .find((e) => e.reason === 'RejectedByNginx'));
  assert.match(event.message, new RegExp(`unknown directive "${REFUSED_DIRECTIVE}"`));
});
