// The consistent-hash ring of balanced session affinity (sticky_ring.lua),
// run by real LuaJIT inside NGINX over 20,000 keys: sessions spread over the
// endpoints, an added endpoint takes about 1/n of them and only it gains, a
// removed endpoint gives away only its own, and the order endpoints come in
// does not change where a key goes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findDataplane } from '../controller/src/nginx/dataplane.ts';
import { freePort, startNginx, type RunningNginx } from './test/nginx-harness.ts';

interface Moves {
  /** Share of keys each endpoint of `before` owns. */
  readonly shares: Record<string, number>;
  /** Share of keys whose endpoint differs in `after`. */
  readonly moved: number;
  /** "from>to" for each kind of move, with its share. */
  readonly moves: Record<string, number>;
}

void describe('sticky_ring', () => {
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
          location = /moves {
            content_by_lua_block {
              local ring = require("resty_ingress.sticky_ring")
              local cjson = require("cjson")
              local function make(list)
                local endpoints = {}
                for name in list:gmatch("[^,]+") do
                  endpoints[#endpoints + 1] = { name = name, key = "10.0.0." .. name .. ":8080" }
                end
                return ring.new(endpoints)
              end
              local before, after = make(ngx.var.arg_before), make(ngx.var.arg_after)
              local total, moved, shares, moves = 20000, 0, {}, {}
              for i = 1, total do
                local key = ngx.md5("session " .. i)
                local from, to = before:find(key).name, after:find(key).name
                shares[from] = (shares[from] or 0) + 1 / total
                if from ~= to then
                  moved = moved + 1
                  moves[from .. ">" .. to] = (moves[from .. ">" .. to] or 0) + 1 / total
                end
              end
              ngx.print(cjson.encode({ shares = shares, moved = moved / total, moves = moves }))
            }
          }
        }`,
    });
  });
  after(async () => {
    await nginx?.stop();
  });

  const moves = async (before: string, after: string): Promise<Moves> => (await fetch(`${base}/moves?before=${before}&after=${after}`)).json() as Promise<Moves>;

  const rows: ReadonlyArray<{ name: string; before: string; after: string; check: (m: Moves) => void }> = [
    {
      name: 'four endpoints share the sessions (each 15-35 %); the same ring moves nothing', before: '1,2,3,4', after: '1,2,3,4',
      check: (m) => {
        assert.deepEqual(Object.keys(m.shares).sort(), ['1', '2', '3', '4']);
        for (const share of Object.values(m.shares)) assert.ok(share > 0.15 && share < 0.35, JSON.stringify(m.shares));
        assert.equal(m.moved, 0);
      },
    },
    {
      name: 'scale-up 4 → 5: about 1/5 move, all of them to the new endpoint', before: '1,2,3,4', after: '1,2,3,4,5',
      check: (m) => {
        assert.ok(m.moved > 0.1 && m.moved < 0.3, String(m.moved));
        assert.ok(Object.keys(m.moves).every((move) => move.endsWith('>5')), JSON.stringify(m.moves));
      },
    },
    {
      name: 'scale-down 4 → 3: only the removed endpoint\'s sessions move', before: '1,2,3,4', after: '1,2,3',
      check: (m) => {
        assert.ok(Object.keys(m.moves).every((move) => move.startsWith('4>')), JSON.stringify(m.moves));
        assert.ok(Math.abs(m.moved - (m.shares['4'] ?? 0)) < 1e-9, 'every session of 4 moved, no other');
      },
    },
    { name: 'the order of the endpoints does not matter', before: '1,2,3,4', after: '4,2,1,3', check: (m) => assert.equal(m.moved, 0) },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      row.check(await moves(row.before, row.after));
      assert.deepEqual(nginx.seriousLogLines(), []);
    });
  }
});
