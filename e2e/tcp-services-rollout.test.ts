// E2E: a TCP service (--tcp-services-configmap) through a rolling restart and
// scaling of its Deployment, with a bounded loop of short connections the
// whole time: zero failed connections, and the last ones reach only the new
// pods, and not one reload: the endpoints of stream {} are fed to njs
// (docs/tcp-udp-services.md), so the controller's reload counter must not move.
// The simulator's pods speak HTTP, so each connection carries one HTTP/1.0
// request: bytes through the stream proxy, the answer names the pod.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { appManifest, freePorts, sleep, startStack, waitFor, yamlDocuments } from './harness/index.ts';

/** One connection through NGINX's TCP port: an HTTP/1.0 request, the whole answer, or the error. */
function exchange(port: number): Promise<{ ok: boolean; pod: string | null; detail: string }> {
  return new Promise((done) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write('GET /who HTTP/1.0\r\nHost: tcp.test\r\n\r\n'));
    socket.setTimeout(3000, () => socket.destroy(new Error('timeout')));
    socket.on('data', (chunk) => { answer += chunk.toString(); });
    socket.on('close', () => {
      const ok = /^HTTP\/1\.[01] 200 /u.test(answer);
      const pod = /"pod":\s*"([^"]+)"/u.exec(answer)?.[1] ?? /x-pod:\s*(\S+)/iu.exec(answer)?.[1] ?? null;
      done({ ok, pod, detail: ok ? '' : JSON.stringify(answer.slice(0, 120)) });
    });
    socket.on('error', (error) => { answer += ` [${error.message}]`; });
  });
}

interface LoopReport { readonly total: number; readonly failed: readonly string[]; readonly samples: readonly { at: number; pod: string | null }[] }

/** Short connections, `parallel` at a time, until `stop` resolves (bounded by `maxMs`). */
async function connectionLoop(port: number, stop: Promise<void>, maxMs: number, parallel = 3): Promise<LoopReport> {
  let stopped = false;
  void stop.then(() => { stopped = true; });
  const started = Date.now();
  const failed: string[] = [];
  const samples: { at: number; pod: string | null }[] = [];
  let total = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (!stopped && Date.now() - started < maxMs) {
      const result = await exchange(port);
      total += 1;
      samples.push({ at: Date.now() - started, pod: result.pod });
      if (!result.ok) failed.push(result.detail);
      await sleep(20);
    }
  }));
  return { total, failed, samples };
}

test('a TCP service through a rolling restart and scaling: no failed connection', async (t) => {
  const [tcpPort] = await freePorts(1);
  const { cluster, controller } = await startStack(t, { controller: { args: ['--tcp-services-configmap', 'default/tcp-services'] } });
  await cluster.apply([
    appManifest({ name: 'web', replicas: 3, readyDelayMs: 100 }),
    yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tcp-services', namespace: 'default' }, data: { [String(tcpPort)]: 'default/web:http' } }]),
  ].join('---\n'));
  await waitFor('3 ready web pods', () => (cluster.pods('web').filter((p) => p.state === 'ready').length === 3 ? true : undefined));
  await waitFor('the TCP service answers', async () => ((await exchange(tcpPort)).ok ? true : undefined), { timeoutMs: 20_000, intervalMs: 200 });
  const probe = await exchange(tcpPort);
  assert.ok(probe.pod !== null, `the pod's answer names it: ${probe.detail}`);
  await sleep(500);

  const reloadsBefore = controller.reloadCount();
  const oldHash = cluster.pods('web')[0]?.templateHash;
  let finish: () => void = () => {};
  const stop = new Promise<void>((done) => { finish = done; });
  const loop = connectionLoop(tcpPort, stop, 60_000);
  await sleep(500);
  await cluster.kubectlOk(['rollout', 'restart', 'deployment/web']);
  await cluster.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=30s']);
  const newPods = await waitFor('only new pods left', () => {
    const pods = cluster.pods('web');
    return pods.length === 3 && pods.every((p) => p.templateHash !== oldHash && p.state === 'ready') ? pods : undefined;
  }, { timeoutMs: 20_000 });
  await cluster.kubectlOk(['scale', 'deployment/web', '--replicas=1']);
  await waitFor('1 web pod', () => (cluster.pods('web').length === 1 ? true : undefined), { timeoutMs: 20_000 });
  await cluster.kubectlOk(['scale', 'deployment/web', '--replicas=3']);
  await waitFor('3 ready web pods again', () => (cluster.pods('web').filter((p) => p.state === 'ready').length === 3 ? true : undefined), { timeoutMs: 20_000 });
  const settledAt = Date.now();
  await sleep(2_000);
  finish();
  const report = await loop;
  const reloads = controller.reloadCount() - reloadsBefore;
  t.diagnostic(`${report.total} connections, ${report.failed.length} failed, ${reloads} reloads`);

  assert.deepEqual(report.failed, [], 'failed connections during the rollout and scaling');
  assert.equal(reloads, 0, 'a rollout and scaling of a TCP backend reload nothing');
  assert.ok(report.total >= 50, `too few connections (${report.total}) to say anything`);
  // Once everything settled, only current pods answer.
  const current = new Set(cluster.pods('web').map((p) => p.name));
  const lastSecond = report.samples.filter((s) => s.at > report.samples[report.samples.length - 1]!.at - 1000);
  assert.ok(lastSecond.length > 0 && lastSecond.every((s) => s.pod !== null && current.has(s.pod)),
    `connections in the last second reached old pods: ${JSON.stringify(lastSecond.filter((s) => !current.has(s.pod ?? '')).slice(0, 3))}`);
  assert.ok(newPods.length === 3 && Date.now() > settledAt);
});
