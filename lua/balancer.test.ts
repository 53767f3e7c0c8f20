// The request path inside real NGINX (2 workers): endpoints applied without
// reload, round robin, EWMA, propagation to every worker, 503s and retries.
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { freePort } from './test/nginx-harness.ts';
import {
  assertCleanErrorLog, postRaw, startEchoBackends, startLuaNginx, tally, waitAllWorkersApplied,
  type EchoBackend, type LuaNginx,
} from './test/lua-fixture.ts';

type Algorithm = 'round_robin' | 'ewma';
const endpointsOf = (list: readonly { address: string; port: number }[]): { address: string; port: number }[] =>
  list.map(({ address, port }) => ({ address, port }));

void describe('balancer', () => {
  let fixture: LuaNginx;
  let echo: EchoBackend[];
  let slow: EchoBackend[];
  before(async () => {
    echo = await startEchoBackends(['a', 'b', 'c', 'd']);
    fixture = await startLuaNginx();
  });
  after(async () => {
    await fixture?.nginx.stop();
    await Promise.all([...(echo ?? []), ...(slow ?? [])].map((b) => b.close()));
  });

  async function push(backends: { name: string; endpoints: { address: string; port: number }[]; loadBalance: Algorithm }[]): Promise<void> {
    const res = await postRaw(fixture.statusUrl, JSON.stringify(backends));
    assert.equal(res.status, 201, res.text);
    await waitAllWorkersApplied(fixture);
  }

  // One kept-alive connection = one worker, so the order of picks is observable.
  /** `count` picks over one keep-alive connection, so one worker answers them all (pass `agent` to go on with it). */
  async function sequence(backend: string, count: number, shared?: Agent): Promise<string[]> {
    const agent = shared ?? new Agent({ keepAlive: true, maxSockets: 1 });
    const url = new URL(fixture.proxyUrl);
    const bodies: string[] = [];
    for (let i = 0; i < count; i++) {
      bodies.push(await new Promise<string>((done, fail) => {
        const req = request({ host: url.hostname, port: url.port, agent, headers: { 'x-backend': backend } }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => done(text));
        });
        req.on('error', fail);
        req.end();
      }));
    }
    if (!shared) agent.destroy();
    return bodies;
  }

  void it('POSTed endpoints take traffic at once, with no reload', async () => {
    const pidsBefore = [fixture.nginx.masterPid, ...fixture.nginx.workerPids()];
    await push([{ name: 'web', endpoints: endpointsOf(echo.slice(0, 2)), loadBalance: 'round_robin' }]);
    assert.deepEqual(Object.keys(await tally(fixture, 'web', 20)).sort(), ['a', 'b']);
    await push([{ name: 'web', endpoints: endpointsOf(echo.slice(2, 4)), loadBalance: 'round_robin' }]);
    assert.deepEqual(Object.keys(await tally(fixture, 'web', 20)).sort(), ['c', 'd']);
    assert.deepEqual([fixture.nginx.masterPid, ...fixture.nginx.workerPids()], pidsBefore, 'master and workers unchanged');
    assertCleanErrorLog(fixture);
  });

  // IPv4-mapped, so the backends stay on 127.0.0.0/8: NGINX connects over IPv6 all the same.
  for (const algorithm of ['round_robin', 'ewma'] as const) {
    void it(`IPv6 endpoints take traffic (${algorithm})`, async () => {
      const endpoints = echo.slice(0, 2).map(({ address, port }) => ({ address: `::ffff:${address}`, port }));
      await push([{ name: 'web6', endpoints, loadBalance: algorithm }]);
      assert.deepEqual(Object.keys(await tally(fixture, 'web6', 20)).sort(), ['a', 'b']);
      assertCleanErrorLog(fixture);
    });
  }

  void it('round robin spreads evenly', async () => {
    await push([{ name: 'web', endpoints: endpointsOf(echo.slice(0, 3)), loadBalance: 'round_robin' }]);
    const hits = await tally(fixture, 'web', 60);
    assert.deepEqual(Object.keys(hits).sort(), ['a', 'b', 'c']);
    // Each worker rotates exactly; two workers can be at most one pick apart per endpoint.
    for (const count of Object.values(hits)) assert.ok(Math.abs(count - 20) <= 2, JSON.stringify(hits));
    assertCleanErrorLog(fixture);
  });

  void it('a no-op push keeps the round-robin position; a real change restarts it', async (t) => {
    const web = { name: 'web', endpoints: endpointsOf(echo.slice(0, 3)), loadBalance: 'round_robin' as const };
    await push([web]);
    // One connection throughout: each worker keeps its own rotation.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    t.after(() => agent.destroy());
    const first = await sequence('web', 2, agent);
    await push([web, { name: 'other', endpoints: endpointsOf(echo.slice(3)), loadBalance: 'ewma' }]);
    const [third] = await sequence('web', 1, agent);
    const missing = ['a', 'b', 'c'].filter((n) => !first.includes(n));
    assert.equal(first[0] === first[1], false, `rotation: ${first.join(',')}`);
    assert.deepEqual([third], missing, `after a no-op push the rotation goes on: ${first.join(',')} then ${third}`);
    assertCleanErrorLog(fixture);
  });

  void it('an endpoint change reaches every worker within 50 ms', async () => {
    await push([{ name: 'web', endpoints: endpointsOf(echo.slice(0, 1)), loadBalance: 'round_robin' }]);
    const res = await postRaw(fixture.statusUrl, JSON.stringify([{ name: 'web', endpoints: endpointsOf(echo.slice(1, 2)), loadBalance: 'round_robin' }]));
    assert.equal(res.status, 201);
    const elapsed = await waitAllWorkersApplied(fixture);
    assert.ok(elapsed < 50, `took ${elapsed} ms`);
    assert.deepEqual(await tally(fixture, 'web', 10), { b: 10 });
    assertCleanErrorLog(fixture);
  });

  void it('ewma sends most traffic to the faster endpoint', async () => {
    slow = await startEchoBackends(['slow'], 40);
    // Both answer on 127.0.0.2 (different ports); the slow one waits 40 ms.
    await push([{ name: 'mixed', endpoints: [...endpointsOf(slow), ...endpointsOf(echo.slice(0, 1))], loadBalance: 'ewma' }]);
    const hits = await tally(fixture, 'mixed', 60);
    assert.ok((hits.a ?? 0) >= 45, `fast endpoint got too little: ${JSON.stringify(hits)}`);
    assert.ok((hits.slow ?? 0) >= 1, `slow endpoint was never tried: ${JSON.stringify(hits)}`);
    assertCleanErrorLog(fixture);
  });

  const unavailable: ReadonlyArray<{ name: string; backend: string }> = [
    { name: 'a backend with zero endpoints', backend: 'empty' },
    { name: 'an unknown backend', backend: 'nobody-knows-me' },
    { name: 'a location with no backend name', backend: '' },
  ];
  for (const row of unavailable) {
    void it(`503 for ${row.name}`, async () => {
      await push([{ name: 'empty', endpoints: [], loadBalance: 'round_robin' }]);
      assert.deepEqual(await tally(fixture, row.backend, 4), { 'status 503': 4 });
      assertCleanErrorLog(fixture);
    });
  }

  void it('a refused connection is retried on another endpoint', async () => {
    const deadPort = await freePort();
    const dead = { address: '127.0.0.1', port: deadPort };
    for (const loadBalance of ['round_robin', 'ewma'] as const) {
      await push([{ name: 'flaky', endpoints: [dead, ...endpointsOf(echo.slice(0, 1))], loadBalance }]);
      assert.deepEqual(await tally(fixture, 'flaky', 20), { a: 20 }, loadBalance);
    }
    // NGINX logs each refused try at [error]: that and nothing else is expected here.
    assertCleanErrorLog(fixture, [/connect\(\) failed \(111: Connection refused\) while connecting to upstream/]);
  });
});
