// Backends decoded on first use (lua/resty_ingress/backends.lua) inside real
// NGINX: a worker reports a new version once it has marked the backends that
// changed, without decoding them (a full set of 10,000 once cost every worker
// a whole timer tick of decodes before it could report), and the first
// request that needs a marked backend decodes it and routes to the endpoints
// of the version reported, for a POST and for PATCHes after it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freePort } from './test/nginx-harness.ts';
import {
  assertCleanErrorLog, postRaw, startLuaSuite, stopLuaSuite, tallyFresh, waitAllWorkersApplied,
  type EchoBackend, type LuaNginx,
} from './test/lua-fixture.ts';

/** What the answering worker holds of backend `name`, read in that worker: marked (not decoded) and, after get(), its endpoints (space-separated). */
interface Held { readonly marked: boolean; readonly endpoints: string; readonly markedAfter: boolean; readonly markedCount: number }

// Test-only: a look into the answering worker's backends.
const testLocations = (port: number): string => `
    server {
      listen 127.0.0.1:${port};
      # Marked before, decoded endpoints, marked after, and how many stored backends stay marked.
      location = /held {
        content_by_lua_block {
          local backends = require("resty_ingress.backends")
          local name = ngx.var.arg_name
          local marked = backends.is_marked(name)
          local backend = backends.get(name)
          local keys = {}
          for i, endpoint in ipairs(backend and backend.picker.endpoints or {}) do keys[i] = endpoint.key end
          local names = require("resty_ingress.store").split_names(ngx.shared.resty_backends:get("names"))
          local count = 0
          for i = 1, #names do
            if backends.is_marked(names[i]) then count = count + 1 end
          end
          ngx.print(require("cjson").encode({ marked = marked, endpoints = table.concat(keys, " "),
                                              markedAfter = backends.is_marked(name), markedCount = count }))
        }
      }
    }`;

void describe('backends are decoded on first use', () => {
  let fixture: LuaNginx;
  let echo: EchoBackend[];
  let testUrl: string;
  before(async () => {
    const port = await freePort();
    testUrl = `http://127.0.0.1:${port}`;
    ({ fixture, echo } = await startLuaSuite(['alpha', 'beta', 'gamma'], testLocations(port)));
  });
  after(() => stopLuaSuite(fixture, echo));

  const backend = (name: string, ...to: EchoBackend[]): unknown =>
    ({ name, loadBalance: 'round_robin', endpoints: to.map((e) => ({ address: e.address, port: e.port })) });
  const held = async (name: string): Promise<Held> => (await fetch(`${testUrl}/held?name=${name}`)).json() as Promise<Held>;
  const key = (e: EchoBackend): string => `${e.address}:${e.port}`;

  void it('a worker reports a POSTed version with its backends marked, none decoded', async () => {
    const many = Array.from({ length: 500 }, (_, i) => backend(`ns-app-${i}-80`, echo[i % 3]));
    assert.equal((await postRaw(fixture.statusUrl, JSON.stringify(many))).status, 201);
    await waitAllWorkersApplied(fixture);
    // No request has needed any of them: the worker answering held all 500 as marked text; one use decodes that one only.
    assert.deepEqual(await held('ns-app-4-80'), { marked: true, endpoints: key(echo[1]), markedAfter: false, markedCount: 499 });
    assertCleanErrorLog(fixture);
  });

  void it('the first request after a change routes to the new endpoints, in every worker', async () => {
    assert.equal((await postRaw(fixture.statusUrl, JSON.stringify([backend('ns-web-80', echo[0])]))).status, 201);
    await waitAllWorkersApplied(fixture);
    assert.deepEqual(await tallyFresh(fixture, 'ns-web-80', 8), { alpha: 8 });
    assert.equal((await postRaw(fixture.statusUrl, JSON.stringify([backend('ns-web-80', echo[1])]))).status, 201);
    await waitAllWorkersApplied(fixture);
    assert.deepEqual(await tallyFresh(fixture, 'ns-web-80', 8), { beta: 8 }, 'no worker routes by the endpoints it decoded before');
    assertCleanErrorLog(fixture);
  });

  void it('PATCH after POST: a set backend routes to its new endpoints, a removed one answers 503, an untouched one stays', async () => {
    const body = [backend('ns-a-80', echo[0]), backend('ns-b-80', echo[1]), backend('ns-c-80', echo[2])];
    assert.equal((await postRaw(fixture.statusUrl, JSON.stringify(body))).status, 201);
    await waitAllWorkersApplied(fixture);
    // Decoded in some worker before the PATCH: the PATCH must mark it again.
    assert.deepEqual(await tallyFresh(fixture, 'ns-a-80', 4), { alpha: 4 });
    const patch = { set: [backend('ns-a-80', echo[2], echo[1])], remove: ['ns-b-80'] };
    const res = await fetch(`${fixture.statusUrl}/configuration/backends`, { method: 'PATCH', body: JSON.stringify(patch) });
    assert.equal(res.status, 200, await res.text());
    await waitAllWorkersApplied(fixture);
    // Round-robin positions are per worker, and either worker may answer: both endpoints, nothing else.
    const spread = await tallyFresh(fixture, 'ns-a-80', 8);
    assert.deepEqual(Object.keys(spread).sort(), ['beta', 'gamma'], JSON.stringify(spread));
    assert.deepEqual(await tallyFresh(fixture, 'ns-b-80', 4), { 'status 503': 4 });
    assert.deepEqual(await tallyFresh(fixture, 'ns-c-80', 4), { gamma: 4 });
    const removed = await held('ns-b-80');
    assert.deepEqual([removed.marked, removed.endpoints], [false, ''], 'a removed backend is gone from the worker, not marked');
    assertCleanErrorLog(fixture);
  });
});
