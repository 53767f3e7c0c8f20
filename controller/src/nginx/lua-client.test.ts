import assert from 'node:assert/strict';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { assertCleanErrorLog, startLuaNginx, type LuaNginx } from '../../../lua/test/lua-fixture.ts';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import type { DynamicBackend } from '../model/types.ts';
import {
  applyBackends, applyPatch, fullSetTimeouts, getBackends, getStatus, LuaClientError, postBackends, waitForWorkers, type LuaClientErrorCode,
} from './lua-client.ts';

const backends: DynamicBackend[] = [
  { name: 'default-api-8080', endpoints: [{ address: '127.0.0.2', port: 8080 }, { address: '127.0.0.3', port: 8080 }], loadBalance: 'ewma' },
  { name: 'default-web-80', endpoints: [], loadBalance: 'round_robin' },
];

void describe('lua client against real NGINX', () => {
  let fixture: LuaNginx;
  before(async () => {
    fixture = await startLuaNginx();
  });
  after(async () => {
    await fixture?.nginx.stop();
  });

  void it('reads an empty store, pushes, reads back the same backends and versions', async () => {
    assert.deepEqual(await getBackends(fixture.statusUrl), []);
    const first = await getStatus(fixture.statusUrl);
    assert.equal(first.version, 0);
    const version = await postBackends(fixture.statusUrl, backends);
    assert.equal(version, 1);
    assert.deepEqual(await getBackends(fixture.statusUrl), backends);
    assert.equal((await getStatus(fixture.statusUrl)).version, 1);
    assert.equal(await postBackends(`${fixture.statusUrl}/`, []), 2, 'a trailing slash in baseUrl is fine');
    assert.deepEqual(await getBackends(fixture.statusUrl), []);
    assertCleanErrorLog(fixture);
  });

  void it('reads only the named backends, in the order asked, unknown names left out', async () => {
    await postBackends(fixture.statusUrl, backends);
    const many = Array.from({ length: 150 }, (_, i) => `nope-${i}`);
    const rows: { name: string; names: string[]; want: DynamicBackend[] }[] = [
      { name: 'one', names: ['default-web-80'], want: [backends[1] as DynamicBackend] },
      { name: 'two, reversed', names: ['default-web-80', 'default-api-8080'], want: [backends[1] as DynamicBackend, backends[0] as DynamicBackend] },
      { name: 'an unknown name', names: ['default-api-8080', 'nope'], want: [backends[0] as DynamicBackend] },
      { name: 'more names than NGINX parses by default (100)', names: [...many, 'default-web-80'], want: [backends[1] as DynamicBackend] },
      { name: 'none', names: [], want: [] },
    ];
    for (const row of rows) assert.deepEqual(await getBackends(fixture.statusUrl, { names: row.names }), row.want, row.name);
    assertCleanErrorLog(fixture);
  });

  void it('applyBackends resolves once every worker (by PID) holds the version it pushed', async () => {
    for (let round = 0; round < 5; round++) {
      const version = await applyBackends(fixture.statusUrl, backends);
      const status = await getStatus(fixture.statusUrl);
      assert.ok(status.applied >= version, JSON.stringify(status));
      for (const pid of fixture.nginx.workerPids()) assert.ok((status.workers[pid] ?? -1) >= version, `worker ${pid}: ${JSON.stringify(status)}`);
    }
    const patched = await applyPatch(fixture.statusUrl, { set: [], remove: ['default-web-80'] });
    assert.ok((await getStatus(fixture.statusUrl)).applied >= patched);
    assertCleanErrorLog(fixture);
  });

  void it('a refused push is LUA_REJECTED with Lua\'s reason, and the version stays', async () => {
    const before = (await getStatus(fixture.statusUrl)).version;
    const bad = [{ name: 'x', endpoints: [{ address: 'db.internal', port: 5432 }], loadBalance: 'round_robin' }] as DynamicBackend[];
    await assert.rejects(postBackends(fixture.statusUrl, bad), (err: unknown) =>
      err instanceof LuaClientError && err.code === 'LUA_REJECTED' && err.status === 400 && /address/.test(err.message));
    assert.equal((await getStatus(fixture.statusUrl)).version, before);
    assertCleanErrorLog(fixture);
  });
});

async function fakeServer(handler: RequestListener): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

void describe('lua client errors', () => {
  const rows: ReadonlyArray<{ name: string; handler: RequestListener | null; call: (url: string) => Promise<unknown>; code: LuaClientErrorCode }> = [
    { name: 'nothing listening', handler: null, call: (url) => getStatus(url), code: 'LUA_UNREACHABLE' },
    { name: 'no answer in time', handler: () => undefined, call: (url) => getStatus(url, { timeoutMs: 200 }), code: 'LUA_TIMEOUT' },
    { name: 'server error', handler: (_q, res) => res.writeHead(500).end('boom'), call: (url) => postBackends(url, []), code: 'LUA_HTTP_ERROR' },
    { name: 'status not JSON', handler: (_q, res) => res.end('<html>'), call: (url) => getStatus(url), code: 'LUA_BAD_RESPONSE' },
    { name: 'status of the wrong shape', handler: (_q, res) => res.end('{"version":"1","applied":1,"workers":{}}'), call: (url) => getStatus(url), code: 'LUA_BAD_RESPONSE' },
    { name: 'status without applied', handler: (_q, res) => res.end('{"version":1,"workers":{}}'), call: (url) => getStatus(url), code: 'LUA_BAD_RESPONSE' },
    { name: 'backends not an array', handler: (_q, res) => res.end('{}'), call: (url) => getBackends(url), code: 'LUA_BAD_RESPONSE' },
    { name: 'push answered without a version', handler: (_q, res) => res.writeHead(201).end('ok'), call: (url) => postBackends(url, []), code: 'LUA_BAD_RESPONSE' },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const fake = row.handler ? await fakeServer(row.handler) : null;
      const url = fake?.url ?? `http://127.0.0.1:${await freePort()}`;
      try {
        await assert.rejects(row.call(url), (err: unknown) => err instanceof LuaClientError && err.code === row.code);
      } finally {
        fake?.server.closeAllConnections();
        fake?.server.close();
      }
    });
  }
});

/**
 * A status server whose workers hold `applied[i]` on the i-th read (the last
 * one repeats) and whose store is at `version`; pushes answer `version`.
 */
function scriptedLua(version: number, applied: readonly number[]): { handler: RequestListener; reads: () => number } {
  let reads = 0;
  const handler: RequestListener = (req, res) => {
    if (req.url === '/configuration/status') {
      const now = applied[Math.min(reads++, applied.length - 1)] ?? 0;
      res.end(JSON.stringify({ version, applied: now, workers: { 101: now, 102: version } }));
      return;
    }
    res.writeHead(req.method === 'PATCH' ? 200 : 201).end(`version ${version}\n`);
  };
  return { handler, reads: () => reads };
}

void describe('a push counts as applied only when every live worker holds it', () => {
  const rows: ReadonlyArray<{
    name: string; version: number; applied: number[];
    call: (url: string) => Promise<unknown>; reads: number; code?: LuaClientErrorCode;
  }> = [
    { name: 'applyBackends waits while a worker is behind', version: 3, applied: [2, 2, 2, 3], call: (url) => applyBackends(url, []), reads: 4 },
    { name: 'applyPatch waits while a worker is behind', version: 3, applied: [2, 3], call: (url) => applyPatch(url, { set: [], remove: ['x'] }), reads: 2 },
    { name: 'already held: one read', version: 3, applied: [3], call: (url) => waitForWorkers(url, 3), reads: 1 },
    { name: 'a later version held counts too', version: 5, applied: [5], call: (url) => waitForWorkers(url, 4), reads: 1 },
    { name: 'a worker that never catches up: LUA_WORKERS_BEHIND', version: 3, applied: [2],
      call: (url) => applyBackends(url, [], { withinMs: 60 }), reads: 2, code: 'LUA_WORKERS_BEHIND' },
    { name: 'the store fell below the version (NGINX restarted): LUA_STATE_LOST', version: 0, applied: [0],
      call: (url) => waitForWorkers(url, 3), reads: 1, code: 'LUA_STATE_LOST' },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const lua = scriptedLua(row.version, row.applied);
      const fake = await fakeServer(lua.handler);
      try {
        if (row.code === undefined) {
          await row.call(fake.url);
          assert.equal(lua.reads(), row.reads, 'status reads before it resolved');
        } else {
          await assert.rejects(row.call(fake.url), (err: unknown) => err instanceof LuaClientError && err.code === row.code);
          assert.ok(lua.reads() >= row.reads, `only ${lua.reads()} status reads`);
        }
      } finally {
        fake.server.closeAllConnections();
        fake.server.close();
      }
    });
  }
});

void describe('a full set may take longer the more backends it holds', () => {
  const rows: ReadonlyArray<{ name: string; backends: number; timeoutMs: number; withinMs: number }> = [
    { name: 'none: the defaults', backends: 0, timeoutMs: 10_000, withinMs: 5000 },
    { name: '10,000 backends', backends: 10_000, timeoutMs: 12_000, withinMs: 7000 },
    { name: '50,000 backends (each worker decodes all of them)', backends: 50_000, timeoutMs: 20_000, withinMs: 15_000 },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      assert.deepEqual(fullSetTimeouts(row.backends), { timeoutMs: row.timeoutMs, withinMs: row.withinMs });
    });
  }
});
