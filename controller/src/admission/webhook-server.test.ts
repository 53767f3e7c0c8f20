import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { after, before, describe, it } from 'node:test';

import { pino } from 'pino';
import { Agent, fetch } from 'undici';
import { makeServingCert } from '../../../e2e/cluster/apiserver/connection.ts';
import type { ReviewReply } from './admission-review.ts';
import { startWebhookServer, WEBHOOK_PATH, type ReviewOutcome, type WebhookServer } from './webhook-server.ts';

const ALLOWED: ReviewReply = {
  status: 200,
  body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u', allowed: true } },
  decision: { allowed: true, message: '', warnings: [], failures: [], ingress: { namespace: 'default', name: 'web' } },
};

void describe('webhook server', () => {
  let server: WebhookServer;
  let ca: string;
  const outcomes: string[] = [];
  const seen: unknown[] = [];

  before(async () => {
    const cert = await makeServingCert('127.0.0.1');
    ca = cert.cert;
    server = await startWebhookServer({
      host: '127.0.0.1', port: 0, certPem: cert.cert, keyPem: cert.key, logger: pino({ level: 'silent' }),
      maxBodyBytes: 1024, timeoutMs: 500,
      review: (body) => {
        seen.push(body);
        return (body as { bad?: boolean }).bad ? { status: 400, error: 'malformed review' } : ALLOWED;
      },
      onReviewed: (outcome: ReviewOutcome, _ms, ingress) => outcomes.push(`${outcome} ${ingress ? `${ingress.namespace}/${ingress.name}` : '-'}`),
    });
  });
  after(() => server.close());

  const post = (path: string, body: string, method = 'POST'): Promise<{ status: number; text: string }> =>
    fetch(`https://127.0.0.1:${server.port}${path}`, {
      method, body: method === 'GET' ? undefined : body, headers: { 'Content-Type': 'application/json' },
      dispatcher: new Agent({ connect: { ca } }),
    }).then(async (res) => ({ status: res.status, text: await res.text() }));

  const rows: { name: string; path?: string; method?: string; body: string; status: number; text: RegExp }[] = [
    { name: 'a review is answered with the review JSON', body: '{"ok":true}', status: 200, text: /"allowed":true/ },
    { name: 'a malformed review is 400 with the reason', body: '{"bad":true}', status: 400, text: /malformed review/ },
    { name: 'a body that is not JSON is 400', body: '{not json', status: 400, text: /not JSON/ },
    { name: 'a body over the limit is 413', body: JSON.stringify({ pad: 'x'.repeat(2000) }), status: 413, text: /larger than 1024 bytes/ },
    { name: 'another path is 404', path: '/mutate', body: '{}', status: 404, text: /only \/networking\/v1\/ingresses/ },
    { name: 'GET is 405', method: 'GET', body: '', status: 405, text: /use POST/ },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const reply = await post(row.path ?? WEBHOOK_PATH, row.body, row.method);
      assert.equal(reply.status, row.status, reply.text);
      assert.match(reply.text, row.text);
    });
  }

  void it('reports each outcome, with the checked Ingress for a review (check_success / check_errors)', () => {
    assert.deepEqual(outcomes.slice(0, 6), ['allowed default/web', 'error -', 'error -', 'error -', 'error -', 'error -']);
  });

  void it('a client that never finishes its body is cut off after the time bound', async () => {
    const started = Date.now();
    const closed = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: server.port, ca, servername: 'localhost' }, () => {
        socket.write(`POST ${WEBHOOK_PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
      });
      let data = '';
      socket.on('data', (chunk: Buffer) => { data += chunk.toString(); });
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
      setTimeout(() => { socket.destroy(); reject(new Error('still open after 5 s')); }, 5000).unref();
    });
    assert.ok(Date.now() - started < 4000, 'closed within the bound');
    assert.ok(closed === '' || /^HTTP\/1\.1 408/.test(closed), `408 or closed, got ${JSON.stringify(closed.slice(0, 40))}`);
  });
});

void describe('webhook server: requests in flight', () => {
  let server: WebhookServer;
  let ca: string;
  const outcomes: ReviewOutcome[] = [];

  before(async () => {
    const cert = await makeServingCert('127.0.0.1');
    ca = cert.cert;
    server = await startWebhookServer({
      host: '127.0.0.1', port: 0, certPem: cert.cert, keyPem: cert.key, logger: pino({ level: 'silent' }),
      maxInFlight: 1, timeoutMs: 3000, review: () => ALLOWED, onReviewed: (outcome) => outcomes.push(outcome),
    });
  });
  after(() => server.close());

  const post = (): Promise<{ status: number; text: string; retryAfter: string | null }> =>
    fetch(`https://127.0.0.1:${server.port}${WEBHOOK_PATH}`, {
      method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' }, dispatcher: new Agent({ connect: { ca } }),
    }).then(async (res) => ({ status: res.status, text: await res.text(), retryAfter: res.headers.get('retry-after') }));

  /** A request that sent its headers and part of its body: it holds a slot until destroyed. */
  const holdSlot = (): Promise<{ release: () => void }> => new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.port, ca, servername: 'localhost' }, () => {
      socket.write(`POST ${WEBHOOK_PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
      // The server has the request once it answers nothing for a moment.
      setTimeout(() => resolve({ release: () => socket.destroy() }), 200);
    });
    socket.on('error', reject);
  });

  void it('past the bound a request is answered 429 saying why; a finished one frees its slot', async () => {
    const held = await holdSlot();
    const busy = await post();
    assert.equal(busy.status, 429, busy.text);
    assert.match(busy.text, /admission webhook busy: 1 reviews in flight/);
    assert.equal(busy.retryAfter, '1');
    held.release();
    // The slot is freed when the server sees the connection close.
    let after = busy;
    for (let attempt = 0; attempt < 20 && after.status !== 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await post();
    }
    assert.equal(after.status, 200, after.text);
    assert.ok(outcomes.includes('error') && outcomes.includes('allowed'));
  });
});

void describe('webhook server certificate renewal', () => {
  /** The serial of the certificate a new TLS connection is served, trusting only `ca`. */
  const servedSerial = (port: number, ca: string): Promise<string> => new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      resolve(socket.getPeerX509Certificate()?.serialNumber ?? '');
      socket.destroy();
    });
    socket.on('error', reject);
  });

  void it('setCertificate: new connections get the new certificate, without a restart', async () => {
    const first = await makeServingCert('127.0.0.1');
    const second = await makeServingCert('127.0.0.1');
    const server = await startWebhookServer({
      host: '127.0.0.1', port: 0, certPem: first.cert, keyPem: first.key, logger: pino({ level: 'silent' }), review: () => ALLOWED,
    });
    try {
      const serialOf = (pem: string): string => new X509Certificate(pem).serialNumber;
      assert.equal(await servedSerial(server.port, first.cert), serialOf(first.cert));
      server.setCertificate(second.cert, second.key);
      assert.equal(await servedSerial(server.port, second.cert), serialOf(second.cert));
      await assert.rejects(servedSerial(server.port, first.cert), /self-signed|unable to verify|certificate/i, 'the old one is no longer served');
    } finally {
      await server.close();
    }
  });
});
