// The wiring of startObservability: what the sync hooks, the build step and
// the metrics log feed into the registry. NGINX is absent (its status URL
// refuses connections, the test writes the metrics log): stub_status fails
// quietly, which is part of what is checked.
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
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
      registry, logger: pino({ level: 'silent' }), host: '127.0.0.1', port: 0, statusUrl: 'http://127.0.0.1:1', metricsLogPath: metricsLog,
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
    appendFileSync(metricsLog, 'shop.test shop web web /api\tGET\t200\t0.004\t0.003\t100\t300\n');
    const text = await (await fetch(`http://127.0.0.1:${observability.port}/metrics`)).text();
    assert.match(text, /^nginx_ingress_controller_requests\{host="shop.test",namespace="shop",ingress="web",service="web",path="\/api",method="GET",status="200",canary=""\} 1$/mu);
  });

  void it('a scrape without NGINX still answers (stub_status fails quietly)', async () => {
    const res = await fetch(`http://127.0.0.1:${observability.port}/metrics`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /resty_ingress_sync_total/u);
  });
});
