import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { pino } from 'pino';
import { ApiTimeoutError, briefError, createApiAvailability, outageReason } from './api-availability.ts';
import { WatchStatusError } from './bounded-watch.ts';

/** An error shaped like node-fetch's FetchError for a system error. */
function fetchError(code: string): Error {
  return Object.assign(new Error(`request to https://127.0.0.1:6443/api/v1/services failed, reason: connect ${code} 127.0.0.1:6443`), { type: 'system', errno: code, code });
}

/** An error shaped like client-node's ApiException. */
function apiException(code: number): Error {
  return Object.assign(new Error(`HTTP-Code: ${code}\nMessage: Unknown API Status Code!\nBody: "{}"`), { code, body: '{}', headers: {} });
}

void describe('which failures an API outage explains', () => {
  const rows: { name: string; err: unknown; reason: string | null }[] = [
    { name: 'connection refused', err: fetchError('ECONNREFUSED'), reason: 'ECONNREFUSED' },
    { name: 'connection reset', err: fetchError('ECONNRESET'), reason: 'ECONNRESET' },
    { name: 'connect timeout', err: fetchError('ETIMEDOUT'), reason: 'ETIMEDOUT' },
    { name: 'a network code one cause down', err: new Error('fetch failed', { cause: fetchError('EHOSTUNREACH') }), reason: 'EHOSTUNREACH' },
    { name: 'a list that timed out', err: new ApiTimeoutError('list Ingress timed out after 60000 ms'), reason: 'timeout' },
    { name: 'AbortSignal.timeout', err: new DOMException('The operation was aborted due to timeout', 'TimeoutError'), reason: 'timeout' },
    { name: '503 from a list', err: apiException(503), reason: 'HTTP 503' },
    { name: '429 (API priority and fairness)', err: apiException(429), reason: 'HTTP 429' },
    { name: '500 on a watch request', err: Object.assign(new Error('Internal Server Error'), { statusCode: 500 }), reason: 'HTTP 500' },
    { name: 'a watch ERROR event 500', err: new WatchStatusError(500, 'etcd leader changed'), reason: 'HTTP 500' },
    { name: '403 is not an outage', err: apiException(403), reason: null },
    { name: '404 is not an outage', err: apiException(404), reason: null },
    { name: 'a watch ERROR event 403', err: new WatchStatusError(403, 'forbidden'), reason: null },
    { name: 'a certificate problem is not an outage', err: fetchError('DEPTH_ZERO_SELF_SIGNED_CERT'), reason: null },
    { name: 'a bug is not an outage', err: new TypeError('cannot read properties of undefined'), reason: null },
    { name: 'not an Error at all', err: 'boom', reason: null },
  ];
  for (const row of rows) void it(row.name, () => assert.equal(outageReason(row.err), row.reason));

  void it('briefError keeps the first line and no stack', () => {
    assert.equal(briefError(apiException(503)), 'HTTP-Code: 503');
  });
});

void describe('API availability: one line per outage each way', () => {
  function tracker(): { lines: Record<string, unknown>[]; advance: (ms: number) => void; availability: ReturnType<typeof createApiAvailability> } {
    const lines: Record<string, unknown>[] = [];
    let now = 1_000_000;
    const logger = pino({ level: 'debug' }, { write: (line: string) => { lines.push(JSON.parse(line) as Record<string, unknown>); } });
    return { lines, advance: (ms) => { now += ms; }, availability: createApiAvailability(logger, () => now) };
  }

  void it('many failures of an outage: one warning; the first answer: one info line with its length and count', () => {
    const { lines, advance, availability } = tracker();
    for (let i = 0; i < 74; i++) {
      assert.equal(availability.failed(fetchError('ECONNREFUSED'), 'list/watch Ingress'), true);
      advance(800);
    }
    assert.equal(availability.isDown(), true);
    availability.reached();
    availability.reached();
    assert.equal(availability.isDown(), false);
    assert.deepEqual(lines.map((l) => [l.level, l.msg]), [
      [40, 'Kubernetes API unavailable; retrying (one line when it is back)'],
      [30, 'Kubernetes API available again'],
    ]);
    assert.deepEqual([lines[0]?.reason, lines[0]?.request, lines[0]?.err], ['ECONNREFUSED', 'list/watch Ingress', undefined]);
    assert.deepEqual([lines[1]?.outageMs, lines[1]?.failedRequests], [74 * 800, 74]);
  });

  void it('a second outage is reported again, counted on its own', () => {
    const { lines, advance, availability } = tracker();
    availability.failed(apiException(503), 'lease');
    advance(100);
    availability.reached();
    availability.failed(fetchError('ECONNRESET'), 'event');
    availability.failed(fetchError('ECONNRESET'), 'event');
    advance(2500);
    availability.reached();
    assert.deepEqual(lines.map((l) => [l.msg, l.reason ?? l.outageMs, l.failedRequests]), [
      ['Kubernetes API unavailable; retrying (one line when it is back)', 'HTTP 503', undefined],
      ['Kubernetes API available again', 100, 1],
      ['Kubernetes API unavailable; retrying (one line when it is back)', 'ECONNRESET', undefined],
      ['Kubernetes API available again', 2500, 2],
    ]);
  });

  void it('a failure an outage does not explain is left to the caller and changes nothing', () => {
    const { lines, availability } = tracker();
    assert.equal(availability.failed(apiException(403), 'lease'), false);
    availability.reached();
    assert.equal(availability.isDown(), false);
    assert.deepEqual(lines, []);
  });
});
