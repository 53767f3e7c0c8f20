// Parsed metrics-log lines → ingress-nginx's request metrics: labels, sums
// across batches, cumulative buckets, rejections, pruning. (The parsing
// itself is tested in metrics-log-lines.test.ts.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { parseMetricsLog } from './metrics-log-lines.ts';
import { requestBuckets } from './request-aggregate.ts';
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

/** One request to a location of the server `host` ("_": the catch-all). */
const toHost = (host: string): string => `r default-web-80 ${host} default shop web /api\tGET\t200\t0.3\t0.2\t1500\t300\t0.001\t3\n`;
const METRIC_NAMES = ['requests', 'request_duration_seconds', 'response_duration_seconds', 'connect_duration_seconds', 'header_duration_seconds', 'request_size', 'response_size', 'bytes_sent'];

void describe('request metrics: ingress-nginx\'s cardinality flags', () => {
  const excludeRows: { name: string; exclude: string[]; gone: string[] }[] = [
    { name: 'nothing', exclude: [], gone: [] },
    { name: 'connect and header durations, with the prefix', exclude: ['nginx_ingress_controller_connect_duration_seconds', 'nginx_ingress_controller_header_duration_seconds'], gone: ['connect_duration_seconds', 'header_duration_seconds'] },
    { name: 'the counter and bytes_sent, without it', exclude: ['requests', 'bytes_sent'], gone: ['requests', 'bytes_sent'] },
    { name: 'names that are no per-request metric', exclude: ['nginx_ingress_controller_success', 'request_size_bucket', 'nginx_ingress_controller_'], gone: [] },
    { name: 'all of them', exclude: METRIC_NAMES, gone: METRIC_NAMES },
  ];
  for (const row of excludeRows) {
    void it(`--exclude-socket-metrics ${row.name}: neither registered nor fed`, async () => {
      const registry = new Registry();
      const metrics = createRequestMetrics(registry, { statusClasses: false, perHost: true, exclude: row.exclude });
      metrics.ingest(parseMetricsLog(toHost('shop.test')));
      metrics.prune(() => false);
      metrics.ingest(parseMetricsLog(toHost('shop.test')));
      const registered = METRIC_NAMES.filter((name) => registry.getSingleMetric(`nginx_ingress_controller_${name}`) !== undefined);
      assert.deepEqual(METRIC_NAMES.filter((name) => !registered.includes(name)), row.gone);
      const text = await registry.metrics();
      for (const name of registered) assert.match(text, new RegExp(`^nginx_ingress_controller_${name}(_count)?\\{[^}]*\\} 1$`, 'mu'), name);
    });
  }

  const hostRows: { name: string; perHost: boolean; perUndefinedHost?: boolean; counted: Record<string, boolean> }[] = [
    { name: 'default: only hosts an Ingress defines', perHost: true, counted: { 'shop.test': true, '_': false, '*.shop.test': false } },
    { name: 'per undefined host: all, labelled with the server', perHost: true, perUndefinedHost: true, counted: { 'shop.test': true, '_': true, '*.shop.test': true } },
    { name: 'no host label: all (ingress-nginx drops only per host)', perHost: false, counted: { 'shop.test': true, '_': true, '*.shop.test': true } },
  ];
  for (const row of hostRows) {
    for (const [host, counted] of Object.entries(row.counted)) {
      void it(`--metrics-per-undefined-host, ${row.name}: ${host} ${counted ? 'counted' : 'dropped'}`, async () => {
        const registry = new Registry();
        const metrics = createRequestMetrics(registry, { statusClasses: false, perHost: row.perHost, perUndefinedHost: row.perUndefinedHost });
        metrics.ingest(parseMetricsLog(toHost(host)));
        const text = await registry.metrics();
        assert.equal(/^nginx_ingress_controller_requests\{[^}]*\} 1$/mu.test(text), counted, text);
        assert.equal(/^nginx_ingress_controller_request_duration_seconds_count\{[^}]*\} 1$/mu.test(text), counted);
        if (counted && row.perHost) assert.ok(text.includes(`requests{host="${host === '_' ? '' : host}"`), 'the host label is the server');
      });
    }
  }

  void it('--*-buckets: the bounds it registers are the ones it hands the parser', async () => {
    const registry = new Registry();
    const buckets = requestBuckets({ time: [0.25, 2], length: [1000], size: [500] });
    const metrics = createRequestMetrics(registry, { statusClasses: false, perHost: false, buckets });
    assert.equal(metrics.buckets, buckets);
    metrics.ingest(parseMetricsLog(toHost('shop.test'), metrics.buckets));
    const text = await registry.metrics();
    const les = (name: string): string[] => [...text.matchAll(new RegExp(`^nginx_ingress_controller_${name}_bucket\\{[^}]*le="([^"]+)"\\} \\d+$`, 'gmu'))].map((m) => m[1] ?? '');
    assert.deepEqual([les('request_duration_seconds'), les('header_duration_seconds'), les('request_size'), les('response_size'), les('bytes_sent')],
      [['0.25', '2', '+Inf'], ['0.25', '2', '+Inf'], ['1000', '+Inf'], ['1000', '+Inf'], ['500', '+Inf']]);
    assert.match(text, /^nginx_ingress_controller_bytes_sent_bucket\{[^}]*le="500"\} 1$/mu);
  });
});
