// The Lua configuration server inside real NGINX: POST/GET backends, status,
// and refusal of bad input with the previous state kept.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  assertCleanErrorLog, getStatus, postRaw, singleBackendBody, startLuaSuite, stopLuaSuite, tally, waitAllWorkersApplied,
  type EchoBackend, type LuaNginx,
} from './test/lua-fixture.ts';

void describe('configuration server', () => {
  let fixture: LuaNginx;
  let echo: EchoBackend[];
  before(async () => {
    ({ fixture, echo } = await startLuaSuite(['alpha']));
  });
  after(() => stopLuaSuite(fixture, echo));

  const good = (): string => singleBackendBody(echo[0]);

  void it('starts empty: version 0, [] and every worker registered', async () => {
    assert.equal((await getStatus(fixture.statusUrl)).version, 0);
    const res = await fetch(`${fixture.statusUrl}/configuration/backends`);
    assert.equal(await res.text(), '[]');
    await waitAllWorkersApplied(fixture);
    assertCleanErrorLog(fixture);
  });

  void it('POST then GET returns exactly what was loaded, and the version moves', async () => {
    const before = (await getStatus(fixture.statusUrl)).version;
    const posted = await postRaw(fixture.statusUrl, good());
    assert.equal(posted.status, 201, posted.text);
    assert.deepEqual(JSON.parse(await (await fetch(`${fixture.statusUrl}/configuration/backends`)).text()), JSON.parse(good()));
    assert.equal((await getStatus(fixture.statusUrl)).version, before + 1);
    assertCleanErrorLog(fixture);
  });

  const badBodies: ReadonlyArray<{ name: string; body: string; reason: RegExp }> = [
    { name: 'not JSON', body: '[{"name": ', reason: /invalid JSON/ },
    { name: 'an object, not an array', body: '{"name":"x"}', reason: /JSON array/ },
    { name: 'empty body', body: '', reason: /empty|JSON array/ },
    { name: 'address is a host name', body: '[{"name":"b","endpoints":[{"address":"example.invalid","port":80}],"loadBalance":"ewma"}]', reason: /address/ },
    { name: 'address is not a full IP', body: '[{"name":"b","endpoints":[{"address":"10.0.0","port":80}],"loadBalance":"ewma"}]', reason: /address/ },
    { name: 'port 0', body: '[{"name":"b","endpoints":[{"address":"10.0.0.1","port":0}],"loadBalance":"ewma"}]', reason: /port/ },
    { name: 'port 65536', body: '[{"name":"b","endpoints":[{"address":"10.0.0.1","port":65536}],"loadBalance":"ewma"}]', reason: /port/ },
    { name: 'port as a string', body: '[{"name":"b","endpoints":[{"address":"10.0.0.1","port":"80"}],"loadBalance":"ewma"}]', reason: /port/ },
    { name: 'fractional port', body: '[{"name":"b","endpoints":[{"address":"10.0.0.1","port":80.5}],"loadBalance":"ewma"}]', reason: /port/ },
    { name: 'unknown algorithm', body: '[{"name":"b","endpoints":[],"loadBalance":"random"}]', reason: /loadBalance/ },
    { name: 'name with a space', body: '[{"name":"a b","endpoints":[],"loadBalance":"ewma"}]', reason: /name/ },
    { name: 'endpoints not an array', body: '[{"name":"b","endpoints":{"address":"10.0.0.1"},"loadBalance":"ewma"}]', reason: /endpoints/ },
    { name: 'duplicate backend names', body: '[{"name":"b","endpoints":[],"loadBalance":"ewma"},{"name":"b","endpoints":[],"loadBalance":"ewma"}]', reason: /duplicate/ },
  ];
  for (const row of badBodies) {
    void it(`400 and the old state still routes: ${row.name}`, async () => {
      assert.equal((await postRaw(fixture.statusUrl, good())).status, 201);
      await waitAllWorkersApplied(fixture);
      const version = (await getStatus(fixture.statusUrl)).version;
      const refused = await postRaw(fixture.statusUrl, row.body);
      assert.equal(refused.status, 400);
      assert.match(refused.text, row.reason);
      assert.equal((await getStatus(fixture.statusUrl)).version, version, 'a refused push must not move the version');
      assert.deepEqual(await tally(fixture, 'ns-web-80', 4), { alpha: 4 });
      assertCleanErrorLog(fixture);
    });
  }

  void it('IPv6 endpoints are accepted', async () => {
    const body = JSON.stringify([{ name: 'v6', endpoints: [{ address: '::1', port: 8080 }], loadBalance: 'ewma' }]);
    assert.equal((await postRaw(fixture.statusUrl, body)).status, 201);
    assertCleanErrorLog(fixture);
  });

  void it('unknown paths and methods are refused', async () => {
    assert.equal((await fetch(`${fixture.statusUrl}/configuration/nope`)).status, 404);
    assert.equal((await fetch(`${fixture.statusUrl}/configuration/status`, { method: 'DELETE' })).status, 405);
    assertCleanErrorLog(fixture);
  });
});
