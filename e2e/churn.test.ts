// E2E: churn under load, bounded. For 60 s the kubelet's readiness probe of
// one of six pods flips every 20 ms (50 endpoint changes per second; at
// least three pods stay ready), while a client asks ≥ 1,000 requests per
// second on keep-alive connections: every answer is 2xx and NGINX never
// reloads (endpoints travel through Lua). A pod whose probe fails keeps
// running, as in Kubernetes, so a request already sent to it still answers.
// Pods run in a child process, the load in a worker thread: the test's own
// event loop runs the API server, the simulator and the flips.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Cluster } from './harness/index.ts';
import { appManifest, ingressManifest, loadLoopInWorker, sleep, startStack, waitFor, waitForResponse } from './harness/index.ts';

const HOST = 'churn.test';
const PODS = 6;
const MIN_READY = 3;
const CHURN_MS = 60_000;
const CHANGES_PER_SECOND = 50;
/** The floor the answered load must reach, on average over the churn. */
const REQUESTS_PER_SECOND = 1_000;
/** What the client offers: the pacer skips a beat whenever 128 requests are in flight (a busy moment on 2 shared cores). */
const OFFERED_PER_SECOND = 1_250;

interface Churn {
  /** Readiness flips made (each one an endpoint change). */
  readonly flips: number;
  /** Flips that came more than 100 ms late (the machine was busy). */
  readonly late: number;
}

/** Flips one pod's readiness every 1000 / CHANGES_PER_SECOND ms for CHURN_MS, round the pods in turn. */
async function churn(cluster: Cluster, names: readonly string[]): Promise<Churn> {
  const ready = new Set(names);
  const intervalMs = 1000 / CHANGES_PER_SECOND;
  const startedAt = Date.now();
  let flips = 0;
  let late = 0;
  for (let tick = 0; tick * intervalMs < CHURN_MS; tick++) {
    const due = startedAt + tick * intervalMs;
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
    else if (wait < -100) late++;
    const name = names[tick % names.length];
    // Out while enough others serve; back in otherwise (or another one comes back instead).
    const pick = ready.has(name) && ready.size <= MIN_READY ? names.find((n) => !ready.has(n)) ?? name : name;
    const becomesReady = !ready.has(pick);
    if (cluster.simulator.setReady('default', pick, becomesReady)) {
      flips++;
      if (becomesReady) ready.add(pick);
      else ready.delete(pick);
    }
  }
  for (const name of names) cluster.simulator.setReady('default', name, true);
  return { flips, late };
}

test(`${CHANGES_PER_SECOND} endpoint changes/s for ${CHURN_MS / 1000} s under ${REQUESTS_PER_SECOND} req/s: every answer 2xx, no reload`, async (t) => {
  const { cluster, controller } = await startStack(t, { cluster: { podsInChildProcess: true } });
  const before = controller.logs().length;
  await cluster.apply(`${appManifest({ name: 'web', replicas: PODS, readyDelayMs: 50 })}---\n${ingressManifest({ name: 'web', host: HOST, paths: [{ path: '/', service: 'web' }] })}`);
  const names = await waitFor(`${PODS} ready web pods`, () => {
    const ready = cluster.pods('web').filter((p) => p.state === 'ready');
    return ready.length === PODS ? ready.map((p) => p.name) : undefined;
  });
  await waitForResponse(controller.http, { host: HOST }, (r) => r.status === 200);
  await controller.waitForReload(before); // until then an old worker may answer 404 for the host
  await sleep(300); // the initial syncs settle before counting
  const reloadsBefore = controller.reloadCount();
  const logsBefore = controller.logs().length;

  const started = Date.now();
  const [report, changes] = await Promise.all([
    loadLoopInWorker({ url: controller.http, host: HOST, rate: OFFERED_PER_SECOND, durationMs: CHURN_MS, maxInFlight: 128 }),
    churn(cluster, names),
  ]);
  const seconds = (Date.now() - started) / 1000;
  const pushes = controller.logs().slice(logsBefore).filter((l) => l.msg === 'sync' && l.result === 'dynamic').length;
  const rate = report.total / (CHURN_MS / 1000);
  const detail = JSON.stringify({ statuses: report.statuses, errors: report.errors, skipped: report.skipped });
  t.diagnostic(`${changes.flips} readiness flips (${(changes.flips / (CHURN_MS / 1000)).toFixed(1)}/s, ${changes.late} late), `
    + `${pushes} endpoint pushes to Lua, ${report.total} requests (${rate.toFixed(0)}/s), statuses ${JSON.stringify(report.statuses)}, ${seconds.toFixed(1)} s`);

  assert.equal(report.non2xx, 0, `non-2xx answers during the churn: ${detail}`);
  assert.equal(controller.reloadCount() - reloadsBefore, 0, 'NGINX reloaded during the churn');
  assert.ok(changes.flips >= CHANGES_PER_SECOND * (CHURN_MS / 1000) * 0.95, `only ${changes.flips} endpoint changes made`);
  assert.ok(rate >= REQUESTS_PER_SECOND, `only ${rate.toFixed(0)} requests per second answered: ${detail}`);
  // The changes reached NGINX as they came, not once at the end (syncs coalesce what arrives within one).
  assert.ok(pushes >= 10 * (CHURN_MS / 1000), `only ${pushes} endpoint pushes`);
  // Every pod served some of the load: the endpoint set moved under it.
  assert.equal(new Set(report.samples.map((s) => s.pod)).size, PODS, 'every pod answered');
});
