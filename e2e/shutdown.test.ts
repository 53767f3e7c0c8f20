// E2E: graceful shutdown under load. SIGTERM → readiness fails at once → the
// grace period (--shutdown-grace-period) during which NGINX keeps serving,
// so load balancers can notice → NGINX quits gracefully, completing the
// request in flight → the controller exits 0. No request is lost.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { appManifest, ingressManifest, loadLoop, request, sleep, startStack, waitForResponse } from './harness/index.ts';

const GRACE_S = 3;

test('SIGTERM under load loses no request; the request in flight at NGINX quit completes', async (t) => {
  const { cluster, controller } = await startStack(t, { controller: { args: ['--shutdown-grace-period', String(GRACE_S)] } });
  const before = controller.logs().length;
  await cluster.apply([appManifest({ name: 'web', replicas: 2 }), ingressManifest({ name: 'web', host: 'web.test', paths: [{ path: '/', service: 'web' }] })].join('---\n'));
  await waitForResponse(controller.http, { host: 'web.test' }, (r) => r.status === 200);
  await controller.waitForReload(before); // until then an old worker may answer 404 for web.test
  const exited = once(controller.process, 'exit');

  const load = loadLoop({ url: controller.http, host: 'web.test', rate: 40, durationMs: 2500 });
  await sleep(500);
  controller.process.kill('SIGTERM');
  // Just before the grace period ends, a slow request that is still running when NGINX quits.
  await sleep(GRACE_S * 1000 - 700);
  const inFlight = request(controller.http, { host: 'web.test', path: '/?sleep=1500', timeoutMs: 10_000 });

  const report = await load;
  const bad = report.samples.filter((s) => s.status < 200 || s.status > 299).map((s) => `${s.status} at ${s.at} ms`);
  assert.equal(report.non2xx, 0, `non-2xx during the grace period (SIGTERM at ~500 ms): ${bad.join(', ')}`);
  assert.deepEqual(report.errors, [], 'connection errors during the grace period');
  assert.ok(report.total >= 40, `load ran through the grace period (${report.total} requests)`);
  const slow = await inFlight;
  assert.equal(slow.status, 200, 'the request in flight when NGINX quit completed');
  const [code] = (await exited) as [number | null];
  assert.equal(code, 0, 'the controller exits 0 after a graceful stop');
});
