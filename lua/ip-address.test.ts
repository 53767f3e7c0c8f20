// lua/resty_ingress/ip_address.lua inside real NGINX against the controller's
// own rule (model/endpoints.ts: node:net isIPv4, or isIPv6 without a zone
// id), over generated strings: valid addresses of every shape, the same
// mutated (a byte inserted, removed or replaced: NUL, newline, "%", ":",
// ".", digits beyond ASCII...), and strings from the addresses' alphabet.
// Both must agree on every one: Lua refusing what the model sends would stop
// every push, Lua taking more than the model would take garbage.
// fast-check prints the seed and the shrunk batch of a failure; replay with
// FC_SEED=<seed>.
import assert from 'node:assert/strict';
import { isIPv4, isIPv6 } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { freePort } from './test/nginx-harness.ts';
import { assertCleanErrorLog, startLuaNginx, type LuaNginx } from './test/lua-fixture.ts';

/** The model's rule for an endpoint address (model/endpoints.ts, normaliseAddress). */
function modelFamily(address: string): 'ipv4' | 'ipv6' | null {
  if (isIPv4(address)) return 'ipv4';
  if (isIPv6(address) && !address.includes('%')) return 'ipv6';
  return null;
}

// Bytes that change what an address is; the non-ASCII ones are digits or colons elsewhere in Unicode.
const NASTY = ['\0', '\n', '\r', '\t', ' ', '%', ':', '.', '/', '[', ']', '0', '9', 'a', 'f', 'F', 'g', 'x', '-', '+', '١', '０', '：', 'é'];
const ALPHABET = ['0', '1', '2', '5', '9', 'a', 'f', 'A', ':', ':', '.', '.', '%', '\0'];

const valid = fc.oneof(fc.ipV4(), fc.ipV6(), fc.ipV4Extended(), fc.ipV6().map((a) => a.toUpperCase()));
const mutated = fc.tuple(valid, fc.nat(), fc.constantFrom(...NASTY), fc.constantFrom('insert', 'replace', 'remove')).map(([address, at, byte, how]) => {
  const i = at % (address.length + 1);
  if (how === 'insert') return address.slice(0, i) + byte + address.slice(i);
  if (how === 'replace') return address.slice(0, i) + byte + address.slice(i + 1);
  return address.slice(0, i) + address.slice(i + 1);
});
const fromAlphabet = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 20 }).map((chars) => chars.join(''));
const candidate = fc.oneof(valid, mutated, mutated, fromAlphabet);

const RUNS = 60;
const BATCH = 100;

void describe('ip_address.lua agrees with the controller on every address', () => {
  let fixture: LuaNginx;
  let classifyUrl: string;
  before(async () => {
    const port = await freePort();
    classifyUrl = `http://127.0.0.1:${port}/classify`;
    // POST a JSON array of strings, get back [family or false, ...].
    fixture = await startLuaNginx(`
    server {
      listen 127.0.0.1:${port};
      location = /classify {
        client_body_buffer_size 1m;
        content_by_lua_block {
          local cjson = require("cjson.safe")
          local ip_address = require("resty_ingress.ip_address")
          ngx.req.read_body()
          local list = cjson.decode(ngx.req.get_body_data())
          local out = {}
          for i = 1, #list do out[i] = ip_address.family(list[i]) or false end
          ngx.print(cjson.encode(out))
        }
      }
    }`);
  });
  after(async () => {
    await fixture?.nginx.stop();
  });

  const classify = async (addresses: readonly string[]): Promise<Array<string | false>> => {
    const res = await fetch(classifyUrl, { method: 'POST', body: JSON.stringify(addresses) });
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as Array<string | false>;
  };

  void it('rows a generator might miss', async () => {
    const rows = ['10.0.0.1\0evil', '10.0.0.1\0', '::1\0', '1:2:3:4:5:6:7::', '::', '1::', '::2:3:4:5:6:7:8', '1:2:3:4::5:6:7:8',
      '::1:2:3:4:5:6:1.2.3.4', '::2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6::1.2.3.4', '1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:7:1.2.3.4',
      'fe80::1%eth0', '0.0.0.0', '255.255.255.255', '256.0.0.0', '1.2.3.04', '::ffff:1.2.3.04', ':1::', '1::2:', '', ':', '.'];
    const lua = await classify(rows);
    assert.deepEqual(rows.map((row, i) => [row, lua[i]]), rows.map((row) => [row, modelFamily(row) ?? false]));
    assertCleanErrorLog(fixture);
  });

  void it(`${RUNS * BATCH} generated strings: the same verdict as the model`, async (t) => {
    const seed = process.env.FC_SEED === undefined ? Date.now() : Number(process.env.FC_SEED);
    t.diagnostic(`fast-check seed ${seed}`);
    let valid4 = 0;
    let valid6 = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(candidate, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        const lua = await classify(batch);
        const disagree = batch.map((address, i) => ({ address, lua: lua[i], model: modelFamily(address) ?? false }))
          .filter((row) => row.lua !== row.model);
        valid4 += batch.filter((a) => modelFamily(a) === 'ipv4').length;
        valid6 += batch.filter((a) => modelFamily(a) === 'ipv6').length;
        assert.deepEqual(disagree, []);
      }),
      { numRuns: RUNS, seed },
    );
    // The generators must exercise both sides of the rule, or agreeing proves little.
    t.diagnostic(`${valid4} IPv4 and ${valid6} IPv6 addresses among them`);
    assert.ok(valid4 > RUNS * BATCH / 20 && valid6 > RUNS * BATCH / 20, `too few valid addresses: ${valid4} IPv4, ${valid6} IPv6`);
    assertCleanErrorLog(fixture);
  });
});
