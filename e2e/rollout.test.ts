// E2E: deploying an app never reloads NGINX. A rolling restart under
// continuous paced load answers every request with 2xx and ends on the new
// pods only; scaling to zero answers 503 and scaling back answers 200 —
// all with the reload count unchanged (endpoints travel through Lua).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appManifest, ingressManifest, loadLoop, sleep, startStack, waitFor, waitForResponse } from './harness/index.ts';

const HOST = 'web.test';

test('deploying an app without NGINX reloads', async (t) => {
  const { cluster, controller } = await startStack(t);
  const before = controller.logs().length;
  await cluster.apply(`${appManifest({ name: 'web', replicas: 3, readyDelayMs: 100 })}---\n${ingressManifest({ name: 'web', host: HOST, paths: [{ path: '/', service: 'web' }] })}`);
  await waitFor('3 ready web pods', () => (cluster.pods('web').filter((p) => p.state === 'ready').length === 3 ? true : undefined));
  await waitForResponse(controller.http, { host: HOST }, (r) => r.status === 200);
  await controller.waitForReload(before); // until then an old worker may answer 404 for the host
  await sleep(300); // the initial syncs settle before counting

  await t.test('rollout restart under load: zero non-2xx, zero reloads, ends on new pods', async (st) => {
    const reloadsBefore = controller.reloadCount();
    const oldPods = new Set(cluster.pods('web').map((p) => p.name));
    const oldHash = cluster.pods('web')[0].templateHash;
    const load = loadLoop({ url: controller.http, host: HOST, rate: 80, durationMs: 7_000 });
    const started = Date.now();
    await sleep(700);
    await cluster.kubectlOk(['rollout', 'restart', 'deployment/web']);
    await cluster.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=20s']);
    // rollout status returns once new pods are available; old ones may still drain.
    const newPods = await waitFor('only new pods left', () => {
      const pods = cluster.pods('web');
      return pods.length === 3 && pods.every((p) => p.templateHash !== oldHash && p.state === 'ready') ? pods : undefined;
    }, { timeoutMs: 15_000 });
    const rolledAt = Date.now() - started;
    const report = await load;
    st.diagnostic(`rollout done ${rolledAt} ms into the load; ${report.total} requests, statuses ${JSON.stringify(report.statuses)}`);

    const detail = JSON.stringify({ statuses: report.statuses, errors: report.errors, skipped: report.skipped });
    assert.equal(report.non2xx, 0, `non-2xx answers during the rollout: ${detail}`);
    // The pacer skips a beat when the machine is busy (CI shares 2 cores); what matters is that
    // load ran throughout the rollout, which the tail check below proves. Half the plan is plenty.
    assert.ok(report.total >= 7 * 80 * 0.5, `too few requests completed (${report.total}): ${detail}`);
    assert.equal(controller.reloadCount() - reloadsBefore, 0, 'NGINX reloaded during a rollout');
    const newNames = new Set(newPods.map((p) => p.name));
    assert.ok(newPods.every((p) => !oldPods.has(p.name)));
    // From 300 ms after the old pods are gone (endpoint propagation), only new pods answer.
    const tail = report.samples.filter((s) => s.at > rolledAt + 300);
    assert.ok(tail.length >= 80, `the load must outlast the rollout by over a second (rollout took ${rolledAt} ms)`);
    const strays = tail.filter((s) => s.pod === null || !newNames.has(s.pod));
    assert.deepEqual(strays, [], 'requests served by old pods after the rollout');
    assert.equal(new Set(tail.map((s) => s.pod)).size, 3, 'the load spreads over all new pods');
  });

  await t.test('scale to 0 → 503, scale back → 200, no reload', async () => {
    const reloadsBefore = controller.reloadCount();
    await cluster.kubectlOk(['scale', 'deployment/web', '--replicas=0']);
    await waitForResponse(controller.http, { host: HOST }, (r) => r.status === 503, 10_000);
    await cluster.kubectlOk(['scale', 'deployment/web', '--replicas=2']);
    const back = await waitForResponse(controller.http, { host: HOST }, (r) => r.status === 200, 10_000);
    assert.ok(cluster.pods('web').some((p) => p.name === back.pod), `answered by ${back.pod}, not a current web pod`);
    assert.equal(controller.reloadCount() - reloadsBefore, 0, 'NGINX reloaded on a scale');
  });
});
