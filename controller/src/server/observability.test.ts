// The wiring of startObservability: what the sync hooks, the build step and
// the metrics log feed into the registry. NGINX is absent (its status URL
// refuses connections, the test writes the metrics log): stub_status fails
// quietly, which is part of what is checked.
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { BuildResult, Certificate, Model } from '../model/types.ts';
import type { SyncDetail } from '../sync/sync.ts';
import { startObservability, type Observability } from './observability.ts';

const DETAIL: SyncDetail = { why: 'endpoints', changed: [], buildMs: 0, renderMs: 0, applyMs: 0 };

const certificate = (name: string, notAfter: string): Certificate => ({
  id: `shop/${name}`, secret: { namespace: 'shop', name }, cert: 'PEM', key: 'KEY', names: [], serial: '01', notAfter,
});

/** A built model serving `hosts` with one certificate each (only `tls` matters here). */
function built(hosts: Record<string, string>): BuildResult {
  const certificates = Object.entries(hosts).map(([host, notAfter]) => certificate(`${host}-tls`, notAfter));
  const model = {
    servers: [], backends: [], settings: null,
    tls: { certificates, hosts: certificates.map((c) => ({ host: c.secret.name.replace(/-tls$/u, ''), certificate: c.id })), defaultCertificate: null },
  } as unknown as Model;
  return { model, failures: [] };
}

const expiryHosts = async (registry: Registry): Promise<string[]> =>
  (await registry.metrics()).split('\n')
    .filter((line) => line.startsWith('nginx_ingress_controller_ssl_expire_time_seconds{'))
    .map((line) => /host="([^"]+)"/u.exec(line)?.[1] ?? '?').sort();

void describe('observability wiring', () => {
  let registry: Registry;
  let observability: Observability;
  const dir = mkdtempSync(join(tmpdir(), 'observability-'));
  const metricsLog = join(dir, 'metrics.log');

  before(async () => {
    registry = new Registry();
    observability = await startObservability({
      registry, logger: pino({ level: 'silent' }), host: '127.0.0.1', port: 0, statusUrl: 'http://127.0.0.1:1', requestMetrics: true, metricsLogPath: metricsLog,
      electionId: 'lease', ingressClass: 'resty', reportStatusClasses: false, metricsPerHost: true,
      nginxPid: () => null, liveVersion: () => null, luaVersion: () => Promise.resolve(null),
    });
  });
  after(async () => {
    await observability.close();
    rmSync(dir, { recursive: true, force: true });
  });

  void it('ssl_expire_time_seconds follows each finished sync; a failed sync changes nothing', async () => {
    const steps: { name: string; hosts: Record<string, string>; outcome: 'synced' | 'failed'; expected: string[] }[] = [
      { name: 'first sync', hosts: { 'a.test': '2030-01-01T00:00:00Z', 'b.test': '2030-02-01T00:00:00Z' }, outcome: 'synced', expected: ['a.test', 'b.test'] },
      { name: 'b.test lost its TLS', hosts: { 'a.test': '2030-01-01T00:00:00Z' }, outcome: 'synced', expected: ['a.test'] },
      { name: 'a sync that threw (not pushed)', hosts: {}, outcome: 'failed', expected: ['a.test'] },
    ];
    for (const step of steps) {
      observability.modelBuilt(built(step.hosts));
      if (step.outcome === 'synced') observability.syncHooks.onSynced?.('dynamic', 5, DETAIL);
      else observability.syncHooks.onSyncFailed?.(new Error('push failed'));
      assert.deepEqual(await expiryHosts(registry), step.expected, step.name);
    }
  });

  void it('webhook reviews reach the admission metrics', async () => {
    observability.admissionReviewed('denied', 40, { namespace: 'shop', name: 'web' });
    const text = await registry.metrics();
    assert.match(text, /^nginx_ingress_controller_check_errors\{namespace="shop",ingress="web"\} 1$/mu);
    assert.match(text, /^nginx_ingress_controller_admission_roundtrip_duration 0\.04$/mu);
  });

  void it('a scrape reads the metrics log first: a request logged just before it is counted', async () => {
    appendFileSync(metricsLog, '- shop-web-80 shop.test shop web web /api\tGET\t200\t0.004\t0.003\t100\t300\t0.001\t0.002\n');
    const text = await (await fetch(`http://127.0.0.1:${observability.port}/metrics`)).text();
    assert.match(text, /^nginx_ingress_controller_requests\{host="shop.test",namespace="shop",ingress="web",service="web",path="\/api",method="GET",status="200",canary=""\} 1$/mu);
  });

  void it('a scrape without NGINX still answers (stub_status fails quietly)', async () => {
    const res = await fetch(`http://127.0.0.1:${observability.port}/metrics`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /resty_ingress_sync_total/u);
  });
});

/** Metric names a scrape exposes (its `# TYPE` lines). */
const exposedNames = (text: string): string[] =>
  text.split('\n').filter((line) => line.startsWith('# TYPE ')).map((line) => line.split(' ')[2] ?? '').sort();

/** Whether this process holds `path` open: the metrics-log tail keeps the file it reads open. */
function holdsOpen(path: string): boolean {
  return readdirSync('/proc/self/fd').some((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false; // closed meanwhile
    }
  });
}

/** What --enable-metrics=false takes away: ingress-nginx's per-request metrics and our count of rejected lines. */
const REQUEST_METRIC_NAMES = [
  'nginx_ingress_controller_bytes_sent', 'nginx_ingress_controller_connect_duration_seconds', 'nginx_ingress_controller_header_duration_seconds',
  'nginx_ingress_controller_request_duration_seconds', 'nginx_ingress_controller_request_size', 'nginx_ingress_controller_requests',
  'nginx_ingress_controller_response_duration_seconds', 'nginx_ingress_controller_response_size', 'resty_ingress_monitor_rejected_total',
];

void describe('--enable-metrics: per-request metrics on and off', () => {
  const dir = mkdtempSync(join(tmpdir(), 'observability-switch-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Starts observability, logs one request into a fresh metrics log, scrapes; returns what the scrape shows. */
  async function scrapeWith(requestMetrics: boolean): Promise<{ names: string[]; text: string; tailed: boolean }> {
    const metricsLog = join(dir, `metrics-${String(requestMetrics)}.log`);
    const observability = await startObservability({
      registry: new Registry(), logger: pino({ level: 'silent' }), host: '127.0.0.1', port: 0, statusUrl: 'http://127.0.0.1:1',
      requestMetrics, metricsLogPath: metricsLog, electionId: 'lease', ingressClass: 'resty', reportStatusClasses: false, metricsPerHost: true,
      nginxPid: () => null, liveVersion: () => null, luaVersion: () => Promise.resolve(null),
    });
    try {
      appendFileSync(metricsLog, '- shop-web-80 shop.test shop web web /api\tGET\t200\t0.004\t0.003\t100\t300\t0.001\t0.002\n');
      const res = await fetch(`http://127.0.0.1:${observability.port}/metrics`);
      assert.equal(res.status, 200, '/metrics is served either way');
      const text = await res.text();
      return { names: exposedNames(text), text, tailed: holdsOpen(metricsLog) };
    } finally {
      await observability.close();
    }
  }

  const rows: { name: string; requestMetrics: boolean; counted: boolean }[] = [
    { name: 'on (the default): the logged request is counted and the log is being read', requestMetrics: true, counted: true },
    { name: 'off: no request metric names, nothing reads the metrics log', requestMetrics: false, counted: false },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const { names, text, tailed } = await scrapeWith(row.requestMetrics);
      assert.equal(tailed, row.requestMetrics, 'the metrics log is held open by a tail');
      assert.deepEqual(REQUEST_METRIC_NAMES.filter((name) => names.includes(name)), row.requestMetrics ? REQUEST_METRIC_NAMES : []);
      assert.equal(/^nginx_ingress_controller_requests\{.*path="\/api".*\} 1$/mu.test(text), row.counted);
    });
  }

  void it('off serves none of ingress-nginx\'s metrics (its dummy collector); resty-ingress\'s own stay', async () => {
    const on = await scrapeWith(true);
    const off = await scrapeWith(false);
    const ingressNginx = on.names.filter((name) => name.startsWith('nginx_ingress_controller_'));
    for (const name of ['nginx_ingress_controller_config_hash', 'nginx_ingress_controller_success', 'nginx_ingress_controller_build_info',
      'nginx_ingress_controller_ssl_expire_time_seconds', 'nginx_ingress_controller_admission_roundtrip_duration', 'nginx_ingress_controller_nginx_process_connections']) {
      assert.ok(ingressNginx.includes(name), `on: ${name} is exposed`);
    }
    assert.deepEqual(on.names.filter((name) => !off.names.includes(name)).sort(), [...ingressNginx, 'resty_ingress_monitor_rejected_total'].sort());
    assert.deepEqual(off.names.filter((name) => !on.names.includes(name)), []);
    for (const kept of ['resty_ingress_sync_total', 'resty_ingress_sync_duration_seconds', 'resty_ingress_admission_requests_total']) {
      assert.ok(off.names.includes(kept), `${kept} is still exposed`);
    }
  });
});
