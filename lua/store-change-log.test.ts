// The backend store's change log (store.lua): each PATCH records the names it
// set or removed under its version, a POST records none, and changed_since()
// gives the names of a run of versions only when the log covers all of them.
// Workers use it to mark a few backends for decoding instead of every one. Read
// through a test location that calls store.changed_since inside real NGINX.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { patchBackends, postBackends } from '../controller/src/nginx/lua-client.ts';
import type { DynamicBackend } from '../controller/src/model/types.ts';
import { assertCleanErrorLog, startLuaNginx, type LuaNginx } from './test/lua-fixture.ts';
import { freePort } from './test/nginx-harness.ts';

const on = (name: string): DynamicBackend => ({ name, loadBalance: 'round_robin', endpoints: [{ address: '127.0.0.2', port: 1 }] });

void describe('backend store change log', () => {
  let fixture: LuaNginx;
  let statusUrl: string;
  let inspectUrl: string;
  before(async () => {
    const inspectPort = await freePort();
    fixture = await startLuaNginx(`
      server {
        listen 127.0.0.1:${inspectPort};
        location = /changed {
          content_by_lua_block {
            local changed = require("resty_ingress.store").changed_since(tonumber(ngx.var.arg_from), tonumber(ngx.var.arg_to))
            if changed == nil then return ngx.print("all") end
            table.sort(changed)
            ngx.print(table.concat(changed, ","))
          }
        }
        location = /leave-entry {
          content_by_lua_block {
            local version = tonumber(ngx.var.arg_version)
            ngx.shared.resty_backends:set("changes:" .. version, ngx.var.arg_names)
            ngx.print("ok")
          }
        }
      }`);
    statusUrl = fixture.statusUrl;
    inspectUrl = `http://127.0.0.1:${inspectPort}`;
  });
  after(async () => {
    await fixture?.nginx.stop();
  });

  const changed = async (from: number, to: number): Promise<string> => (await fetch(`${inspectUrl}/changed?from=${from}&to=${to}`)).text();

  void it('names what each PATCH set or removed, and "all" where the log stops', async () => {
    const posted = await postBackends(statusUrl, [on('a'), on('b')]);
    const first = await patchBackends(statusUrl, { set: [on('a')], remove: [] });
    const second = await patchBackends(statusUrl, { set: [on('c')], remove: ['b', 'never-there'] });
    assert.equal(second, first + 1);
    const rows: { name: string; from: number; to: number; want: string }[] = [
      { name: 'one PATCH', from: posted, to: first, want: 'a' },
      { name: 'a set and a remove (an unknown name is not a change)', from: first, to: second, want: 'b,c' },
      { name: 'two PATCHes at once, repeats kept', from: posted, to: second, want: 'a,b,c' },
      { name: 'nothing missed', from: second, to: second, want: '' },
      { name: 'a POST among them', from: posted - 1, to: second, want: 'all' },
      { name: 'nothing applied yet', from: -1, to: second, want: 'all' },
      { name: 'further behind than the log keeps', from: second - 257, to: second, want: 'all' },
    ];
    for (const row of rows) assert.equal(await changed(row.from, row.to), row.want, row.name);
  });

  void it('a POST publishes no entry, even one a failed PATCH left under the same version', async () => {
    const before = await patchBackends(statusUrl, { set: [on('a')], remove: [] });
    // What a PATCH that wrote its entry and then failed to publish its version leaves behind.
    assert.equal(await (await fetch(`${inspectUrl}/leave-entry?version=${before + 1}&names=stale`)).text(), 'ok');
    const posted = await postBackends(statusUrl, [on('a'), on('d')]);
    assert.equal(posted, before + 1);
    assert.equal(await changed(before, posted), 'all', 'the POST changed d, which a stale entry would hide');
  });

  void it('keeps the last 256 versions only', async () => {
    const start = await patchBackends(statusUrl, { set: [on('a')], remove: [] });
    let last = start;
    for (let i = 0; i < 256; i++) last = await patchBackends(statusUrl, { set: [on(i % 2 === 0 ? 'a' : 'b')], remove: [] });
    assert.equal(await changed(last - 256, last), [...Array<string>(128).fill('a'), ...Array<string>(128).fill('b')].join(','));
    // The entry of version `start` was deleted when version start + 256 was published.
    assert.equal(await changed(start - 1, start), 'all');
    assertCleanErrorLog(fixture);
  });
});
