// Per-request metrics inside real NGINX (2 workers): the log phase
// aggregates per location label set, method and status; each worker flushes
// once a second into the shared list; GET /configuration/metrics drains it
// in the shape controller/src/metrics/monitor-payload.ts parses.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { findDataplane } from '../controller/src/nginx/dataplane.ts';
import { parseMonitorPayload, REQUEST_BUCKETS, type RequestAggregate } from '../controller/src/metrics/monitor-payload.ts';
import { contractHttpBlock, freePort, startNginx } from './test/nginx-harness.ts';
import { assertCleanErrorLog, postRaw, startEchoBackends, waitAllWorkersApplied, type EchoBackend, type LuaNginx } from './test/lua-fixture.ts';

const API_LABELS = 'app.example.com default web-ing web-svc /api';
const EMPTY_LABELS = '_ - - - /empty';
const LITERAL_LABELS = 'lit.example.com default lit-ing web-svc /literal';

function proxiedLocation(path: string, backend: string, labels: string | null): string {
  return `
      location ${path} {
        set $proxy_upstream_name ${backend};
        ${labels === null ? '' : `set $resty_metrics_labels "${labels}";`}
        rewrite_by_lua_block { require("resty_ingress.balancer").rewrite() }
        log_by_lua_block { require("resty_ingress.log_phase").log() }
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_pass http://upstream_balancer;
      }`;
}

/** A location as rootfs/etc/nginx/template/location.njk renders it: backend and labels are literals, no variables. */
function renderedLocation(path: string, backend: string, labels: string): string {
  return `
      location ${path} {
        set $proxy_upstream_name ${backend};
        rewrite_by_lua_block { resty_ingress.rewrite("${backend}") }
        log_by_lua_block { resty_ingress.log("${backend}", "${labels}") }
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_pass http://upstream_balancer;
      }`;
}

/** Index of the bucket (bounds as in monitor-payload.ts, overflow last) that holds `value`. */
function bucketOf(bounds: readonly number[], value: number): number {
  const index = bounds.findIndex((bound) => value <= bound);
  return index < 0 ? bounds.length : index;
}

/** Sums the request counts of every aggregate by "labels method status". */
function countsOf(aggregates: readonly RequestAggregate[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { location, method, status, histograms } of aggregates) {
    const key = `${location.path} ${method} ${status}`;
    counts[key] = (counts[key] ?? 0) + histograms.requestDuration.count;
  }
  return counts;
}

void describe('monitor', () => {
  let fixture: LuaNginx;
  let echo: EchoBackend[];
  let proxyUrl: string;

  before(async () => {
    echo = await startEchoBackends(['m1']);
    const dataplane = findDataplane();
    const statusPort = await freePort();
    const proxyPort = await freePort();
    const servers = `
    lua_shared_dict resty_monitor 16m;
    server {
      listen 127.0.0.1:${proxyPort};
      ${proxiedLocation('/api', 'web', API_LABELS)}
      ${proxiedLocation('/empty', 'empty', EMPTY_LABELS)}
      ${proxiedLocation('/unlabelled', 'web', null)}
      ${renderedLocation('/literal', 'web', LITERAL_LABELS)}
    }`;
    const nginx = await startNginx({ dataplane, readyPort: statusPort, http: contractHttpBlock(dataplane, statusPort, servers) });
    fixture = { nginx, statusUrl: `http://127.0.0.1:${statusPort}`, proxyUrl: `http://127.0.0.1:${proxyPort}`, logChecked: 0 };
    proxyUrl = fixture.proxyUrl;
    const pushed = await postRaw(fixture.statusUrl, JSON.stringify([
      { name: 'web', endpoints: [{ address: echo[0].address, port: echo[0].port }], loadBalance: 'ewma' },
      { name: 'empty', endpoints: [], loadBalance: 'round_robin' },
    ]));
    assert.equal(pushed.status, 201, pushed.text);
    await waitAllWorkersApplied(fixture);
  });
  after(async () => {
    await fixture?.nginx.stop();
    await Promise.all((echo ?? []).map((b) => b.close()));
  });

  async function send(path: string, count: number, init: RequestInit = {}): Promise<void> {
    for (let i = 0; i < count; i++) await (await fetch(`${proxyUrl}${path}`, init)).arrayBuffer();
  }

  async function drain(): Promise<{ body: string; batches: number }> {
    const res = await fetch(`${fixture.statusUrl}/configuration/metrics`);
    assert.equal(res.status, 200);
    const body = await res.text();
    return { body, batches: (JSON.parse(body) as { batches: unknown[] }).batches.length };
  }

  void it('aggregates per label set, method and status; the controller parses every entry', async () => {
    await drain();
    await send('/api', 30);
    await send('/api', 5, { method: 'POST', body: 'x'.repeat(2000) });
    await send('/api', 4, { method: 'FOO' });
    await send('/empty', 3);
    await send('/unlabelled', 2);
    await sleep(1300); // one flush interval
    const { body, batches } = await drain();
    const parsed = parseMonitorPayload(body);
    assert.deepEqual(parsed.rejected, { malformed: 0, bucketMismatch: 0 });
    assert.ok(batches >= 1 && batches <= 4, `42 requests in ${batches} batches: one per worker and flush, not per request`);
    assert.deepEqual(countsOf(parsed.aggregates), {
      '/api GET 200': 30,
      '/api POST 200': 5,
      '/api OTHER 400': 4, // unknown methods cannot mint label values (node:http answers them 400)
      '/empty GET 503': 3,
    });
    const api = parsed.aggregates.find((a) => a.location.path === '/api');
    assert.deepEqual(api?.location, { host: 'app.example.com', namespace: 'default', ingress: 'web-ing', service: 'web-svc', path: '/api' });
    const empty = parsed.aggregates.find((a) => a.location.path === '/empty');
    assert.deepEqual(empty?.location, { host: '', namespace: '', ingress: '', service: '', path: '/empty' });
    assert.equal(empty?.histograms.responseDuration.count, 0, 'a 503 from the rewrite phase has no upstream time');
    const posts = parsed.aggregates.filter((a) => a.method === 'POST');
    const postBytes = posts.reduce((n, a) => n + a.histograms.requestSize.sum, 0);
    assert.ok(postBytes >= 5 * 2000, `request_size sums the POST bodies: ${postBytes}`);
    for (const { histograms } of parsed.aggregates) {
      for (const data of Object.values(histograms)) {
        assert.equal(data.buckets.reduce((n, b) => n + b, 0), data.count, 'bucket counts add up to the count');
      }
    }
    assertCleanErrorLog(fixture);
  });

  void it('the rendered handler form: labels from the literal, sizes in the bucket their value falls in', async () => {
    await drain();
    await send('/literal', 6);
    await send('/literal', 3, { method: 'POST', body: 'y'.repeat(5000) });
    await sleep(1300);
    const parsed = parseMonitorPayload((await drain()).body);
    assert.deepEqual(countsOf(parsed.aggregates), { '/literal GET 200': 6, '/literal POST 200': 3 });
    for (const aggregate of parsed.aggregates) {
      assert.deepEqual(aggregate.location, { host: 'lit.example.com', namespace: 'default', ingress: 'lit-ing', service: 'web-svc', path: '/literal' });
      // Same method, headers and body: every request of an aggregate has one size, so one bucket holds them all.
      for (const key of ['requestSize', 'responseSize'] as const) {
        const { count, sum, buckets } = aggregate.histograms[key];
        const expected = buckets.map((_, i) => (i === bucketOf(REQUEST_BUCKETS[key], sum / count) ? count : 0));
        assert.deepEqual(buckets, expected, `${aggregate.method} ${key}: sum ${sum} over ${count}`);
      }
      // (Two workers: a method's requests may be split over two aggregates; countsOf checked the totals.)
      const { count, sum, buckets } = aggregate.histograms.requestDuration;
      assert.ok(sum < 1 && buckets.slice(0, 4).reduce((n, b) => n + b, 0) === count, `loopback requests take < 50 ms: ${JSON.stringify(buckets)}`);
    }
    const post = parsed.aggregates.find((a) => a.method === 'POST')?.histograms.requestSize;
    assert.equal(bucketOf(REQUEST_BUCKETS.requestSize, (post?.sum ?? 0) / (post?.count ?? 1)), 4, 'a 5000-byte body lands in (4096, 16384]');
    assertCleanErrorLog(fixture);
  });

  void it('a drain takes everything: the next one is empty', async () => {
    await send('/api', 3);
    await sleep(1300);
    assert.ok((await drain()).batches >= 1);
    const again = await drain();
    assert.equal(again.batches, 0);
    assert.equal((JSON.parse(again.body) as { dropped: number }).dropped, 0);
    assertCleanErrorLog(fixture);
  });

  void it('workers leaving on a reload flush what they hold', async () => {
    await drain();
    await send('/api', 10);
    process.kill(fixture.nginx.masterPid, 'SIGHUP'); // well before the next flush tick of most workers
    await sleep(1500);
    const counts = countsOf(parseMonitorPayload((await drain()).body).aggregates);
    assert.equal(counts['/api GET 200'], 10);
    assertCleanErrorLog(fixture);
  });
});
