// E2E: what the controller tells the cluster, seen with real kubectl —
// `kubectl describe ingress` shows a Warning for a conflict (naming the
// winner) and a Normal Sync once live; `kubectl get ingress` shows the
// --publish-status-address; with a ValidatingWebhookConfiguration pointing
// at --validating-webhook, `kubectl apply` of a bad Ingress is refused with
// the controller's reason. Then two replicas: only the Lease holder writes
// status, and the other takes over when the leader freezes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  appManifest, freePort, ingressClassManifest, ingressManifest, startCluster, startController, startStack, waitFor, webhookArgs,
  webhookCertificateFiles, webhookConfiguration,
} from './harness/index.ts';

const ADDRESS = '203.0.113.10,lb.resty.test';

test('Events, status address and the admission webhook through kubectl', async (t) => {
  const tls = await webhookCertificateFiles(t);
  const webhookPort = await freePort();
  const { cluster } = await startStack(t, {
    controller: { args: ['--publish-status-address', ADDRESS, '--election-ttl', '2s', ...webhookArgs(webhookPort, tls)] },
  });
  await cluster.apply([
    appManifest({ name: 'web', replicas: 1 }),
    ingressManifest({ name: 'old', host: 'shop.test', paths: [{ path: '/', service: 'web' }] }),
  ].join('---\n'));
  // Created a second later: the older Ingress wins the host+path.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await cluster.apply(ingressManifest({ name: 'new', host: 'shop.test', paths: [{ path: '/', service: 'web' }] }));

  await t.test('kubectl get ingress shows the published address', async () => {
    const row = await waitFor('ADDRESS on the Ingress row', async () => {
      const out = await cluster.kubectlOk(['get', 'ingress', 'old']);
      return out.includes(ADDRESS) ? out : undefined;
    }, { timeoutMs: 10_000, intervalMs: 200 });
    assert.match(row, /old\s+resty\s+shop\.test\s+203\.0\.113\.10,lb\.resty\.test\s+80/);
  });

  await t.test('kubectl describe shows the Normal Sync of the live Ingress', async () => {
    const out = await waitFor('a Sync event', async () => {
      const text = await cluster.kubectlOk(['describe', 'ingress', 'old']);
      return /Normal\s+Sync\s+.*Configuration is live in NGINX/.test(text) ? text : undefined;
    }, { timeoutMs: 10_000, intervalMs: 200 });
    assert.doesNotMatch(out, /Warning/);
  });

  await t.test('kubectl describe shows the conflict Warning on the loser, naming the winner', async () => {
    const out = await waitFor('a Conflict event', async () => {
      const text = await cluster.kubectlOk(['describe', 'ingress', 'new']);
      return /Warning\s+Conflict/.test(text) ? text : undefined;
    }, { timeoutMs: 10_000, intervalMs: 200 });
    assert.match(out, /already served by .*default\/old/);
  });

  await t.test('with the webhook registered, kubectl apply of a bad Ingress is refused with the reason', async () => {
    await cluster.apply(webhookConfiguration(webhookPort, tls.ca));
    const rows = [
      {
        name: 'invalid annotation',
        yaml: ingressManifest({ name: 'bad-balance', host: 'a.test', paths: [{ path: '/', service: 'web' }], annotations: { 'nginx.ingress.kubernetes.io/load-balance': 'fastest' } }),
        reason: /denied the request: .*"fastest" for .*load-balance/,
      },
      {
        name: 'unsupported annotation value',
        yaml: ingressManifest({ name: 'deep', host: 'a.test', paths: [{ path: '/', service: 'web' }], annotations: { 'nginx.ingress.kubernetes.io/proxy-ssl-verify-depth': '500' } }),
        reason: /denied the request: .*unsupported value "500" for .*proxy-ssl-verify-depth/,
      },
      {
        name: 'host+path held by an older Ingress',
        yaml: ingressManifest({ name: 'late', host: 'shop.test', paths: [{ path: '/', service: 'web' }] }),
        reason: /denied the request: .*already served by .*default\/old/,
      },
    ];
    for (const row of rows) {
      const result = await cluster.kubectl(['apply', '-f', '-'], row.yaml);
      assert.notEqual(result.code, 0, `${row.name}: refused`);
      assert.match(result.stderr, row.reason, row.name);
    }
    const good = await cluster.kubectl(['apply', '-f', '-'], ingressManifest({ name: 'fine', host: 'fine.test', paths: [{ path: '/', service: 'web' }] }));
    assert.equal(good.code, 0, good.stderr);
    // An invalid value ingress-nginx ignores: allowed, and kubectl shows why its default applies.
    const lenient = await cluster.kubectl(['apply', '-f', '-'],
      ingressManifest({ name: 'lenient', host: 'lenient.test', paths: [{ path: '/', service: 'web' }], annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '1x' } }));
    assert.equal(lenient.code, 0, lenient.stderr);
    assert.match(lenient.stderr, /Warning: .*invalid value "1x" for .*proxy-body-size.*its default applies/);
    const other = ingressManifest({ name: 'theirs', host: 'shop.test', className: 'other', paths: [{ path: '/', service: 'web' }] });
    assert.equal((await cluster.kubectl(['apply', '-f', '-'], other)).code, 0, 'other classes pass');
  });
});

test('two replicas: only the leader writes status; the other takes over when it freezes', async (t) => {
  const cluster = await startCluster();
  t.after(() => cluster.stop());
  await cluster.apply(ingressClassManifest());
  await cluster.apply([appManifest({ name: 'web', replicas: 1 }), ingressManifest({ name: 'web', host: 'web.test', paths: [{ path: '/', service: 'web' }] })].join('---\n'));
  const args = ['--publish-status-address', '198.51.100.7', '--election-ttl', '2s'];
  const first = await startController(cluster, { args });
  t.after(() => first.stop());
  await first.waitForLog((e) => e.msg === 'became the leader', { timeoutMs: 5000 });
  const second = await startController(cluster, { args });
  t.after(() => second.stop());

  const address = async (): Promise<string> => cluster.kubectlOk(['get', 'ingress', 'web', '-o', 'jsonpath={.status.loadBalancer.ingress[*].ip}']);
  await waitFor('the leader to publish the address', async () => ((await address()) === '198.51.100.7' ? true : undefined), { timeoutMs: 10_000 });
  // Someone overwrites status: the leader puts it back, and only the leader writes.
  await cluster.kubectlOk(['patch', 'ingress', 'web', '--subresource=status', '--type=merge', '-p', '{"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.99"}]}}}']);
  await waitFor('the leader to restore the address', async () => ((await address()) === '198.51.100.7' ? true : undefined), { timeoutMs: 10_000 });
  const writers = (logs: readonly { msg: string }[]): number => logs.filter((e) => e.msg === 'ingress status updated').length;
  assert.ok(writers(first.logs()) >= 2, 'the leader wrote status');
  assert.equal(writers(second.logs()), 0, 'the follower never wrote status');
  assert.equal(second.logs().filter((e) => e.msg === 'became the leader').length, 0);

  // The leader freezes (SIGSTOP): no renewals and no release, so the Lease must expire.
  const frozenAt = Date.now();
  first.process.kill('SIGSTOP');
  try {
    await second.waitForLog((e) => e.msg === 'became the leader', { timeoutMs: 6000 });
    const tookMs = Date.now() - frozenAt;
    assert.ok(tookMs < 2000 + 1500, `took over ${tookMs} ms after the leader froze (ttl 2 s)`);
    await cluster.kubectlOk(['patch', 'ingress', 'web', '--subresource=status', '--type=merge', '-p', '{"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.99"}]}}}']);
    await waitFor('the new leader to restore the address', async () => ((await address()) === '198.51.100.7' ? true : undefined), { timeoutMs: 10_000 });
  } finally {
    first.process.kill('SIGCONT');
  }
  // The thawed old leader must not clear status (it lost the Lease); the real leader clears it on SIGTERM.
  await first.stop();
  assert.equal(await address(), '198.51.100.7', 'the thawed replica left status alone');
  await second.stop();
  assert.equal(await address(), '', '--update-status-on-shutdown: the leader removed its address');
  assert.ok(writers(second.logs()) >= 1, 'the new leader wrote status');
});
