// Metrics-log lines as NGINX writes them → aggregates per location, canary,
// method and status. Bad lines are counted and skipped, never thrown.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bucketIndex, parseMetricsLog } from './metrics-log-lines.ts';
import { REQUEST_BUCKETS, requestBuckets, type HistogramKey, type RequestAggregate } from './request-aggregate.ts';

/** $resty_route: the flags and the backend, then the labels. */
const LABELS = 'r default-web-80 shop.test default shop web /api';

/** One line in the contract's field order; override any field by name. */
function line(fields: Partial<Record<'labels' | 'method' | 'status' | 'requestTime' | 'upstreamTime' | 'requestLength' | 'bytesSent' | 'connectTime' | 'headerTime', string>> = {}): string {
  const f = { labels: LABELS, method: 'GET', status: '200', requestTime: '0.004', upstreamTime: '0.003', requestLength: '100', bytesSent: '300', connectTime: '0.001', headerTime: '0.002', ...fields };
  return `${f.labels}\t${f.method}\t${f.status}\t${f.requestTime}\t${f.upstreamTime}\t${f.requestLength}\t${f.bytesSent}\t${f.connectTime}\t${f.headerTime}\n`;
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
    { name: 'edge: 10 bytes in le=10, 11 in le=20', text: line({ requestLength: '10' }) + line({ requestLength: '11' }), key: 'requestSize', expected: { count: 2, sum: 21, buckets: { 0: 1, 1: 1 } } },
    { name: 'edge: 100 bytes in le=100, one more byte overflows', text: line({ bytesSent: '100' }) + line({ bytesSent: '101' }), key: 'responseSize', expected: { count: 2, sum: 201, buckets: { 9: 1, 10: 1 } } },
    { name: 'bytes_sent: the response size in its own buckets (le=1000)', text: line({ bytesSent: '300' }), key: 'bytesSent', expected: { count: 1, sum: 300, buckets: { 2: 1 } } },
    { name: 'edge: bytes_sent of 10^7 in le=1e+07, one more overflows', text: line({ bytesSent: '10000000' }) + line({ bytesSent: '10000001' }), key: 'bytesSent', expected: { count: 2, sum: 20000001, buckets: { 6: 1, 7: 1 } } },
    { name: 'connect time of the answering try', text: line({ connectTime: '0.200, 0.030' }), key: 'connectDuration', expected: { count: 1, sum: 0.03, buckets: { 3: 1 } } },
    { name: 'connect time "-": no observation', text: line({ connectTime: '-' }), key: 'connectDuration', expected: { count: 0, sum: 0, buckets: {} } },
    { name: 'header time of the answering try', text: line({ headerTime: '- : 0.300' }), key: 'headerDuration', expected: { count: 1, sum: 0.3, buckets: { 6: 1 } } },
    { name: 'header time "-": no observation', text: line({ headerTime: '-' }), key: 'headerDuration', expected: { count: 0, sum: 0, buckets: {} } },
    { name: 'PROPFIND becomes OTHER', text: line({ method: 'PROPFIND' }), key: 'requestDuration', expected: { count: 1, sum: 0.004, buckets: { 0: 1 } }, method: 'OTHER' },
    { name: 'lower-case get becomes OTHER', text: line({ method: 'get' }), key: 'requestDuration', expected: { count: 1, sum: 0.004, buckets: { 0: 1 } }, method: 'OTHER' },
    { name: 'an escaped method becomes OTHER', text: line({ method: 'G\\x0AET' }), key: 'requestDuration', expected: { count: 1, sum: 0.004, buckets: { 0: 1 } }, method: 'OTHER' },
    { name: 'an empty method becomes OTHER', text: line({ method: '' }), key: 'requestDuration', expected: { count: 1, sum: 0.004, buckets: { 0: 1 } }, method: 'OTHER' },
    { name: 'leading zeros are decimal', text: line({ requestLength: '0064' }), key: 'requestSize', expected: { count: 1, sum: 64, buckets: { 6: 1 } } },
    { name: 'a 400-digit size is read as Infinity and overflows', text: line({ bytesSent: '1'.repeat(400) }), key: 'responseSize', expected: { count: 1, sum: Infinity, buckets: { 10: 1 } } },
    { name: 'all tries "-": no response observation', text: line({ upstreamTime: '-, - : -' }), key: 'responseDuration', expected: { count: 0, sum: 0, buckets: {} } },
    { name: 'a "-" try before the answering one', text: line({ upstreamTime: '- : 0.020' }), key: 'responseDuration', expected: { count: 1, sum: 0.02, buckets: { 2: 1 } } },
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
    { name: 'plain', labels: LABELS, expected: { host: 'shop.test', namespace: 'default', ingress: 'shop', service: 'web', path: '/api' }, canary: '' },
    { name: 'no flags ("-")', labels: '- default-web-80 shop.test default shop web /api', expected: { host: 'shop.test', namespace: 'default', ingress: 'shop', service: 'web', path: '/api' }, canary: '' },
    { name: 'an 8th word: the canary backend', labels: `${LABELS} default-web-canary-80`, expected: { host: 'shop.test', namespace: 'default', ingress: 'shop', service: 'web', path: '/api' }, canary: 'default-web-canary-80' },
    { name: 'catch-all host "_" and "-" fields are empty', labels: '- default-web-80 _ - - - /', expected: { host: '', namespace: '', ingress: '', service: '', path: '/' }, canary: '' },
    { name: 'a backtick in a regex path is $', labels: 'e ns-y-80 a.test ns x y /api(/|`)(.*)', expected: { host: 'a.test', namespace: 'ns', ingress: 'x', service: 'y', path: '/api(/|$)(.*)' }, canary: '' },
    // The log is read one char per byte: UTF-8 arrives as its bytes (escape=none writes them raw).
    { name: 'UTF-8 bytes', labels: '- ns-y-80 a.test ns x y /caf\u00C3\u00A9', expected: { host: 'a.test', namespace: 'ns', ingress: 'x', service: 'y', path: '/café' }, canary: '' },
    { name: 'text like an NGINX escape is taken as written (escape=none)', labels: '- ns-y-80 a.test ns x y /a\\x22b', expected: { host: 'a.test', namespace: 'ns', ingress: 'x', service: 'y', path: '/a\\x22b' }, canary: '' },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const parsed = parseMetricsLog(line({ labels: row.labels }));
      assert.equal(parsed.rejected.malformed, 0);
      assert.deepEqual(parsed.aggregates[0]?.location, row.expected);
      assert.equal(parsed.aggregates[0]?.canary, row.canary);
    });
  }

  void it('requests sent to the canary are their own aggregate, in first-seen order', () => {
    const parsed = parseMetricsLog(line() + line({ labels: `${LABELS} canary-80` }) + line() + line({ labels: `${LABELS} canary-80` }) + line({ labels: `${LABELS} other-80` }));
    assert.deepEqual(parsed.aggregates.map((a) => `${a.location.path} [${a.canary}] ${a.histograms.requestDuration.count}`),
      ['/api [] 2', '/api [canary-80] 2', '/api [other-80] 1']);
  });

  void it('a very long path (100 000 chars)', () => {
    const parsed = parseMetricsLog(line({ labels: `- ns-y-80 a.test ns x y /${'p'.repeat(100_000)}` }));
    assert.equal(parsed.rejected.malformed, 0);
    assert.equal(parsed.aggregates[0]?.location.path, `/${'p'.repeat(100_000)}`);
  });

  void it('unknown methods share the OTHER aggregate, in first-seen order', () => {
    const parsed = parseMetricsLog(line({ method: 'PROPFIND' }) + line() + line({ method: 'MKCOL' }) + line({ method: 'OTHER' }));
    assert.deepEqual(parsed.aggregates.map((a) => `${a.method} ${a.histograms.requestDuration.count}`), ['OTHER 3', 'GET 1']);
  });

  void it('one aggregate per location, method and status, in first-seen order', () => {
    const parsed = parseMetricsLog(line() + line({ status: '404' }) + line({ method: 'POST' }) + line({ labels: '- ns-y-80 b.test ns x y /' }) + line({ status: '404' }));
    assert.deepEqual(parsed.aggregates.map((a) => `${a.location.host} ${a.method} ${a.status} ${a.histograms.requestDuration.count}`),
      ['shop.test GET 200 1', 'shop.test GET 404 2', 'shop.test POST 200 1', 'b.test GET 200 1']);
  });
});

void describe('parseMetricsLog: malformed lines are counted and skipped', () => {
  const rows = [
    { name: 'six fields', text: `${LABELS}\tGET\t200\t0.004\t0.003\t100\n` },
    { name: 'seven fields (the format before connect and header times)', text: `${LABELS}\tGET\t200\t0.004\t0.003\t100\t300\n` },
    { name: 'eight fields (no header time)', text: `${LABELS}\tGET\t200\t0.004\t0.003\t100\t300\t0.001\n` },
    { name: 'ten fields', text: line().replace('\n', '\t1\n') },
    { name: 'connect time not a number', text: line({ connectTime: 'soon' }) },
    { name: 'connect time empty', text: line({ connectTime: '' }) },
    { name: 'header time joined without space', text: line({ headerTime: '0.1,0.2' }) },
    { name: 'header time empty', text: line({ headerTime: '' }) },
    { name: 'labels with six words (the format before route flags)', text: line({ labels: 'default-web-80 shop.test default shop web /api' }) },
    { name: 'labels without the backend (the format before $resty_route)', text: line({ labels: 'shop.test default shop web /api' }) },
    { name: 'labels with nine words', text: line({ labels: `${LABELS} canary-80 more` }) },
    { name: 'labels ending in a space (an empty 8th word)', text: line({ labels: `${LABELS} ` }) },
    { name: 'a canary word but no path in 7th place', text: line({ labels: 'r default-web-80 shop.test default shop web canary-80 /api' }) },
    { name: 'path not starting with /', text: line({ labels: 'r default-web-80 shop.test default shop web api' }) },
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
    // Number() would accept each of these; the contract's numbers are plain digits.
    { name: 'request_length in exponent notation', text: line({ requestLength: '1e3' }) },
    { name: 'request_length negative', text: line({ requestLength: '-1' }) },
    { name: 'bytes_sent in hex', text: line({ bytesSent: '0x10' }) },
    { name: 'bytes_sent with a leading space', text: line({ bytesSent: ' 300' }) },
    { name: 'bytes_sent "Infinity"', text: line({ bytesSent: 'Infinity' }) },
    { name: 'request_time ending in "."', text: line({ requestTime: '1.' }) },
    { name: 'request_time starting with "."', text: line({ requestTime: '.5' }) },
    { name: 'request_time with two dots', text: line({ requestTime: '1.2.3' }) },
    { name: 'upstream time in exponent notation', text: line({ upstreamTime: '1e-3' }) },
    { name: 'upstream times ending in a separator', text: line({ upstreamTime: '0.010, ' }) },
    { name: 'upstream times starting with a separator', text: line({ upstreamTime: ' : 0.010' }) },
    { name: 'upstream "-" glued to a number', text: line({ upstreamTime: '-0.010' }) },
    { name: 'status of non-ASCII digits', text: line({ status: '\u0662\u0660\u0660' }) },
    { name: 'labels empty', text: line({ labels: '' }) },
    { name: 'status empty', text: line({ status: '' }) },
    { name: 'upstream time empty', text: line({ upstreamTime: '' }) },
    { name: 'request_length empty', text: line({ requestLength: '' }) },
    { name: 'bytes_sent empty', text: line({ bytesSent: '' }) },
    { name: 'a TAB inside the labels', text: line({ labels: 'r default-web-80 shop.test default\tshop web /api' }) },
    { name: 'a TAB inside the method', text: line({ method: 'G\tET' }) },
    { name: 'a TAB after the last field', text: line().replace('\n', '\t\n') },
    { name: 'a CR before the "\\n"', text: line().replace('\n', '\r\n') },
    { name: 'a very long line of digits', text: `${'1'.repeat(100_000)}\n` },
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

  const lineRows = [
    { name: 'a line without a TAB', text: `no tab here\n${line()}` },
    { name: 'a line with one TAB', text: `a\tb\n${line()}` },
    { name: 'a line with two TABs', text: `a\tb\tc\n${line()}` },
    { name: 'a line that ends after its key', text: `${LABELS}\tGET\t200\t\n${line()}` },
    { name: 'several short lines in a row', text: `a\tb\n\t\nc\n${line()}` },
  ];
  for (const row of lineRows) {
    void it(`${row.name} does not take TABs from the next line`, () => {
      const parsed = parseMetricsLog(row.text);
      assert.equal(parsed.aggregates[0]?.histograms.requestDuration.count, 1);
      assert.equal(parsed.rejected.malformed, row.text.split('\n').length - 2);
    });
  }

  void it('the last line may lack its "\\n"; empty text is nothing', () => {
    assert.equal(parseMetricsLog(line().trimEnd()).aggregates.length, 1);
    assert.deepEqual(parseMetricsLog(''), { aggregates: [], rejected: { malformed: 0, bucketMismatch: 0 }, droppedInNginx: 0 });
  });
});

void describe('parseMetricsLog: numbers are read as Number() reads them', () => {
  // Exact to the last bit, also where a digit-by-digit reading would round twice.
  const rows = [
    { name: 'milliseconds', requestTime: '0.004', bytesSent: '300' },
    { name: 'more digits than a double holds', requestTime: '3.14159265358979323846', bytesSent: '12345678901234567890' },
    { name: 'more decimals than 10^22', requestTime: `0.${'1'.repeat(30)}`, bytesSent: '9007199254740993' },
    { name: 'leading zeros', requestTime: '000.500', bytesSent: '000300' },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const { histograms } = parseMetricsLog(line({ requestTime: row.requestTime, upstreamTime: `0.1, ${row.requestTime}`, bytesSent: row.bytesSent })).aggregates[0] ?? {};
      assert.equal(histograms?.requestDuration.sum, Number(row.requestTime));
      assert.equal(histograms?.responseDuration.sum, Number(row.requestTime));
      assert.equal(histograms?.responseSize.sum, Number(row.bytesSent));
    });
  }
});

void describe('helpers', () => {
  const rows = [
    { name: 'below the first bound', bounds: [1, 2], value: 0.5, expected: 0 },
    { name: 'equal to a bound (le)', bounds: [1, 2], value: 2, expected: 1 },
    { name: 'above the last bound: overflow', bounds: [1, 2], value: 2.5, expected: 2 },
  ];
  for (const row of rows) void it(`bucketIndex: ${row.name}`, () => assert.equal(bucketIndex(row.bounds, row.value), row.expected));
});

void describe('parseMetricsLog: the --*-buckets flags\' bounds', () => {
  const flags = requestBuckets({ time: [0.25, 2], length: [1000], size: [50, 500, 5000] });
  // One line: request 0.3 s, upstream 0.2 s, connect 0.001 s, header 3 s, 1500 bytes in, 300 out.
  const text = line({ requestTime: '0.3', upstreamTime: '0.2', connectTime: '0.001', headerTime: '3', requestLength: '1500', bytesSent: '300' });
  const rows: { name: string; key: HistogramKey; slots: number[] }[] = [
    { name: '--time-buckets: request duration in le=2', key: 'requestDuration', slots: [0, 1, 0] },
    { name: '--time-buckets: response duration in le=0.25', key: 'responseDuration', slots: [1, 0, 0] },
    { name: '--time-buckets: connect duration in le=0.25', key: 'connectDuration', slots: [1, 0, 0] },
    { name: '--time-buckets: header duration overflows', key: 'headerDuration', slots: [0, 0, 1] },
    { name: '--length-buckets: request size overflows', key: 'requestSize', slots: [0, 1] },
    { name: '--length-buckets: response size in le=1000', key: 'responseSize', slots: [1, 0] },
    { name: '--size-buckets: bytes_sent in le=500', key: 'bytesSent', slots: [0, 1, 0, 0] },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      assert.deepEqual(parseMetricsLog(text, flags).aggregates[0]?.histograms[row.key].buckets, row.slots);
    });
  }
});
