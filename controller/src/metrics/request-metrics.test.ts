// Parsed metrics-log lines → ingress-nginx's request metrics: labels, sums
// across batches, cumulative buckets, rejections, pruning. (The parsing
// itself is tested in metrics-log-lines.test.ts.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { parseMetricsLog } from './metrics-log-lines.ts';
import { createRequestMetrics } from './request-metrics.ts';

const LABELS = 'r default-web-80 shop.test default shop web /api';

/** `count` GET 200 requests of `LABELS`, each `seconds` long. */
const requests = (count: number, seconds: string): string => `${LABELS}\tGET\t200\t${seconds}\t${seconds}\t10\t10\t${seconds}\t${seconds}\n`.repeat(count);

void describe('request metrics', () => {
  const rows = [
    { name: 'codes and host', options: { statusClasses: false, perHost: true }, line: 'nginx_ingress_controller_requests{host="shop.test",namespace="default",ingress="shop",service="web",path="/api",method="GET",status="200",canary=""}' },
    { name: 'status classes', options: { statusClasses: true, perHost: true }, line: 'nginx_ingress_controller_requests{host="shop.test",namespace="default",ingress="shop",service="web",path="/api",method="GET",status="2xx",canary=""}' },
    { name: 'no host label', options: { statusClasses: false, perHost: false }, line: 'nginx_ingress_controller_requests{namespace="default",ingress="shop",service="web",path="/api",method="GET",status="200",canary=""}' },
  ];
  for (const row of rows) {
    void it(`labels: ${row.name}; batches add up`, async () => {
      const registry = new Registry();
      const metrics = createRequestMetrics(registry, row.options);
      metrics.ingest(parseMetricsLog(requests(3, '0.001')));
      metrics.ingest(parseMetricsLog(requests(2, '0.001')));
      const text = await registry.metrics();
      assert.ok(text.includes(`${row.line} 5\n`), text);
      const histogram = row.line.replace('_requests{', '_request_duration_seconds_bucket{').replace('}', ',le="0.005"}');
      assert.ok(text.includes(`${histogram} 5\n`), `cumulative bucket: ${histogram}`);
    });
  }

  void it('the canary label names the canary backend that answered, "" for the main one', async () => {
    const registry = new Registry();
    const metrics = createRequestMetrics(registry, { statusClasses: false, perHost: false });
    const canary = `${LABELS} default-web-canary-80\tGET\t200\t0.001\t0.001\t10\t10\t0.001\t0.001\n`;
    metrics.ingest(parseMetricsLog(requests(2, '0.001') + canary.repeat(3)));
    const text = await registry.metrics();
    const series = 'nginx_ingress_controller_requests{namespace="default",ingress="shop",service="web",path="/api",method="GET",status="200",canary=';
    assert.ok(text.includes(`${series}""} 2\n`), text);
    assert.ok(text.includes(`${series}"default-web-canary-80"} 3\n`), text);
  });

  // Names and bucket bounds of ingress-nginx's socket collector (its --time-buckets,
  // --length-buckets and --size-buckets defaults): dashboards and recording rules name them.
  const histogramRows = [
    { name: 'request_duration_seconds', les: ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10'] },
    { name: 'response_duration_seconds', les: ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10'] },
    { name: 'connect_duration_seconds', les: ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10'] },
    { name: 'header_duration_seconds', les: ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10'] },
    { name: 'request_size', les: ['10', '20', '30', '40', '50', '60', '70', '80', '90', '100'] },
    { name: 'response_size', les: ['10', '20', '30', '40', '50', '60', '70', '80', '90', '100'] },
    { name: 'bytes_sent', les: ['10', '100', '1000', '10000', '100000', '1000000', '10000000'] },
  ];
  for (const row of histogramRows) {
    void it(`histogram ${row.name}: ingress-nginx's buckets, one observation per request`, async () => {
      const registry = new Registry();
      const metrics = createRequestMetrics(registry, { statusClasses: false, perHost: false });
      metrics.ingest(parseMetricsLog(requests(3, '0.001')));
      const text = await registry.metrics();
      const name = `nginx_ingress_controller_${row.name}`;
      const les = [...text.matchAll(new RegExp(`^${name}_bucket\\{[^}]*le="([^"]+)"\\} (\\d+)$`, 'gmu'))].map((m) => m[1]);
      assert.deepEqual(les, [...row.les, '+Inf'], text);
      assert.match(text, new RegExp(`^${name}_count\\{[^}]*canary=""\\} 3$`, 'mu'));
    });
  }

  void it('counts what it rejects and prunes deleted locations', async () => {
    const registry = new Registry();
    const metrics = createRequestMetrics(registry, { statusClasses: false, perHost: true });
    metrics.ingest(parseMetricsLog('garbage\n'));
    metrics.ingest({ ...parseMetricsLog(requests(1, '1.000')), droppedInNginx: 4 });
    let text = await registry.metrics();
    assert.ok(text.includes('resty_ingress_monitor_rejected_total{reason="malformed"} 1'));
    assert.ok(text.includes('resty_ingress_monitor_rejected_total{reason="nginx-buffer-full"} 4'));
    metrics.prune((location) => location.ingress !== 'shop');
    text = await registry.metrics();
    assert.ok(!text.includes('ingress="shop"'), 'series of a deleted Ingress are gone');
  });
});
