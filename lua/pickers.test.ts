// The pickers on their own, run by real LuaJIT inside NGINX: a test location
// builds a picker from the query (weights) and returns the sequence it picks.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findDataplane } from '../controller/src/nginx/dataplane.ts';
import { freePort, startNginx, type RunningNginx } from './test/nginx-harness.ts';

void describe('pickers', () => {
  let nginx: RunningNginx;
  let base: string;
  before(async () => {
    const dataplane = findDataplane();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    nginx = await startNginx({
      dataplane,
      readyPort: port,
      http: `
        lua_package_path "${dataplane.luaPackagePath}";
        lua_package_cpath "${dataplane.luaPackageCPath}";
        server {
          listen 127.0.0.1:${port};
          location = /healthz { return 200 "ok"; }
          location = /pick {
            content_by_lua_block {
              local picker = require("resty_ingress." .. ngx.var.arg_algorithm)
              local endpoints = {}
              for weight in ngx.var.arg_weights:gmatch("%d+") do
                local name = string.char(96 + #endpoints + 1)
                endpoints[#endpoints + 1] = { address = name, port = 1, key = name .. ":1", weight = tonumber(weight) }
              end
              local p = picker.new(endpoints)
              if ngx.var.arg_slow then p:feedback(ngx.var.arg_slow .. ":1", 0.5) end
              local out = {}
              for i = 1, tonumber(ngx.var.arg_count) do out[i] = p:find().address end
              ngx.print(table.concat(out))
            }
          }
        }`,
    });
  });
  after(async () => {
    await nginx?.stop();
  });

  const pick = async (query: string): Promise<string> => (await fetch(`${base}/pick?${query}`)).text();

  const roundRobinRows: ReadonlyArray<{ name: string; weights: string; count: number; want: string }> = [
    { name: 'equal weights rotate in order', weights: '1,1,1', count: 7, want: 'abcabca' },
    { name: 'one endpoint always wins', weights: '1', count: 3, want: 'aaa' },
    { name: 'smooth weighting interleaves (NGINX 5,1,1)', weights: '5,1,1', count: 7, want: 'aabacaa' },
    { name: 'weights 2,1 repeat every 3 picks', weights: '2,1', count: 6, want: 'abaaba' },
  ];
  for (const row of roundRobinRows) {
    void it(`round_robin: ${row.name}`, async () => {
      assert.equal(await pick(`algorithm=round_robin&weights=${row.weights}&count=${row.count}`), row.want);
      assert.deepEqual(nginx.seriousLogLines(), []);
    });
  }

  void it('ewma: with two endpoints it always takes the one with the lower score', async () => {
    assert.equal(await pick('algorithm=ewma&weights=1,1&count=20&slow=a'), 'b'.repeat(20));
    assert.equal(await pick('algorithm=ewma&weights=1,1&count=20&slow=b'), 'a'.repeat(20));
    assert.deepEqual(nginx.seriousLogLines(), []);
  });

  void it('ewma: with many endpoints every one is reachable', async () => {
    const picks = await pick('algorithm=ewma&weights=1,1,1,1&count=400');
    assert.deepEqual([...new Set(picks)].sort(), ['a', 'b', 'c', 'd']);
    assert.deepEqual(nginx.seriousLogLines(), []);
  });
});
