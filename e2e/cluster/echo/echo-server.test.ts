// The echo server: who answered, what it saw, and a close() that drains.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startEcho, type EchoReply } from './echo-server.ts';

void describe('startEcho', () => {
  const rows = [
    { label: 'GET echoes method and path', method: 'GET', path: '/a/b?x=1', body: undefined, wantLength: 0 },
    { label: 'POST counts the body', method: 'POST', path: '/upload', body: 'x'.repeat(1234), wantLength: 1234 },
  ];
  for (const row of rows) {
    void it(row.label, async () => {
      const echo = await startEcho({ host: '127.0.0.1', port: 0, podName: 'web-abc-12345' });
      try {
        const res = await fetch(`${echo.url}${row.path}`, { method: row.method, body: row.body, headers: { 'x-test': row.label } });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('x-pod'), 'web-abc-12345');
        const reply = (await res.json()) as EchoReply;
        assert.deepEqual(
          { pod: reply.pod, method: reply.method, path: reply.path, bodyLength: reply.bodyLength, xTest: reply.headers['x-test'] },
          { pod: 'web-abc-12345', method: row.method, path: row.path, bodyLength: row.wantLength, xTest: row.label },
        );
      } finally {
        await echo.close();
      }
    });
  }

  const statuses = [
    { label: '?status=404 answers 404 with the echo body', path: '/missing?status=404', want: 404 },
    { label: '?status=503 answers 503', path: '/?status=503', want: 503 },
    { label: '?status=600 is out of range: 200', path: '/?status=600', want: 200 },
    { label: '?status=abc: 200', path: '/?status=abc', want: 200 },
  ];
  for (const row of statuses) {
    void it(row.label, async () => {
      const echo = await startEcho({ host: '127.0.0.1', port: 0, podName: 'p' });
      try {
        const res = await fetch(`${echo.url}${row.path}`);
        assert.equal(res.status, row.want);
        assert.equal(((await res.json()) as EchoReply).path, row.path);
      } finally {
        await echo.close();
      }
    });
  }

  void it('answers /healthz with ok', async () => {
    const echo = await startEcho({ host: '127.0.0.1', port: 0, podName: 'p' });
    try {
      const res = await fetch(`${echo.url}/healthz`);
      assert.deepEqual([res.status, await res.text()], [200, 'ok']);
    } finally {
      await echo.close();
    }
  });

  void it('two pods share a port on different loopback addresses', async () => {
    const first = await startEcho({ host: '127.0.9.1', port: 0, podName: 'first' });
    const second = await startEcho({ host: '127.0.9.2', port: first.port, podName: 'second' });
    try {
      const pods = await Promise.all([first, second].map(async (echo) => (await fetch(echo.url)).headers.get('x-pod')));
      assert.deepEqual(pods, ['first', 'second']);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  void it('close() finishes an in-flight request, then refuses new ones', async () => {
    const echo = await startEcho({ host: '127.0.0.1', port: 0, podName: 'draining' });
    const slow = fetch(`${echo.url}/slow?sleep=300`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = echo.close();
    const res = await slow;
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('connection'), 'close');
    assert.equal(((await res.json()) as EchoReply).pod, 'draining');
    await closing;
    await assert.rejects(fetch(echo.url));
  });

  const badHosts = [
    { label: 'a name', host: 'localhost' },
    { label: 'a non-loopback address', host: '10.0.0.1' },
  ];
  for (const row of badHosts) {
    void it(`rejects ${row.label} as host`, async () => {
      await assert.rejects(startEcho({ host: row.host, port: 0, podName: 'x' }), /loopback IPv4/);
    });
  }
});
