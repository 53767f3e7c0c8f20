// E2E: operating the controller. /readyz turns 200 only once the cluster's
// configuration is live in NGINX (never on an empty config); traffic shows
// up in /metrics under ingress-nginx's names and labels (by ingress and
// Ingress path, not URI); an endpoint change is timed; SIGTERM fails
// /healthz at once while NGINX keeps serving through the grace period.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  appManifest, freePorts, ingressClassManifest, ingressManifest, request, sleep, startCluster, startController, waitFor, waitForResponse,
} from './harness/index.ts';

interface Probe { readonly ready: number; readonly served: number | null }

/** The value of the first sample of `name` whose labels include every `labels` pair, or null. */
function sample(metrics: string, name: string, labels: Record<string, string>): number | null {
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return null;
}

async function statusOf(url: string): Promise<number> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0; // not listening (yet / any more)
  }
}

test('health, readiness, metrics and graceful shutdown', async (t) => {
  const cluster = await startCluster();
  t.after(() => cluster.stop());
  await cluster.apply([
    ingressClassManifest('resty', 'resty-ingress.dev/controller'),
    appManifest({ name: 'web', replicas: 1 }),
    ingressManifest({ name: 'web', host: 'web.test', paths: [{ path: '/api', service: 'web' }] }),
  ].join('---\n'));

  // Our own ports, so the probes can run while the controller starts.
  const [httpPort, healthzPort] = await freePorts(2);
  const http = `http://127.0.0.1:${httpPort}`;
  const base = `http://127.0.0.1:${healthzPort}`;
  const probes: Probe[] = [];
  let probing = true;
  const prober = (async () => {
    while (probing) {
      const ready = await statusOf(`${base}/readyz`);
      // At the moment readiness passes, NGINX must already route web.test (404 = empty config).
      const served = ready === 200 ? (await request(http, { host: 'web.test', path: '/api' }).catch(() => null))?.status ?? null : null;
      probes.push({ ready, served });
      await sleep(10);
    }
  })();
  const controller = await startController(cluster, {
    args: ['--http-port', String(httpPort), '--healthz-port', String(healthzPort), '--shutdown-grace-period', '2'],
  });
  t.after(() => controller.stop());
  await waitFor('readiness', () => probes.some((p) => p.ready === 200) || undefined);
  probing = false;
  await prober;

  await t.test('readiness passes only once the configuration is live', () => {
    const first = probes.findIndex((p) => p.ready === 200);
    assert.ok(probes.slice(0, first).some((p) => p.ready === 500), `500 before the first configuration: ${JSON.stringify(probes.slice(0, first).map((p) => p.ready))}`);
    for (const p of probes.filter((probe) => probe.ready === 200)) assert.notEqual(p.served, 404, 'ready while NGINX had no route for web.test');
  });

  await t.test('requests are counted by Ingress, Ingress path, method and status', async () => {
    await waitForResponse(http, { host: 'web.test', path: '/api' }, (r) => r.status === 200);
    for (let i = 0; i < 20; i++) assert.equal((await request(http, { host: 'web.test', path: `/api/items/${i}` })).status, 200);
    assert.equal((await request(http, { host: 'nobody.test', path: '/api' })).status, 404);
    const labels = { host: 'web.test', namespace: 'default', ingress: 'web', service: 'web', path: '/api', method: 'GET', status: '200', canary: '' };
    const metrics = await waitFor('20 requests in /metrics', async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      return (sample(text, 'nginx_ingress_controller_requests', labels) ?? 0) >= 20 ? text : undefined;
    }, { timeoutMs: 5000, intervalMs: 200 });
    assert.ok(!metrics.includes('path="/api/items'), 'the URI never becomes a label');
    assert.ok(!metrics.includes('host="nobody.test"'), 'an unconfigured host never becomes a label');
    assert.ok((sample(metrics, 'nginx_ingress_controller_request_duration_seconds_count', labels) ?? 0) >= 20);
    assert.equal(sample(metrics, 'nginx_ingress_controller_request_duration_seconds_bucket', { ...labels, le: '+Inf' }),
      sample(metrics, 'nginx_ingress_controller_request_duration_seconds_count', labels));
    for (const name of ['response_duration_seconds_count', 'request_size_count', 'response_size_count']) {
      assert.ok((sample(metrics, `nginx_ingress_controller_${name}`, labels) ?? 0) >= 20, name);
    }
    const constLabels = { controller_class: 'resty-ingress.dev/controller' };
    const rows: { name: string; labels: Record<string, string>; check: (v: number) => boolean }[] = [
      { name: 'nginx_ingress_controller_config_last_reload_successful', labels: constLabels, check: (v: number) => v === 1 },
      { name: 'nginx_ingress_controller_config_hash', labels: constLabels, check: (v: number) => v > 0 },
      { name: 'nginx_ingress_controller_config_last_reload_successful_timestamp_seconds', labels: {}, check: (v: number) => v > 1.7e9 },
      { name: 'nginx_ingress_controller_success', labels: {}, check: (v: number) => v >= 1 },
      { name: 'nginx_ingress_controller_errors', labels: {}, check: (v: number) => v === 0 },
      { name: 'nginx_ingress_controller_leader_election_status', labels: {}, check: (v: number) => v === 0 || v === 1 },
      { name: 'resty_ingress_sync_total', labels: { result: 'reload' }, check: (v: number) => v >= 1 },
      { name: 'resty_ingress_sync_duration_seconds_count', labels: {}, check: (v: number) => v >= 1 },
      { name: 'nginx_ingress_controller_nginx_process_connections', labels: { state: 'active' }, check: (v: number) => v >= 1 },
      { name: 'nginx_ingress_controller_nginx_process_requests_total', labels: {}, check: (v: number) => v >= 21 },
    ];
    for (const row of rows) {
      const value = sample(metrics, row.name, row.labels);
      assert.ok(value !== null && row.check(value), `${row.name} = ${value}`);
    }
    assert.match(metrics, /# TYPE nginx_ingress_controller_ssl_expire_time_seconds gauge/);
    assert.match(metrics, /# TYPE nginx_ingress_controller_orphan_ingress gauge/);
  });

  await t.test('an endpoint change is timed from the EndpointSlice event to the push', async () => {
    await cluster.kubectlOk(['scale', 'deployment/web', '--replicas=2']);
    await waitFor('a propagation sample', async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      return (sample(text, 'resty_ingress_endpoint_propagation_seconds_count', {}) ?? 0) >= 1 || undefined;
    }, { timeoutMs: 10_000, intervalMs: 200 });
  });

  await t.test('SIGTERM: /healthz fails at once, NGINX serves through the grace period', async () => {
    assert.equal(await statusOf(`${base}/healthz`), 200);
    controller.process.kill('SIGTERM');
    await waitFor('/healthz 500', async () => (await statusOf(`${base}/healthz`)) === 500 || undefined, { timeoutMs: 1000, intervalMs: 20 });
    assert.equal(await statusOf(`${base}/readyz`), 500);
    assert.equal((await request(http, { host: 'web.test', path: '/api' })).status, 200, 'NGINX still serves during the grace period');
  });
});
