// E2E: nothing is lost (DESIGN). After API watches drop, after
// resourceVersions expire (410 → relist), after the API server restarts,
// after it is unreachable for 30 s (then within 5 s of its return, with one
// log line each way), and after NGINX's master is killed with SIGKILL, a
// change made during or after the fault reaches the data plane and traffic
// uses current endpoints.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import type { Cluster, LogEntry } from './harness/index.ts';
import { appManifest, ingressManifest, request, sleep, startStack, waitFor, waitForResponse } from './harness/index.ts';

const HOST = 'faults.test';
const OUTAGE_HOST = 'outage.faults.test';
/** The fault row: the API unreachable for 30 s (long enough for any backoff to reach its ceiling). */
const OUTAGE_MS = 30_000;

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

  await t.test(`API unreachable for ${OUTAGE_MS / 1000} s, a change made meanwhile → converges < 5 s after it is back; one log line each way, no stack traces`, async (st) => {
    const from = controller.logs().length;
    await cluster.api.down();
    const downAt = Date.now();
    await sleep(OUTAGE_MS);
    // Made in the store while the API refuses connections (kubectl could not): only the watch resuming can deliver it.
    const manifest = parse(ingressManifest({ name: 'outage', host: OUTAGE_HOST, paths: [{ path: '/', service: 'web' }] })) as Parameters<Cluster['api']['store']['create']>[1];
    cluster.api.store.create('ingresses.networking.k8s.io', manifest, { namespace: 'default' });
    await cluster.api.up();
    const upAt = Date.now();
    await waitForResponse(controller.http, { host: OUTAGE_HOST }, (r) => r.status === 200, 5_000);
    st.diagnostic(`served ${Date.now() - upAt} ms after the API came back (outage ${upAt - downAt} ms)`);
    const lines = controller.logs().slice(from);
    const about = (msg: string): LogEntry[] => lines.filter((l) => l.msg === msg);
    assert.equal(about('Kubernetes API unavailable; retrying (one line when it is back)').length, 1, 'one line when it went away');
    const back = await waitFor('the line saying it is back', () => about('Kubernetes API available again')[0]);
    assert.ok(Number(back.outageMs) >= OUTAGE_MS, `outageMs ${String(back.outageMs)}`);
    const noisy = controller.logs().slice(from).filter((l) => l.level >= 40 && !l.msg.startsWith('Kubernetes API unavailable'));
    assert.deepEqual(noisy.map((l) => l.raw), [], 'no other warning or error');
    assert.deepEqual(lines.filter((l) => l.raw.includes('"stack"')).map((l) => l.raw), [], 'no stack trace');
  });

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
