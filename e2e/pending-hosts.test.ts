// E2E: "serve first, materialize later". A new plain Ingress host is
// answered by its pod BEFORE the reload that renders its server {} can
// happen: the NGINX master is held (SIGSTOP; its workers keep serving, the
// HUP waits), so no reload completes, the reload counter has not moved, and
// the answer can only come from the catch-all server through Lua's pending
// hosts. An Ingress with a static feature (rewrite-target) applied at the
// same time is not served early: it waits for its reload, as before. Once
// the master runs again and the reload is confirmed, the pending set is
// empty and the same host is answered by its rendered server.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { appManifest, ingressManifest, request, startStack, waitFor, waitForResponse } from './harness/index.ts';

const HOLD_LIMIT_MS = 6_000; // below the controller's 10 s reload confirmation timeout

async function pendingHosts(statusUrl: string): Promise<string[]> {
  const res = await fetch(`${statusUrl}/configuration/pending`);
  const body = (await res.json()) as { hosts: { host: string }[] };
  return body.hosts.map((h) => h.host);
}

test('a new plain Ingress host is served before its reload, then by its rendered server', async (t) => {
  const { cluster, controller } = await startStack(t);
  const before = controller.logs().length;
  await cluster.apply([
    appManifest({ name: 'web', replicas: 1 }),
    appManifest({ name: 'late', replicas: 1 }),
    ingressManifest({ name: 'web', host: 'first.test', paths: [{ path: '/', service: 'web' }] }),
  ].join('---\n'));
  await waitForResponse(controller.http, { host: 'first.test', path: '/' }, (r) => r.status === 200);
  await controller.waitForReload(before);
  // The new host's pod is up before the hold: what is measured is routing, not a pod start.
  await waitFor('late pod ready', () => (cluster.pods('late').some((pod) => pod.state === 'ready') ? true : undefined), { timeoutMs: 20_000 });
  assert.deepEqual(await pendingHosts(controller.statusUrl), []);

  const master = controller.nginxMasterPid();
  assert.ok(master !== null, 'NGINX master running');
  const reloads = controller.reloadCount();
  const logged = controller.logs().length;
  process.kill(master, 'SIGSTOP');
  let held = true;
  const resume = (): void => {
    if (held) process.kill(master, 'SIGCONT');
    held = false;
  };
  t.after(resume);
  try {
    await cluster.apply([
      ingressManifest({ name: 'late', host: 'late.test', paths: [{ path: '/', service: 'late' }] }),
      ingressManifest({
        name: 'rewritten', host: 'rewritten.test', paths: [{ path: '/', service: 'late' }],
        annotations: { 'nginx.ingress.kubernetes.io/rewrite-target': '/' },
      }),
    ].join('---\n'));
    const started = Date.now();
    const first = await waitForResponse(controller.http, { host: 'late.test', path: '/' }, (r) => r.status === 200, HOLD_LIMIT_MS);
    const servedMs = Date.now() - started;
    assert.ok(first.pod?.startsWith('late-'), `answered by the late pod: ${first.pod}`);
    // Case and port in Host change nothing (NGINX's $host).
    const upper = await request(controller.http, { host: 'LATE.Test:80', path: '/x' });
    assert.equal(upper.status, 200);
    assert.ok(upper.pod?.startsWith('late-'));
    assert.equal(controller.reloadCount(), reloads, 'served with no reload done');
    assert.ok(!controller.logs().slice(logged).some((e) => e.msg === 'NGINX reloaded'), 'no reload logged');
    assert.deepEqual(await pendingHosts(controller.statusUrl), ['late.test'], 'only the plain host is pending');
    // A static feature waits for the reload: the catch-all answers it meanwhile, as before.
    assert.equal((await request(controller.http, { host: 'rewritten.test', path: '/' })).status, 404);
    t.diagnostic(`new host served ${servedMs} ms after kubectl apply, master held, 0 reloads`);
  } finally {
    resume();
  }

  await controller.waitForReload(logged, 20_000);
  assert.ok(controller.reloadCount() > reloads);
  const conf = readFileSync(join(controller.prefix, 'nginx.conf'), 'utf8');
  assert.match(conf, /server_name "late\.test";/u, 'the reload rendered its server');
  // Confirmed: the host leaves the pending set; its answers now come from its own server.
  await waitFor('pending set empty', async () => ((await pendingHosts(controller.statusUrl)).length === 0 ? true : undefined), { timeoutMs: 10_000 });
  const rendered = await request(controller.http, { host: 'late.test', path: '/' });
  assert.equal(rendered.status, 200);
  assert.ok(rendered.pod?.startsWith('late-'));
  await waitForResponse(controller.http, { host: 'rewritten.test', path: '/' }, (r) => r.status === 200);
});
