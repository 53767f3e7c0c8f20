// E2E: ingress-nginx's two public Grafana dashboards (nginx.json and
// request-handling-performance.json; their queries are test data in
// e2e/dashboards/ingress-nginx-queries.json) find data in our /metrics after
// real traffic through real NGINX. /metrics is read as Prometheus stores a
// scrape of the controller's Pod (its namespace, pod and instance labels
// added, a scraped `namespace` kept as `exported_namespace`), and every query
// is checked twice: with each variable set to All, and with each set to the
// first value its label_values() query offers, as a user first opens the
// dashboard. Also: the NGINX process metrics (CPU, memory) of master and
// workers stay monotonic across a reload, and the canary label names the
// canary backend.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { allVariables, checkQuery, concreteVariables, type DashboardQueries } from './dashboards/dashboard-check.ts';
import { parseExposition, scraped, type Series } from './dashboards/series.ts';
import { appManifest, ingressManifest, request, startStack, waitFor, waitForResponse, yamlDocuments } from './harness/index.ts';

const POD = 'ingress-nginx-controller-5f7d8c9b4-x2kqz';
const POD_NAMESPACE = 'ingress-nginx';
const data = JSON.parse(readFileSync(new URL('./dashboards/ingress-nginx-queries.json', import.meta.url), 'utf8')) as { source: string; dashboards: DashboardQueries[] };

/**
 * Queries that are empty with a concrete variable in ingress-nginx too, and why.
 * Keyed by dashboard file and panel title.
 */
const EMPTY_WHEN_CONCRETE: Readonly<Record<string, string>> = {
  'nginx.json: Ingress Certificate Expiry':
    'ssl_expire_time_seconds has no `ingress` label (ingress-nginx\'s neither): ingress=~"$ingress" matches only while $ingress is All',
};

/** What a Prometheus scrape of the controller Pod stores (ServiceMonitor target labels, plus the legacy kubernetes_pod_name relabeling the dashboard's certificate panel reads). */
async function scrape(metricsUrl: string, instance: string): Promise<Series[]> {
  const text = await (await fetch(metricsUrl)).text();
  return scraped(parseExposition(text), { namespace: POD_NAMESPACE, pod: POD, kubernetes_pod_name: POD, instance, job: 'ingress-nginx-controller-metrics' });
}

function value(series: readonly Series[], name: string, labels: Readonly<Record<string, string>> = {}): number | null {
  return series.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => (s.labels[k] ?? '') === v))?.value ?? null;
}

test('ingress-nginx dashboards: every query finds our series after real traffic', async (t) => {
  const { cluster, controller } = await startStack(t, { controller: { env: { POD_NAME: POD, POD_NAMESPACE } } });
  const metricsUrl = `${controller.healthzUrl.replace(/\/healthz$/u, '')}/metrics`;
  const instance = new URL(metricsUrl).host;
  const certificate = createSelfSignedCertificate({ dnsNames: ['web.test'] });
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  // Plain HTTP traffic to a TLS host: no redirect to HTTPS.
  const web = ingressManifest({ name: 'web', host: 'web.test', paths: [{ path: '/api', service: 'web' }], annotations: { 'nginx.ingress.kubernetes.io/ssl-redirect': 'false' } })
    .replace(/^spec:\n/mu, 'spec:\n  tls:\n    - hosts: [web.test]\n      secretName: web-tls\n');
  await cluster.apply([
    appManifest({ name: 'web', replicas: 1 }),
    appManifest({ name: 'web-canary', replicas: 1 }),
    yamlDocuments([{ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name: 'web-tls' }, data: { 'tls.crt': b64(certificate.cert), 'tls.key': b64(certificate.key) } }]),
    web,
    ingressManifest({
      name: 'web-canary', host: 'web.test', paths: [{ path: '/api', service: 'web-canary' }],
      annotations: { 'nginx.ingress.kubernetes.io/canary': 'true', 'nginx.ingress.kubernetes.io/canary-by-header': 'X-Canary' },
    }),
  ].join('---\n'));
  await waitForResponse(controller.http, { host: 'web.test', path: '/api', headers: { 'X-Canary': 'always' } }, (r) => r.status === 200 && r.echo?.pod?.startsWith('web-canary') === true);

  // Traffic: successes, client and server errors (the error-rate panels select status=~"[4-5].*"), a POST, canary requests.
  const plan = [
    ...Array.from({ length: 30 }, (_, i) => ({ path: `/api/items/${i}`, method: 'GET', headers: {} })),
    ...Array.from({ length: 5 }, () => ({ path: '/api/missing?status=404', method: 'GET', headers: {} })),
    ...Array.from({ length: 3 }, () => ({ path: '/api/broken?status=503', method: 'GET', headers: {} })),
    ...Array.from({ length: 4 }, () => ({ path: '/api/orders', method: 'POST', headers: {} })),
    ...Array.from({ length: 6 }, () => ({ path: '/api/new', method: 'GET', headers: { 'X-Canary': 'always' } })),
  ];
  for (const r of plan) await request(controller.http, { host: 'web.test', path: r.path, method: r.method, headers: r.headers, body: r.method === 'POST' ? '{"n":1}' : undefined });
  const series = await waitFor('the traffic in /metrics', async () => {
    const found = await scrape(metricsUrl, instance);
    const counted = found.filter((s) => s.name === 'nginx_ingress_controller_requests' && s.labels.ingress === 'web').reduce((n, s) => n + s.value, 0);
    return counted >= plan.length ? found : undefined;
  }, { timeoutMs: 10_000, intervalMs: 250 });

  await t.test(`every query with the variables at All (${data.source})`, () => {
    const problems = data.dashboards.flatMap((dashboard) => dashboard.queries.flatMap(({ panel, expr }) =>
      checkQuery(expr, series, allVariables(dashboard)).map((p) => `${dashboard.file}: ${panel}: ${p}`)));
    assert.deepEqual(problems, []);
  });

  await t.test('every query with the variables at the first value offered', () => {
    const problems: string[] = [];
    for (const dashboard of data.dashboards) {
      const { vars, empty } = concreteVariables(dashboard, series);
      for (const name of empty) problems.push(`${dashboard.file}: variable $${name} offers no value`);
      if (dashboard.file === 'nginx.json') assert.equal(vars.controller, POD, 'the pod variable offers our pod');
      for (const { panel, expr } of dashboard.queries) {
        const found = checkQuery(expr, series, vars);
        const known = EMPTY_WHEN_CONCRETE[`${dashboard.file}: ${panel}`];
        // A known exception must still be what it says: empty only under the concrete value.
        if (known !== undefined) assert.ok(found.length > 0, `${panel} is no longer empty (${known}): drop the exception`);
        else problems.push(...found.map((p) => `${dashboard.file}: ${panel}: ${p}`));
      }
    }
    assert.deepEqual(problems, []);
  });

  await t.test('the canary label names the canary backend; ingress-nginx\'s labels on every request series', () => {
    const requests = series.filter((s) => s.name === 'nginx_ingress_controller_requests' && s.labels.ingress === 'web');
    assert.ok(requests.some((s) => s.labels.canary === 'default-web-canary-80' && s.value >= 6), JSON.stringify(requests.map((s) => s.labels)));
    for (const s of requests) {
      for (const label of ['host', 'exported_namespace', 'service', 'path', 'method', 'status', 'controller_class', 'controller_namespace', 'controller_pod']) {
        assert.ok((s.labels[label] ?? '') !== '', `${label} on ${JSON.stringify(s.labels)}`);
      }
    }
    for (const name of ['connect_duration_seconds_count', 'header_duration_seconds_count', 'bytes_sent_count']) {
      assert.ok((value(series, `nginx_ingress_controller_${name}`, { ingress: 'web', status: '200', method: 'GET', canary: '' }) ?? 0) >= 30, name);
    }
    assert.equal(value(series, 'nginx_ingress_controller_ssl_certificate_info', { host: 'web.test', secret_name: 'web-tls', exported_namespace: 'default' }), 1);
    assert.equal(value(series, 'nginx_ingress_controller_build_info', { controller_pod: POD }), 1);
  });

  await t.test('process metrics: master and workers, monotonic across a reload', async () => {
    const before = await scrape(metricsUrl, instance);
    assert.ok((value(before, 'nginx_ingress_controller_nginx_process_num_procs') ?? 0) >= 3, 'the master and two workers');
    assert.ok((value(before, 'nginx_ingress_controller_nginx_process_resident_memory_bytes') ?? 0) > 1e6);
    const started = value(before, 'nginx_ingress_controller_nginx_process_oldest_start_time_seconds') ?? 0;
    assert.ok(Math.abs(started - Date.now() / 1000) < 600, `oldest start ${started}`);
    const cpuBefore = value(before, 'nginx_ingress_controller_nginx_process_cpu_seconds_total') ?? 0;
    assert.ok(cpuBefore > 0);
    const from = controller.logs().length;
    await cluster.apply(ingressManifest({ name: 'other', host: 'other.test', paths: [{ path: '/', service: 'web' }] }));
    await controller.waitForReload(from);
    for (let i = 0; i < 20; i++) await request(controller.http, { host: 'other.test', path: '/' });
    const after = await scrape(metricsUrl, instance);
    const cpuAfter = value(after, 'nginx_ingress_controller_nginx_process_cpu_seconds_total') ?? 0;
    assert.ok(cpuAfter >= cpuBefore, `cpu ${cpuBefore} → ${cpuAfter}: the old workers' time stays counted`);
    assert.equal(value(after, 'nginx_ingress_controller_nginx_process_oldest_start_time_seconds'), started, 'the same master');
  });
});
