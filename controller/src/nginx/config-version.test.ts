// Polling /config-version against real node:http servers on port 0.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { describe, it, type TestContext } from 'node:test';
import { fetchConfigVersion, waitForConfigVersion } from './config-version.ts';

/** A server whose answer to the n-th request (1-based) is `answer(n)`; counts requests and TCP connections. */
async function versionServer(t: TestContext, answer: (n: number) => { status: number; body: string }) {
  let requests = 0;
  let connections = 0;
  const server: Server = createServer((_req, res) => {
    requests += 1;
    const { status, body } = answer(requests);
    res.writeHead(status).end(body);
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/config-version`, counts: () => ({ requests, connections }) };
}

describe('fetchConfigVersion', () => {
  const rows = [
    { name: '200 gives the trimmed body', status: 200, body: 'abc123\n', expect: 'abc123' },
    { name: 'non-200 gives null', status: 503, body: 'abc123', expect: null },
  ];
  for (const row of rows) {
    it(row.name, async (t) => {
      const { url } = await versionServer(t, () => ({ status: row.status, body: row.body }));
      assert.equal(await fetchConfigVersion(url, 1_000), row.expect);
    });
  }

  it('a refused connection gives null', async (t) => {
    const { url } = await versionServer(t, () => ({ status: 200, body: 'x' }));
    const closedPort = url.replace(/:\d+\//, ':1/');
    assert.equal(await fetchConfigVersion(closedPort, 1_000), null);
  });
});

describe('waitForConfigVersion', () => {
  it('confirms once the version appears, one fresh connection per poll', async (t) => {
    const { url, counts } = await versionServer(t, (n) => ({ status: 200, body: n < 4 ? 'old' : 'new' }));
    const result = await waitForConfigVersion({ url: () => url, version: 'new', timeoutMs: 5_000, intervalMs: 5 });
    assert.deepEqual(result, { confirmed: true, polls: 4 });
    assert.deepEqual(counts(), { requests: 4, connections: 4 });
  });

  it('times out with what it saw last', async (t) => {
    const { url } = await versionServer(t, () => ({ status: 200, body: 'old' }));
    const began = Date.now();
    const result = await waitForConfigVersion({ url: () => url, version: 'new', timeoutMs: 200, intervalMs: 10 });
    assert.equal(result.confirmed, false);
    assert.ok(!result.confirmed && result.lastSeen === 'old' && !result.aborted);
    assert.ok(Date.now() - began < 1_000, 'bounded by the timeout');
  });

  it('stops when the signal aborts', async (t) => {
    const { url } = await versionServer(t, () => ({ status: 200, body: 'old' }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await waitForConfigVersion({ url: () => url, version: 'new', timeoutMs: 10_000, signal: controller.signal });
    assert.ok(!result.confirmed && result.aborted);
  });

  it('reads the URL before every poll', async (t) => {
    const first = await versionServer(t, () => ({ status: 200, body: 'old' }));
    const second = await versionServer(t, () => ({ status: 200, body: 'new' }));
    let calls = 0;
    const url = (): string => (++calls < 3 ? first.url : second.url);
    const result = await waitForConfigVersion({ url, version: 'new', timeoutMs: 5_000, intervalMs: 5 });
    assert.deepEqual(result, { confirmed: true, polls: 3 });
  });
});
