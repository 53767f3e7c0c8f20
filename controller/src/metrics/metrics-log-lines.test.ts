// Metrics-log lines as NGINX writes them → aggregates per location, method and
// status. Bad lines are counted and skipped, never thrown.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bucketIndex, parseMetricsLog, unescapeNginx } from './metrics-log-lines.ts';
import { REQUEST_BUCKETS, type HistogramKey, type RequestAggregate } from './request-aggregate.ts';

const LABELS = 'shop.test default shop web /api';

/** One line in the contract's field order; override any field by name. */
function line(fields: Partial<Record<'labels' | 'method' | 'status' | 'requestTime' | 'upstreamTime' | 'requestLength' | 'bytesSent', string>> = {}): string {
  const f = { labels: LABELS, method: 'GET', status: '200', requestTime: '0.004', upstreamTime: '0.003', requestLength: '100', bytesSent: '300', ...fields };
  return `${f.labels}\t${f.method}\t${f.status}\t${f.requestTime}\t${f.upstreamTime}\t${f.requestLength}\t${f.bytesSent}\n`;
}

/** count, sum and the index of each non-empty bucket (with its count) of one histogram. */
function summary(aggregate: RequestAggregate | undefined, key: HistogramKey): { count: number; sum: number; buckets: Record<number, number> } {
  const data = aggregate?.histograms[key];
  assert.ok(data, 'aggregate exists');
  assert.equal(data.buckets.length, REQUEST_BUCKETS[key].length + 1, 'one slot per bound plus the overflow');
  const buckets: Record<number, number> = {};
  data.buckets.forEach((n, i) => { if (n > 0) buckets[i] = n; });
  return { count: data.count, sum: Math.round(data.sum * 1e6) / 1e6, buckets };
}

void describe('parseMetricsLog: what lands where', () => {
  const rows: { name: string; text: string; key: HistogramKey; expected: ReturnType<typeof summary>; method?: string }[] = [
    { name: 'one request, each histogram observed once', text: line(), key: 'requestDuration', expected: { count: 1, sum: 0.004, buckets: { 0: 1 } } },
    { name: 'same label set adds up', text: line() + line({ requestTime: '0.020' }), key: 'requestDuration', expected: { count: 2, sum: 0.024, buckets: { 0: 1, 2: 1 } } },
    { name: 'retries: the last try answered', text: line({ upstreamTime: '0.010, 0.004' }), key: 'responseDuration', expected: { count: 1, sum: 0.004, buckets: { 0: 1 } } },
    { name: 'internal redirect: last value after " : "', text: line({ upstreamTime: '0.001, 0.002 : 0.030' }), key: 'responseDuration', expected: { count: 1, sum: 0.03, buckets: { 3: 1 } } },
    { name: '"-": no upstream answered, no response observation', text: line({ upstreamTime: '-' }), key: 'responseDuration', expected: { count: 0, sum: 0, buckets: {} } },
    { name: '"-": the request is still counted', text: line({ upstreamTime: '-' }), key: 'requestDuration', expected: { count: 1, sum: 0.004, buckets: { 0: 1 } } },
    { name: 'last try "-": no observation', text: line({ upstreamTime: '0.010, -' }), key: 'responseDuration', expected: { count: 0, sum: 0, buckets: {} } },
    { name: 'edge: 0.005 s is in le=0.005', text: line({ requestTime: '0.005' }), key: 'requestDuration', expected: { count: 1, sum: 0.005, buckets: { 0: 1 } } },
    { name: 'edge: 0.006 s is in le=0.01', text: line({ requestTime: '0.006' }), key: 'requestDuration', expected: { count: 1, sum: 0.006, buckets: { 1: 1 } } },
    { name: 'edge: 10 s is in le=10', text: line({ requestTime: '10.000' }), key: 'requestDuration', expected: { count: 1, sum: 10, buckets: { 10: 1 } } },
    { name: 'edge: 10.001 s overflows', text: line({ requestTime: '10.001' }), key: 'requestDuration', expected: { count: 1, sum: 10.001, buckets: { 11: 1 } } },
    { name: 'edge: 0 s is in the first bucket', text: line({ requestTime: '0.000' }), key: 'requestDuration', expected: { count: 1, sum: 0, buckets: { 0: 1 } } },
    { name: 'edge: 64 bytes in le=64, 65 in le=256', text: line({ requestLength: '64' }) + line({ requestLength: '65' }), key: 'requestSize', expected: { count: 2, sum: 129, buckets: { 0: 1, 1: 1 } } },
    { name: 'edge: 1 MiB in le=1048576, one more byte overflows', text: line({ bytesSent: '1048576' }) + line({ bytesSent: '1048577' }), key: 'responseSize', expected: { count: 2, sum: 2097153, buckets: { 7: 1, 8: 1 } } },
    { name: 'PROPFIND becomes OTHER', text: line({ method: 'PROPFIND' }), key: 'requestDuration', expected: { count: 1, sum: 0.004, buckets: { 0: 1 } }, method: 'OTHER' },
    { name: 'lower-case get becomes OTHER', text: line({ method: 'get' }), key: 'requestDuration', expected: { count: 1, sum: 0.004, buckets: { 0: 1 } }, method: 'OTHER' },
    { name: 'an escaped method becomes OTHER', text: line({ method: 'G\\x0AET' }), key: 'requestDuration', expected: { count: 1, sum: 0.004, buckets: { 0: 1 } }, method: 'OTHER' },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const parsed = parseMetricsLog(row.text);
      assert.equal(parsed.rejected.malformed, 0);
      assert.equal(parsed.aggregates.length, 1);
      assert.equal(parsed.aggregates[0]?.method, row.method ?? 'GET');
      assert.deepEqual(summary(parsed.aggregates[0], row.key), row.expected);
    });
  }
});

void describe('parseMetricsLog: label sets', () => {
  const rows = [
    { name: 'plain', labels: LABELS, expected: { host: 'shop.test', namespace: 'default', ingress: 'shop', service: 'web', path: '/api' } },
    { name: 'catch-all host "_" and "-" fields are empty', labels: '_ - - - /', expected: { host: '', namespace: '', ingress: '', service: '', path: '/' } },
    { name: 'a backtick in a regex path is $', labels: 'a.test ns x y /api(/|`)(.*)', expected: { host: 'a.test', namespace: 'ns', ingress: 'x', service: 'y', path: '/api(/|$)(.*)' } },
    { name: 'escaped quote and backslash', labels: 'a.test ns x y /a\\x22b\\x5Cc', expected: { host: 'a.test', namespace: 'ns', ingress: 'x', service: 'y', path: '/a"b\\c' } },
    { name: 'escaped UTF-8 bytes', labels: 'a.test ns x y /caf\\xC3\\xA9', expected: { host: 'a.test', namespace: 'ns', ingress: 'x', service: 'y', path: '/café' } },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const parsed = parseMetricsLog(line({ labels: row.labels }));
      assert.equal(parsed.rejected.malformed, 0);
      assert.deepEqual(parsed.aggregates[0]?.location, row.expected);
    });
  }

  void it('one aggregate per location, method and status, in first-seen order', () => {
    const parsed = parseMetricsLog(line() + line({ status: '404' }) + line({ method: 'POST' }) + line({ labels: 'b.test ns x y /' }) + line({ status: '404' }));
    assert.deepEqual(parsed.aggregates.map((a) => `${a.location.host} ${a.method} ${a.status} ${a.histograms.requestDuration.count}`),
      ['shop.test GET 200 1', 'shop.test GET 404 2', 'shop.test POST 200 1', 'b.test GET 200 1']);
  });
});

void describe('parseMetricsLog: malformed lines are counted and skipped', () => {
  const rows = [
    { name: 'six fields', text: 'shop.test default shop web /api\tGET\t200\t0.004\t0.003\t100\n' },
    { name: 'eight fields', text: line().replace('\n', '\t1\n') },
    { name: 'labels with four fields', text: line({ labels: 'shop.test default shop /api' }) },
    { name: 'path not starting with /', text: line({ labels: 'shop.test default shop web api' }) },
    { name: 'status of two digits', text: line({ status: '20' }) },
    { name: 'status of four digits', text: line({ status: '2000' }) },
    { name: 'status not a number', text: line({ status: 'abc' }) },
    { name: 'request_time not a number', text: line({ requestTime: 'abc' }) },
    { name: 'request_time negative', text: line({ requestTime: '-1.000' }) },
    { name: 'request_time empty', text: line({ requestTime: '' }) },
    { name: 'upstream times joined without space', text: line({ upstreamTime: '0.010,0.004' }) },
    { name: 'upstream time not a number', text: line({ upstreamTime: 'soon' }) },
    { name: 'request_length with a fraction', text: line({ requestLength: '12.5' }) },
    { name: 'bytes_sent "-"', text: line({ bytesSent: '-' }) },
    { name: 'an empty line', text: '\n' },
    { name: 'a line that is not ours', text: '127.0.0.1 - - [01/Jan/2025:00:00:00 +0000] "GET / HTTP/1.1" 200 12\n' },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const parsed = parseMetricsLog(row.text);
      assert.deepEqual(parsed.rejected, { malformed: 1, bucketMismatch: 0 });
      assert.equal(parsed.aggregates.length, 0);
    });
  }

  void it('a bad line does not cost the good ones around it', () => {
    const parsed = parseMetricsLog(line() + line({ status: 'x' }) + line());
    assert.equal(parsed.rejected.malformed, 1);
    assert.equal(parsed.aggregates[0]?.histograms.requestDuration.count, 2);
  });

  void it('the last line may lack its "\\n"; empty text is nothing', () => {
    assert.equal(parseMetricsLog(line().trimEnd()).aggregates.length, 1);
    assert.deepEqual(parseMetricsLog(''), { aggregates: [], rejected: { malformed: 0, bucketMismatch: 0 }, droppedInNginx: 0 });
  });
});

void describe('helpers', () => {
  const rows = [
    { name: 'below the first bound', bounds: [1, 2], value: 0.5, expected: 0 },
    { name: 'equal to a bound (le)', bounds: [1, 2], value: 2, expected: 1 },
    { name: 'above the last bound: overflow', bounds: [1, 2], value: 2.5, expected: 2 },
  ];
  for (const row of rows) void it(`bucketIndex: ${row.name}`, () => assert.equal(bucketIndex(row.bounds, row.value), row.expected));

  void it('unescapeNginx leaves text without escapes alone and ignores a bad escape', () => {
    assert.equal(unescapeNginx('/plain'), '/plain');
    assert.equal(unescapeNginx('/a\\xZZ'), '/a\\xZZ');
  });
});
