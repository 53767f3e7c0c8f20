// E2E: a controller started into a cluster that already has apps waits for
// every informer's initial list, builds once and starts NGINX once: every
// Ingress serves from the first configuration, with no reload storm after.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appManifest, ingressClassManifest, ingressManifest, request, sleep, startCluster, startController } from './harness/index.ts';

const APPS = 12;

test('startup into a populated cluster: one build, zero reloads, everything serves', async (t) => {
  const cluster = await startCluster();
  t.after(() => cluster.stop());
  const docs = [ingressClassManifest()];
  for (let i = 0; i < APPS; i++) {
    docs.push(appManifest({ name: `app${i}`, replicas: 1 }));
    docs.push(ingressManifest({ name: `app${i}`, host: `app${i}.test`, paths: [{ path: '/', service: `app${i}` }] }));
  }
  await cluster.apply(docs.join('---\n'));
  // Every app has a ready endpoint before the controller starts.
  for (let i = 0; i < APPS; i++) {
    const name = `app${i}`;
    const deadline = Date.now() + 10_000;
    while (!cluster.pods(name).some((p) => p.state === 'ready')) {
      assert.ok(Date.now() < deadline, `${name} never got a ready pod`);
      await sleep(50);
    }
  }

  const controller = await startController(cluster);
  t.after(() => controller.stop());
  // Right after "first configuration is live" every host answers from its own pods.
  for (let i = 0; i < APPS; i++) {
    const res = await request(controller.http, { host: `app${i}.test` });
    assert.equal(res.status, 200, `app${i}.test`);
    assert.ok(res.pod?.startsWith(`app${i}-`), `app${i}.test served by ${res.pod}`);
  }
  await sleep(1000); // late informer events must not cause a reload either
  assert.equal(controller.reloadCount(), 0, 'NGINX reloaded after start');
  const syncs = controller.logs().filter((l) => l.msg === 'sync' && l.result === 'reload');
  assert.equal(syncs.length, 1, `one build that starts NGINX, got ${syncs.length}`);
});
