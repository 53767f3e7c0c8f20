// PATCH /configuration/backends inside real NGINX: only the named backends
// change, every other backend keeps routing, workers apply the change, and a
// bad body is refused with the previous state kept. Driven through the
// controller's own client (patchBackends), so the wire format is tested too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getBackends, LuaClientError, patchBackends, postBackends } from '../controller/src/nginx/lua-client.ts';
import type { BackendPatch, DynamicBackend } from '../controller/src/model/types.ts';
import {
  assertCleanErrorLog, getStatus, startLuaSuite, stopLuaSuite, tally, waitAllWorkersApplied,
  type EchoBackend, type LuaNginx,
} from './test/lua-fixture.ts';

void describe('PATCH /configuration/backends', () => {
  let fixture: LuaNginx;
  let echo: EchoBackend[];
  before(async () => {
    ({ fixture, echo } = await startLuaSuite(['alpha', 'beta', 'gamma']));
  });
  after(() => stopLuaSuite(fixture, echo));

  const on = (name: string, ...servers: EchoBackend[]): DynamicBackend => ({
    name, loadBalance: 'round_robin', endpoints: servers.map((s) => ({ address: s.address, port: s.port })),
  });
  /** Starts each case from the same full state: a → alpha, b → beta. */
  const reset = async (): Promise<void> => {
    await postBackends(fixture.statusUrl, [on('a', echo[0]), on('b', echo[1])]);
    await waitAllWorkersApplied(fixture);
  };
  const names = async (): Promise<string[]> => (await getBackends(fixture.statusUrl)).map((b) => b.name).sort();

  const cases: ReadonlyArray<{
    name: string;
    patch: () => BackendPatch;
    backends: string[];
    routes: Record<string, Record<string, number>>;
  }> = [
    { name: 'set a new backend: the others untouched', patch: () => ({ set: [on('c', echo[2])], remove: [] }),
      backends: ['a', 'b', 'c'], routes: { a: { alpha: 3 }, b: { beta: 3 }, c: { gamma: 3 } } },
    { name: 'set changes the endpoints of one backend', patch: () => ({ set: [on('a', echo[2])], remove: [] }),
      backends: ['a', 'b'], routes: { a: { gamma: 3 }, b: { beta: 3 } } },
    { name: 'remove drops one backend (its requests get 503)', patch: () => ({ set: [], remove: ['a'] }),
      backends: ['b'], routes: { a: { 'status 503': 3 }, b: { beta: 3 } } },
    { name: 'set and remove together', patch: () => ({ set: [on('c', echo[0])], remove: ['b'] }),
      backends: ['a', 'c'], routes: { a: { alpha: 3 }, b: { 'status 503': 3 }, c: { alpha: 3 } } },
    { name: 'removing an unknown name is harmless', patch: () => ({ set: [], remove: ['nope'] }),
      backends: ['a', 'b'], routes: { a: { alpha: 3 }, b: { beta: 3 } } },
  ];
  for (const row of cases) {
    void it(row.name, async () => {
      await reset();
      const before = (await getStatus(fixture.statusUrl)).version;
      const version = await patchBackends(fixture.statusUrl, row.patch());
      assert.equal(version, before + 1, 'a PATCH moves the store version by one');
      await waitAllWorkersApplied(fixture);
      assert.deepEqual(await names(), row.backends);
      for (const [backend, expected] of Object.entries(row.routes)) {
        assert.deepEqual(await tally(fixture, backend, 3), expected, `routing of ${backend}`);
      }
      assertCleanErrorLog(fixture);
    });
  }

  const badBodies: ReadonlyArray<{ name: string; body: string; reason: RegExp }> = [
    { name: 'an array (the POST shape)', body: '[]', reason: /JSON object/ },
    { name: 'not JSON', body: '{"set": [', reason: /invalid JSON/ },
    { name: 'remove missing', body: '{"set":[]}', reason: /both be arrays/ },
    { name: 'set is a string', body: '{"set":"a","remove":[]}', reason: /both be arrays/ },
    { name: 'a bad endpoint in set', body: '{"set":[{"name":"a","endpoints":[{"address":"x","port":1}],"loadBalance":"ewma"}],"remove":[]}', reason: /address/ },
    { name: 'a bad name in remove', body: '{"set":[],"remove":["a b"]}', reason: /remove\[0\]/ },
    { name: 'a name both set and removed', body: '{"set":[{"name":"a","endpoints":[],"loadBalance":"ewma"}],"remove":["a"]}', reason: /also in set/ },
  ];
  for (const row of badBodies) {
    void it(`400 and the old state still routes: ${row.name}`, async () => {
      await reset();
      const version = (await getStatus(fixture.statusUrl)).version;
      const res = await fetch(`${fixture.statusUrl}/configuration/backends`, { method: 'PATCH', body: row.body });
      assert.equal(res.status, 400);
      assert.match(await res.text(), row.reason);
      assert.equal((await getStatus(fixture.statusUrl)).version, version, 'a refused patch must not move the version');
      assert.deepEqual(await tally(fixture, 'a', 2), { alpha: 2 });
      assertCleanErrorLog(fixture);
    });
  }

  void it('PATCHes faster than the workers poll: every worker ends on the last state', async () => {
    // Workers poll every 5 ms; these land ~1 ms apart, so a worker catches up
    // over several versions at once, reading their change log (store.lua).
    await reset();
    const start = (await getStatus(fixture.statusUrl)).version;
    for (let i = 0; i < 24; i++) {
      const set = [on('a', echo[i % 3])];
      const remove: string[] = [];
      if (i % 6 === 0) {
        set.push(on(`x${i}`, echo[0]));
        if (i > 0) remove.push(`x${i - 6}`);
      }
      await patchBackends(fixture.statusUrl, { set, remove });
    }
    assert.equal((await getStatus(fixture.statusUrl)).version, start + 24);
    await waitAllWorkersApplied(fixture);
    assert.deepEqual(await names(), ['a', 'b', 'x18']);
    // A new connection per request, so that both workers answer some of them.
    const routes = async (backend: string): Promise<Record<string, number>> => {
      const hits: Record<string, number> = {};
      for (let i = 0; i < 12; i++) {
        const res = await fetch(`${fixture.proxyUrl}/`, { headers: { 'x-backend': backend, connection: 'close' } });
        const key = res.status === 200 ? await res.text() : `status ${res.status}`;
        hits[key] = (hits[key] ?? 0) + 1;
      }
      return hits;
    };
    assert.deepEqual(await routes('a'), { gamma: 12 });
    assert.deepEqual(await routes('x18'), { alpha: 12 });
    assert.deepEqual(await routes('x12'), { 'status 503': 12 });
    assertCleanErrorLog(fixture);
  });

  void it('the client reports a refusal as LUA_REJECTED', async () => {
    const bad = { set: [{ name: 'a b', endpoints: [], loadBalance: 'ewma' as const }], remove: [] };
    await assert.rejects(patchBackends(fixture.statusUrl, bad), (err: unknown) => err instanceof LuaClientError && err.code === 'LUA_REJECTED');
    assertCleanErrorLog(fixture);
  });
});
