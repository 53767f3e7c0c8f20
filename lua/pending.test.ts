// Pending hosts (lua/resty_ingress/pending.lua, pending_api.lua) inside real
// NGINX: a host pushed as pending is served by the catch-all server through
// @resty_pending (the catch-all's own locations and their directives never
// apply to it), with NGINX's location choice for exact and prefix locations,
// Host matched case-insensitively and without its port; a miss (unknown
// host, or a path the host does not route) is exactly the catch-all's
// answer; a rendered server is never shadowed; $resty_route and
// $proxy_upstream_name set in the server rewrite phase survive ngx.exec;
// a bad push is refused whole (400) and changes nothing; no reload.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from './test/nginx-harness.ts';
import {
  assertCleanErrorLog, getOnce, postRaw, startEchoBackends, startLuaNginx, waitAllWorkersApplied, type EchoBackend, type LuaNginx,
} from './test/lua-fixture.ts';

const KEY = {
  root: 'r ns-one-80 new.test ns one one /',
  docs: '- ns-two-80 new.test ns one two /docs/',
  docsExact: '- ns-three-80 new.test ns one three /docs',
  deep: '- ns-three-80 new.test ns one three /docs/deep/',
  only: '- ns-two-80 only.test ns only two /api/',
};

const PENDING = {
  hosts: [
    {
      host: 'new.test',
      paths: [
        { path: '/', match: 'prefix', key: KEY.root },
        { path: '/docs/', match: 'prefix', key: KEY.docs },
        { path: '/docs', match: 'exact', key: KEY.docsExact },
        { path: '/docs/deep/', match: 'prefix', key: KEY.deep },
      ],
    },
    { host: 'only.test', paths: [{ path: '/api/', match: 'prefix', key: KEY.only }] },
    // A host a server is rendered for: the pending entry must never answer it.
    { host: 'rendered.test', paths: [{ path: '/', match: 'prefix', key: '- ns-one-80 rendered.test ns r one /' }] },
  ],
};

async function postPending(fixture: LuaNginx, body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${fixture.statusUrl}/configuration/pending`, { method: 'POST', body });
  return { status: res.status, text: await res.text() };
}

/** One GET with this Host (fetch would not send it): status, body and the catch-all's marker header. */
async function getWithHeaders(port: number, host: string, path: string): Promise<{ status: number; body: string; marker: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, marker: res.headers['x-catch-all'] as string | undefined }));
    });
    req.once('error', reject);
    req.end();
  });
}

void describe('pending hosts: served by the catch-all until their server is rendered', () => {
  let fixture: LuaNginx;
  let echo: EchoBackend[];
  let port: number;
  before(async () => {
    echo = await startEchoBackends(['one', 'two', 'three']);
    port = await freePort();
    // As server.njk renders the catch-all: its own locations carry directives a pending route must not get.
    fixture = await startLuaNginx(`
    log_format pending '$host|$resty_route|$proxy_upstream_name|$status';
    server {
      listen 127.0.0.1:${port} default_server;
      server_name _;
      access_log pending.log pending;
      server_rewrite_by_lua_block { resty_ingress.pending() }
      location / {
        add_header X-Catch-All yes always;
        return 404 "catch-all";
      }
      location @resty_pending {
        proxy_pass http://upstream_balancer;
      }
    }
    server {
      listen 127.0.0.1:${port};
      server_name rendered.test;
      access_log pending.log pending;
      location / { return 200 "rendered"; }
    }`);
    const backends = echo.map((b, i) => ({ name: ['ns-one-80', 'ns-two-80', 'ns-three-80'][i], endpoints: [{ address: b.address, port: b.port }], loadBalance: 'round_robin' }));
    assert.equal((await postRaw(fixture.statusUrl, JSON.stringify(backends))).status, 201);
    await waitAllWorkersApplied(fixture);
  });
  after(async () => {
    await fixture?.nginx.stop();
    await Promise.all((echo ?? []).map((b) => b.close()));
  });

  const catchAll = { status: 404, body: 'catch-all' };
  const answers = async (rows: readonly { host: string; path: string }[]): Promise<{ status: number; body: string }[]> => {
    const out: { status: number; body: string }[] = [];
    // Twice each, on new connections: both workers answer.
    for (const row of [...rows, ...rows]) {
      const { status, body } = await getOnce(port, row.host, row.path);
      out.push({ status, body });
    }
    return out;
  };

  void it('before any push: every unknown host gets the catch-all, as today', async () => {
    assert.deepEqual(await answers([{ host: 'new.test', path: '/' }]), [catchAll, catchAll]);
    const res = await fetch(`${fixture.statusUrl}/configuration/pending`);
    assert.equal(await res.text(), '{"hosts":[]}');
    assertCleanErrorLog(fixture);
  });

  const served = [
    { name: 'the root prefix', host: 'new.test', path: '/x', want: 'one' },
    { name: 'the longest prefix wins', host: 'new.test', path: '/docs/deep/a', want: 'three' },
    { name: 'a shorter prefix', host: 'new.test', path: '/docs/a', want: 'two' },
    { name: 'the exact location before the prefix', host: 'new.test', path: '/docs', want: 'three' },
    { name: 'a prefix is not a word: /docsx falls to /', host: 'new.test', path: '/docsx', want: 'one' },
    { name: 'Host in upper case, with a port', host: 'NEW.Test:8080', path: '/docs/a', want: 'two' },
    { name: 'another pending host', host: 'only.test', path: '/api/v1', want: 'two' },
  ];
  void it('a pushed host is served by its backends, with no reload', async () => {
    const pids = [fixture.nginx.masterPid, ...fixture.nginx.workerPids()];
    const pushed = await postPending(fixture, JSON.stringify(PENDING));
    assert.equal(pushed.status, 201, pushed.text);
    await waitAllWorkersApplied(fixture);
    for (const row of served) {
      const got = await answers([row]);
      assert.deepEqual(got, [{ status: 200, body: row.want }, { status: 200, body: row.want }], row.name);
    }
    assert.deepEqual([fixture.nginx.masterPid, ...fixture.nginx.workerPids()], pids, 'no reload');
    assertCleanErrorLog(fixture);
  });

  void it('the catch-all location\'s directives never apply to a pending route; its variables survive ngx.exec', async () => {
    assert.deepEqual(await getWithHeaders(port, 'new.test', '/docs/deep/z'), { status: 200, body: 'three', marker: undefined });
    const log = readFileSync(join(fixture.nginx.prefix, 'pending.log'), 'utf8').trim().split('\n');
    assert.equal(log.at(-1), `new.test|${KEY.deep}|ns-three-80|200`);
    assertCleanErrorLog(fixture);
  });

  const misses = [
    { name: 'an unknown host', host: 'other.test', path: '/' },
    { name: 'a pending host, a path it does not route', host: 'only.test', path: '/apix' },
    { name: 'a pending host, the prefix without its slash (no exact location pushed)', host: 'only.test', path: '/api' },
  ];
  for (const row of misses) {
    void it(`a miss is the catch-all's answer: ${row.name}`, async () => {
      assert.deepEqual(await answers([row]), [catchAll, catchAll]);
      assert.deepEqual(await getWithHeaders(port, row.host, row.path), { ...catchAll, marker: 'yes' });
      assertCleanErrorLog(fixture);
    });
  }

  void it('a rendered server is never shadowed by a pending entry of its name', async () => {
    assert.deepEqual(await answers([{ host: 'rendered.test', path: '/' }]), [{ status: 200, body: 'rendered' }, { status: 200, body: 'rendered' }]);
    assertCleanErrorLog(fixture);
  });

  const refused = [
    { name: 'a wildcard host', body: { hosts: [{ host: '*.test', paths: [{ path: '/', match: 'prefix', key: KEY.root }] }] }, reason: /host/ },
    { name: 'an upper-case host', body: { hosts: [{ host: 'New.test', paths: [{ path: '/', match: 'prefix', key: KEY.root }] }] }, reason: /host/ },
    { name: 'a host with a port', body: { hosts: [{ host: 'new.test:80', paths: [{ path: '/', match: 'prefix', key: KEY.root }] }] }, reason: /host/ },
    { name: 'a regex match', body: { hosts: [{ host: 'x.test', paths: [{ path: '/', match: 'regex', key: KEY.root }] }] }, reason: /match/ },
    { name: 'a path with a space', body: { hosts: [{ host: 'x.test', paths: [{ path: '/a b', match: 'prefix', key: KEY.root }] }] }, reason: /path/ },
    { name: 'a key of 6 words', body: { hosts: [{ host: 'x.test', paths: [{ path: '/', match: 'prefix', key: 'r a b c d e' }] }] }, reason: /key/ },
    { name: 'no paths', body: { hosts: [{ host: 'x.test', paths: [] }] }, reason: /paths/ },
    { name: 'a host twice', body: { hosts: [PENDING.hosts[1], PENDING.hosts[1]] }, reason: /twice/ },
    { name: 'an unknown field', body: { hosts: [], extra: 1 }, reason: /unknown field extra/ },
  ];
  for (const row of refused) {
    void it(`a push with ${row.name} is refused whole and changes nothing`, async () => {
      const before = await (await fetch(`${fixture.statusUrl}/configuration/pending`)).text();
      const res = await postPending(fixture, JSON.stringify(row.body));
      assert.equal(res.status, 400, res.text);
      assert.match(res.text, row.reason);
      assert.equal(await (await fetch(`${fixture.statusUrl}/configuration/pending`)).text(), before);
      assert.deepEqual(await answers([{ host: 'only.test', path: '/api/v1' }]), [{ status: 200, body: 'two' }, { status: 200, body: 'two' }]);
      assertCleanErrorLog(fixture);
    });
  }

  void it('a host dropped from the set gets the catch-all again', async () => {
    const pushed = await postPending(fixture, JSON.stringify({ hosts: [PENDING.hosts[1]] }));
    assert.equal(pushed.status, 201, pushed.text);
    await waitAllWorkersApplied(fixture);
    assert.deepEqual(await answers([{ host: 'new.test', path: '/docs' }]), [catchAll, catchAll]);
    assert.deepEqual(await answers([{ host: 'only.test', path: '/api/' }]), [{ status: 200, body: 'two' }, { status: 200, body: 'two' }]);
    assertCleanErrorLog(fixture);
  });
});
