// Drain payloads from NGINX → parsed aggregates → ingress-nginx's request
// metrics. Bad parts are counted and skipped, never thrown.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { HISTOGRAMS, parseMonitorPayload, REQUEST_BUCKETS } from './monitor-payload.ts';
import { createRequestMetrics } from './request-metrics.ts';

const BUCKETS = HISTOGRAMS.map((key) => REQUEST_BUCKETS[key]);

/** One entry: `count` requests, all in the first bucket of every histogram, each `value` big. */
function entry(count: number, value: number): number[] {
  return HISTOGRAMS.flatMap((key) => [count, count * value, count, ...new Array<number>(REQUEST_BUCKETS[key].length).fill(0)]);
}

const payload = (batches: unknown[], extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ buckets: BUCKETS, dropped: 0, batches, ...extra });

const KEY = 'shop.test default shop web /api';

void describe('parseMonitorPayload', () => {
  const rows = [
    { name: 'one aggregate', body: payload([{ [KEY]: { GET: { 200: entry(3, 0.001) } } }]), aggregates: 1, malformed: 0, mismatch: 0 },
    { name: 'not JSON', body: 'nope', aggregates: 0, malformed: 1, mismatch: 0 },
    { name: 'key with four fields', body: payload([{ 'a b c /x': { GET: { 200: entry(1, 1) } } }]), aggregates: 0, malformed: 1, mismatch: 0 },
    { name: 'lower-case method', body: payload([{ [KEY]: { get: { 200: entry(1, 1) } } }]), aggregates: 0, malformed: 1, mismatch: 0 },
    { name: 'status not three digits', body: payload([{ [KEY]: { GET: { '2000': entry(1, 1) } } }]), aggregates: 0, malformed: 1, mismatch: 0 },
    { name: 'entry too short', body: payload([{ [KEY]: { GET: { 200: [1, 2, 3] } } }]), aggregates: 0, malformed: 1, mismatch: 0 },
    { name: 'negative number', body: payload([{ [KEY]: { GET: { 200: entry(-1, 1) } } }]), aggregates: 0, malformed: 1, mismatch: 0 },
    { name: 'buckets differ from ours', body: payload([{}, {}], { buckets: [[1], [2], [3], [4]] }), aggregates: 0, malformed: 0, mismatch: 2 },
    { name: 'a bad entry does not stop a good one', body: payload([{ [KEY]: { GET: { 200: entry(1, 1), 500: 'x' } } }]), aggregates: 1, malformed: 1, mismatch: 0 },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const parsed = parseMonitorPayload(row.body);
      assert.equal(parsed.aggregates.length, row.aggregates);
      assert.deepEqual(parsed.rejected, { malformed: row.malformed, bucketMismatch: row.mismatch });
    });
  }

  void it('a regex path comes back with its $ (render writes it as a backtick)', () => {
    const parsed = parseMonitorPayload(payload([{ 'a.test default x y /api(/|`)(.*)': { GET: { 200: entry(1, 1) } } }]));
    assert.equal(parsed.aggregates[0]?.location.path, '/api(/|$)(.*)');
  });
});

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
      metrics.ingest(parseMonitorPayload(payload([{ [KEY]: { GET: { 200: entry(3, 0.001) } } }])));
      metrics.ingest(parseMonitorPayload(payload([{ [KEY]: { GET: { 200: entry(2, 0.001) } } }])));
      const text = await registry.metrics();
      assert.ok(text.includes(`${row.line} 5\n`), text);
      const histogram = row.line.replace('_requests{', '_request_duration_seconds_bucket{').replace('}', ',le="0.005"}');
      assert.ok(text.includes(`${histogram} 5\n`), `cumulative bucket: ${histogram}`);
    });
  }

  void it('counts what it rejects and prunes deleted locations', async () => {
    const registry = new Registry();
    const metrics = createRequestMetrics(registry, { statusClasses: false, perHost: true });
    metrics.ingest(parseMonitorPayload('garbage'));
    metrics.ingest(parseMonitorPayload(payload([{ [KEY]: { GET: { 200: entry(1, 1) } } }], { dropped: 4 })));
    let text = await registry.metrics();
    assert.ok(text.includes('resty_ingress_monitor_rejected_total{reason="malformed"} 1'));
    assert.ok(text.includes('resty_ingress_monitor_rejected_total{reason="nginx-buffer-full"} 4'));
    metrics.prune((location) => location.ingress !== 'shop');
    text = await registry.metrics();
    assert.ok(!text.includes('ingress="shop"'), 'series of a deleted Ingress are gone');
  });
});
