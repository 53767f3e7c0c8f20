// Consistent hashing (lua/resty_ingress/chash.lua) inside real NGINX: the key
// template read from the request's variables, the ring's stability (the same
// key, the same endpoint; removing one endpoint of n moves only its ~1/n keys),
// subsets of subset-size endpoints, retries to another endpoint, and the
// backends endpoint refusing a bad hash. Test locations run the ring on its own
// (/ring, /key); the proxy server runs it as the balancer does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freePort } from './test/nginx-harness.ts';
import {
  assertCleanErrorLog, postRaw, startEchoBackends, startLuaNginx, waitAllWorkersApplied, type EchoBackend, type LuaNginx,
} from './test/lua-fixture.ts';

const TEST_LOCATIONS = (port: number): string => `
    server {
      listen 127.0.0.1:${port};
      location = /ring {
        client_body_buffer_size 1m;
        client_max_body_size 1m;
        content_by_lua_block {
          local chash = require("resty_ingress.chash")
          local cjson = require("cjson.safe")
          ngx.req.read_body()
          local spec = cjson.decode(ngx.req.get_body_data())
          local endpoints = {}
          for i, address in ipairs(spec.endpoints) do
            local key = address .. ":80"
            endpoints[i] = { address = address, port = 80, key = key, needle = " " .. key .. " " }
          end
          local picker = assert(chash.new(endpoints, { by = "$arg_k", subsetSize = spec.subsetSize }))
          local out = {}
          for i, key in ipairs(spec.keys) do
            local member = picker:member_of(key)
            if picker.subsets then
              local names = {}
              for m, endpoint in ipairs(picker.subsets[member]) do names[m] = endpoint.address end
              out[i] = table.concat(names, ",")
            else
              out[i] = endpoints[member].address
            end
          end
          ngx.print(cjson.encode(out))
        }
      }
      location = /key {
        content_by_lua_block {
          local chash = require("resty_ingress.chash")
          local endpoints = { { address = "10.0.0.1", port = 80, key = "10.0.0.1:80", needle = " 10.0.0.1:80 " } }
          local picker, err = chash.new(endpoints, { by = ngx.var.http_x_by })
          if not picker then
            ngx.print("refused: ", err)
            return
          end
          ngx.print("key=", chash.request_key(picker))
        }
      }
    }`;

interface RingSpec { endpoints: string[]; subsetSize?: number; keys: string[] }

const addresses = (n: number): string[] => Array.from({ length: n }, (_, i) => `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}`);
const keys = (n: number, prefix = '/path/'): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

void describe('consistent hashing', () => {
  let fixture: LuaNginx;
  let echo: EchoBackend[];
  let testUrl: string;
  before(async () => {
    echo = await startEchoBackends(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    const port = await freePort();
    testUrl = `http://127.0.0.1:${port}`;
    fixture = await startLuaNginx(TEST_LOCATIONS(port));
  });
  after(async () => {
    await fixture?.nginx.stop();
    await Promise.all((echo ?? []).map((b) => b.close()));
  });

  const ring = async (spec: RingSpec): Promise<string[]> => {
    const res = await fetch(`${testUrl}/ring`, { method: 'POST', body: JSON.stringify(spec) });
    assert.equal(res.status, 200);
    return (await res.json()) as string[];
  };

  const keyRows: ReadonlyArray<{ name: string; by: string; headers?: Record<string, string>; query?: string; want: string }> = [
    { name: 'one variable', by: '$request_uri', query: '?a=1', want: 'key=/key?a=1' },
    { name: 'two variables side by side', by: '$http_x_user$arg_id', headers: { 'x-user': 'ann' }, query: '?id=7', want: 'key=ann7' },
    { name: 'a braced variable and text', by: '${arg_id}-text_1', query: '?id=7', want: 'key=7-text_1' },
    { name: 'an unset variable is empty', by: 'user-$http_x_none', want: 'key=user-' },
    { name: 'text only', by: 'fixed', want: 'key=fixed' },
    { name: 'refused: a space', by: '$uri $host', want: 'refused: unexpected   at 5 (only $name, ${name} and text of [A-Za-z0-9_-])' },
    { name: 'refused: a lone $', by: 'a$', want: 'refused: unexpected $ at 2 (only $name, ${name} and text of [A-Za-z0-9_-])' },
    { name: 'refused: an open brace', by: '${uri', want: 'refused: unexpected $ at 1 (only $name, ${name} and text of [A-Za-z0-9_-])' },
    { name: 'refused: a quote', by: '$uri"', want: 'refused: unexpected " at 5 (only $name, ${name} and text of [A-Za-z0-9_-])' },
  ];
  for (const row of keyRows) {
    void it(`key template: ${row.name}`, async () => {
      const res = await fetch(`${testUrl}/key${row.query ?? ''}`, { headers: { 'x-by': row.by, ...row.headers } });
      assert.equal(await res.text(), row.want);
      assertCleanErrorLog(fixture);
    });
  }

  void it('the same key gets the same endpoint in every build of the ring', async () => {
    const spec = { endpoints: addresses(5), keys: keys(200) };
    const first = await ring(spec);
    assert.deepEqual(await ring(spec), first);
    assert.deepEqual(await ring({ ...spec, endpoints: [...spec.endpoints].reverse() }), first, 'the order endpoints come in does not matter');
  });

  const removalRows: ReadonlyArray<{ name: string; count: number; removed: number }> = [
    { name: '4 → 3, the last one', count: 4, removed: 3 },
    { name: '4 → 3, the first one', count: 4, removed: 0 },
    { name: '10 → 9', count: 10, removed: 5 },
    { name: '150 → 149 (fewer points per endpoint)', count: 150, removed: 77 },
  ];
  for (const row of removalRows) {
    void it(`removing one endpoint moves only its keys, ~1/n of them: ${row.name}`, async () => {
      const all = addresses(row.count);
      const gone = all[row.removed] as string;
      const list = keys(4000);
      const before = await ring({ endpoints: all, keys: list });
      const after = await ring({ endpoints: all.filter((a) => a !== gone), keys: list });
      const moved = list.filter((_, i) => before[i] !== after[i]);
      assert.ok(moved.every((key) => before[list.indexOf(key)] === gone), 'only keys of the removed endpoint moved');
      assert.equal(moved.length, before.filter((a) => a === gone).length, 'every key of the removed endpoint moved');
      const share = moved.length / list.length;
      assert.ok(share > 0.4 / row.count && share < 2 / row.count, `moved ${moved.length} of ${list.length} (${share.toFixed(3)}), expected ~1/${row.count}`);
    });
  }

  void it('keys spread over every endpoint', async () => {
    const picks = await ring({ endpoints: addresses(4), keys: keys(4000, '/shop/item?id=') });
    const counts = addresses(4).map((a) => picks.filter((p) => p === a).length);
    for (const count of counts) assert.ok(count > 4000 * 0.12 && count < 4000 * 0.4, `per endpoint: ${counts.join(', ')}`);
  });

  const subsetRows: ReadonlyArray<{ name: string; count: number; size: number; want: string[] }> = [
    { name: '7 endpoints in subsets of 3: the last one filled up with the first', count: 7, size: 3, want: ['10.0.0.1,10.0.0.2,10.0.0.3', '10.0.0.4,10.0.0.5,10.0.0.6', '10.0.0.7,10.0.0.1,10.0.0.2'] },
    { name: '4 endpoints in subsets of 2', count: 4, size: 2, want: ['10.0.0.1,10.0.0.2', '10.0.0.3,10.0.0.4'] },
    { name: 'fewer endpoints than the size: one subset, repeated', count: 2, size: 3, want: ['10.0.0.1,10.0.0.2,10.0.0.1'] },
  ];
  for (const row of subsetRows) {
    void it(`subsets: ${row.name}`, async () => {
      const picks = await ring({ endpoints: addresses(row.count), subsetSize: row.size, keys: keys(500) });
      assert.deepEqual([...new Set(picks)].sort(), [...row.want].sort());
    });
  }

  async function push(backends: object[]): Promise<void> {
    const res = await postRaw(fixture.statusUrl, JSON.stringify(backends));
    assert.equal(res.status, 201, res.text);
    await waitAllWorkersApplied(fixture);
  }

  /** The names of the echo backends that answer `count` requests of user `user` (each on a new connection: both workers). */
  async function answers(user: string, count: number, backend = 'hashed'): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < count; i++) {
      const res = await fetch(`${fixture.proxyUrl}/`, { headers: { 'x-backend': backend, 'x-user': user, connection: 'close' } });
      out.push(res.status === 200 ? await res.text() : `status ${res.status}`);
    }
    return out;
  }

  const endpointsOf = (list: readonly EchoBackend[]): { address: string; port: number }[] => list.map(({ address, port }) => ({ address, port }));

  void it('through the balancer: a user keeps one endpoint, users spread', async () => {
    await push([{ name: 'hashed', endpoints: endpointsOf(echo.slice(0, 4)), loadBalance: 'round_robin', hash: { by: '$http_x_user', subsetSize: null } }]);
    const seen = new Set<string>();
    for (const user of ['ann', 'bob', 'cy', 'dee', 'eve', 'fay', 'gus', 'hal', 'ivy', 'jo']) {
      const got = new Set(await answers(user, 6));
      assert.equal(got.size, 1, `${user}: ${[...got].join(', ')}`);
      seen.add([...got][0] as string);
    }
    assert.ok(seen.size >= 2, `ten users on ${[...seen].join(', ')}`);
    assertCleanErrorLog(fixture);
  });

  void it('through the balancer: subset mode sends a user to exactly subset-size endpoints', async () => {
    await push([{ name: 'hashed', endpoints: endpointsOf(echo.slice(0, 6)), loadBalance: 'round_robin', hash: { by: '$http_x_user', subsetSize: 3 } }]);
    for (const user of ['ann', 'bob', 'cy']) {
      const got = new Set(await answers(user, 40));
      assert.equal(got.size, 3, `${user}: ${[...got].join(', ')}`);
    }
    assertCleanErrorLog(fixture);
  });

  void it('through the balancer: a failed endpoint is retried on another, the other users keep theirs', async () => {
    const live = endpointsOf(echo.slice(0, 3));
    const dead = { address: '127.0.0.1', port: await freePort() };
    const users = Array.from({ length: 16 }, (_, i) => `user${i}`);
    await push([{ name: 'hashed', endpoints: live, loadBalance: 'round_robin', hash: { by: '$http_x_user', subsetSize: null } }]);
    const alone = new Map<string, string>();
    for (const user of users) alone.set(user, (await answers(user, 1))[0] as string);
    await push([{ name: 'hashed', endpoints: [dead, ...live], loadBalance: 'round_robin', hash: { by: '$http_x_user', subsetSize: null } }]);
    for (const user of users) {
      const got = await answers(user, 3);
      // The retry goes where the key goes without the dead endpoint: where it went before it was added.
      assert.deepEqual(got, [alone.get(user), alone.get(user), alone.get(user)], user);
    }
    assertCleanErrorLog(fixture, [/connect\(\) failed \(111: Connection refused\)/]);
  });

  const refusedRows: ReadonlyArray<{ name: string; hash: unknown; want: RegExp }> = [
    { name: 'a space in by', hash: { by: '$uri $host', subsetSize: null }, want: /\[0\]\.hash\.by: unexpected/ },
    { name: 'by empty', hash: { by: '', subsetSize: null }, want: /\[0\]\.hash\.by: must be 1\.\.256 characters/ },
    { name: 'subsetSize 0', hash: { by: '$uri', subsetSize: 0 }, want: /\[0\]\.hash\.subsetSize: must be null or an integer/ },
    { name: 'subsetSize 2.5', hash: { by: '$uri', subsetSize: 2.5 }, want: /\[0\]\.hash\.subsetSize/ },
    { name: 'a string', hash: '$uri', want: /\[0\]\.hash: must be null or an object/ },
  ];
  for (const row of refusedRows) {
    void it(`POST /configuration/backends refuses a bad hash: ${row.name}`, async () => {
      const res = await postRaw(fixture.statusUrl, JSON.stringify([{ name: 'bad', endpoints: [], loadBalance: 'round_robin', hash: row.hash }]));
      assert.equal(res.status, 400);
      assert.match(res.text, row.want);
      assertCleanErrorLog(fixture);
    });
  }

  void it('GET /configuration/backends shows a backend\'s hash; none without one', async () => {
    await push([
      { name: 'hashed', endpoints: [], loadBalance: 'ewma', hash: { by: '${arg_id}-x', subsetSize: 2 } },
      { name: 'plain', endpoints: [], loadBalance: 'round_robin', hash: null },
    ]);
    const loaded = (await (await fetch(`${fixture.statusUrl}/configuration/backends`)).json()) as object[];
    assert.deepEqual(loaded, [
      { name: 'hashed', loadBalance: 'ewma', endpoints: [], hash: { by: '${arg_id}-x', subsetSize: 2 } },
      { name: 'plain', loadBalance: 'round_robin', endpoints: [] },
    ]);
  });
});
