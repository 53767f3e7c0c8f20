// E2E: nothing is lost (DESIGN). After API watches drop, after
// resourceVersions expire (410 → relist), after the API server restarts,
// and after NGINX's master is killed with SIGKILL, a change made during or
// after the fault reaches the data plane and traffic uses current endpoints.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Cluster } from './harness/index.ts';
import { appManifest, ingressManifest, request, startStack, waitFor, waitForResponse } from './harness/index.ts';

const HOST = 'faults.test';

function ingressWithPaths(extra: readonly string[]): string {
  return ingressManifest({ name: 'faults', host: HOST, paths: [{ path: '/', service: 'web' }, ...extra.map((path) => ({ path, service: 'web' }))] });
}

/** The names of the web pods that are ready right now. */
function readyPods(cluster: Cluster): Set<string> {
  return new Set(cluster.pods('web').filter((p) => p.state === 'ready').map((p) => p.name));
}

test('the data plane converges after faults', async (t) => {
  const { cluster, controller } = await startStack(t);
  await cluster.apply(`${appManifest({ name: 'web', replicas: 2, readyDelayMs: 50 })}---\n${ingressWithPaths([])}`);
  await waitForResponse(controller.http, { host: HOST }, (r) => r.status === 200);

  const apiFaults = [
    { name: 'all watches dropped', inject: async (): Promise<void> => cluster.api.dropWatches() },
    { name: 'resourceVersions expired, then watches dropped (410 → relist)', inject: async (): Promise<void> => { cluster.api.expireResourceVersions(); cluster.api.dropWatches(); } },
    { name: 'API server restarted', inject: (): Promise<void> => cluster.api.restart() },
  ];
  const paths: string[] = [];
  for (const [index, row] of apiFaults.entries()) {
    await t.test(`${row.name}, then a change → converges`, async () => {
      await row.inject();
      const path = `/after-fault-${index}`;
      paths.push(path);
      await cluster.apply(ingressWithPaths(paths));
      await cluster.kubectlOk(['scale', 'deployment/web', `--replicas=${index + 1}`]);
      const served = await waitForResponse(controller.http, { host: HOST, path }, (r) => r.echo?.path === path, 15_000);
      assert.equal(served.status, 200);
      // Endpoints converge too: every answer comes from the scaled set of pods, and all of them answer.
      await waitFor(`traffic on exactly the ${index + 1} current pods`, async () => {
        const seen = new Set<string | null>();
        for (let i = 0; i < 3 * (index + 1); i++) seen.add((await request(controller.http, { host: HOST })).pod);
        const current = readyPods(cluster);
        return current.size === index + 1 && seen.size === current.size && [...seen].every((pod) => pod !== null && current.has(pod)) ? true : undefined;
      }, { timeoutMs: 15_000 });
    });
  }

  await t.test('NGINX master killed with SIGKILL → restarted, current endpoints served', async () => {
    const oldMaster = controller.nginxMasterPid();
    assert.ok(oldMaster !== null, 'an NGINX master runs');
    const from = controller.logs().length;
    process.kill(oldMaster, 'SIGKILL');
    // Change the endpoints while NGINX is down: the restarted one must get the new set, not the old.
    await cluster.kubectlOk(['scale', 'deployment/web', '--replicas=1']);
    await controller.waitForLog(/NGINX master exited unexpectedly/, { from, timeoutMs: 5_000 });
    const newMaster = await waitFor('a new NGINX master', () => {
      const pid = controller.nginxMasterPid();
      return pid !== null && pid !== oldMaster ? pid : undefined;
    });
    assert.notEqual(newMaster, oldMaster);
    await waitFor('traffic on the one current pod only', async () => {
      const current = readyPods(cluster);
      const answers = await Promise.all([0, 1, 2, 3].map(() => request(controller.http, { host: HOST })));
      return current.size === 1 && answers.every((r) => r.status === 200 && r.pod !== null && current.has(r.pod)) ? true : undefined;
    }, { timeoutMs: 15_000 });
    const path = paths.at(-1) ?? '/';
    assert.equal((await request(controller.http, { host: HOST, path })).echo?.path, path, 'the restarted NGINX runs the latest configuration');
  });
});
