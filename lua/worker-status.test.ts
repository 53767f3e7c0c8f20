// GET /configuration/status inside real NGINX: `applied` is the version every
// live worker holds whole, and a worker reports a version only once it holds
// every backend of it (its validated text, decoded on first use). The
// controller counts a push as applied by `applied` (controller/src/nginx/
// lua-client.ts, waitForWorkers), so a worker that finds a backend it cannot
// decode must take its report back, also after later pushes that do not
// touch that backend.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { freePort } from './test/nginx-harness.ts';
import {
  assertCleanErrorLog, getFresh, postRaw, singleBackendBody, startLuaSuite, stopLuaSuite, tally, waitAllWorkersApplied,
  type EchoBackend, type LuaNginx,
} from './test/lua-fixture.ts';

interface Status { readonly version: number; readonly applied: number; readonly workers: Record<string, number> }

// Test-only locations that write the shared dict behind the configuration
// server's back: what no valid push can produce, to see what workers report.
const testLocations = (port: number): string => `
    server {
      listen 127.0.0.1:${port};
      # A stored backend no worker can decode, published as a new version (store.lua's layout).
      location = /store-undecodable {
        content_by_lua_block {
          local dict = ngx.shared.resty_backends
          local version = (dict:get("version") or 0) + 1
          local names = dict:get("names") or ""
          dict:set("backend:broken", "{not json", 0, version)
          dict:set("names", names == "" and "broken" or names .. "\\nbroken")
          dict:set("names_version", version)
          dict:set("version", version)
          ngx.print(version)
        }
      }
      # Worker slot 0 as a worker that has applied nothing yet.
      location = /slot-behind {
        content_by_lua_block {
          local dict = ngx.shared.resty_backends
          local value = dict:get("worker:0")
          dict:set("worker:0", value:match("^%d+") .. " 0")
        }
      }
    }`;

void describe('worker status: a version is reported once every worker holds it', () => {
  let fixture: LuaNginx;
  let echo: EchoBackend[];
  let testUrl: string;
  before(async () => {
    const port = await freePort();
    testUrl = `http://127.0.0.1:${port}`;
    ({ fixture, echo } = await startLuaSuite(['alpha'], testLocations(port)));
  });
  after(() => stopLuaSuite(fixture, echo));

  const status = async (): Promise<Status> => (await fetch(`${fixture.statusUrl}/configuration/status`)).json() as Promise<Status>;
  const good = (name = 'ns-web-80'): string => singleBackendBody(echo[0]!, name);
  /** Long enough for every worker's 5 ms poll to have run several times. */
  const settle = (): Promise<void> => sleep(100);

  void it('applied is the version every worker holds, and each worker is listed by PID', async () => {
    assert.equal((await postRaw(fixture.statusUrl, good())).status, 201);
    await waitAllWorkersApplied(fixture);
    const now = await status();
    assert.equal(now.applied, now.version);
    assert.deepEqual(Object.keys(now.workers).sort(), fixture.nginx.workerPids().map(String).sort());
    assertCleanErrorLog(fixture);
  });

  void it('one worker slot behind holds applied back until that worker applies the next push', async () => {
    await fetch(`${testUrl}/slot-behind`);
    const behind = await status();
    assert.equal(behind.applied, 0, JSON.stringify(behind));
    assert.ok(behind.version > 0);
    assert.equal((await postRaw(fixture.statusUrl, good())).status, 201);
    await settle();
    const caughtUp = await status();
    assert.equal(caughtUp.applied, caughtUp.version, JSON.stringify(caughtUp));
    assertCleanErrorLog(fixture);
  });

  void it('a backend that does not decode: reported until a request meets it, then taken back; not reported after a PATCH beside it; a push without it is', async () => {
    const held = (await status()).version;
    const broken = Number(await (await fetch(`${testUrl}/store-undecodable`)).text());
    assert.equal(broken, held + 1);
    await settle();
    let now = await status();
    assert.equal(now.version, broken);
    // Workers decode a backend on first use (backends.lua): the text is marked, not yet read.
    assert.equal(now.applied, broken, `no worker has met "broken" yet: ${JSON.stringify(now)}`);

    // Requests for it, each on a new connection, until every worker has met it: 503, and its report goes back.
    const deadline = Date.now() + 5000;
    for (;;) {
      assert.equal((await getFresh(fixture, 'broken')).status, 503);
      await sleep(10);
      now = await status();
      if (Object.values(now.workers).every((version) => version === held) || Date.now() > deadline) break;
    }
    assert.equal(now.version, broken);
    assert.equal(now.applied, held, `every worker failed on "broken": ${JSON.stringify(now)}`);
    for (const version of Object.values(now.workers)) assert.equal(version, held);
    assert.deepEqual(await tally(fixture, 'ns-web-80', 2), { alpha: 2 }, 'the backends they hold still route');

    // A later change elsewhere: the workers try "broken" again and still cannot.
    const patch = { set: JSON.parse(good('ns-other-80')) as unknown[], remove: [] };
    const patched = await fetch(`${fixture.statusUrl}/configuration/backends`, { method: 'PATCH', body: JSON.stringify(patch) });
    assert.equal(patched.status, 200, await patched.text());
    await settle();
    now = await status();
    assert.equal(now.version, broken + 1);
    assert.equal(now.applied, held, `a PATCH beside "broken" must not report it applied: ${JSON.stringify(now)}`);
    assert.deepEqual(await tally(fixture, 'ns-other-80', 2), { alpha: 2 }, 'what they could apply routes');

    // The full set without it: every worker holds every backend again.
    assert.equal((await postRaw(fixture.statusUrl, good())).status, 201);
    await settle();
    now = await status();
    assert.equal(now.applied, now.version, JSON.stringify(now));
    assert.equal(now.version, broken + 2);
    // Each worker says so once per version it could not apply (its first use and the PATCH), not per poll.
    const lines = fixture.nginx.errorLog().slice(fixture.logChecked).split('\n').filter((line) => /applying backend broken/.test(line));
    assert.ok(lines.length >= 2 && lines.length <= 2 * Object.keys(now.workers).length, lines.join('\n'));
    assertCleanErrorLog(fixture, [/applying backend broken/]);
  });
});
