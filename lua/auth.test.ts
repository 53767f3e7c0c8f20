// auth.lua, password.lua, digest_auth.lua and credentials_api.lua inside real
// NGINX, wired as features/basic-auth.njk renders a location with auth-type:
// `access_by_lua_block { resty_ingress.auth() }` finds the Ingress's users by
// $resty_route. The hashes below were made with `openssl passwd -apr1`,
// Python's crypt.crypt (libxcrypt: bcrypt, SHA-512, MD5-crypt, DES, yescrypt)
// and hashlib ({SHA}, {SSHA}, htdigest's MD5), all of the password "s3cret".
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { assertCleanErrorLog, startLuaNginx, waitAllWorkersApplied, type LuaNginx } from './test/lua-fixture.ts';
import { freePort } from './test/nginx-harness.ts';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';

const PASSWORD = 's3cret';
const HASHES: Record<string, string> = {
  apr1: '$apr1$8sFt66rZ$5f4dG6uJPUDcCdyvCGEji1',
  'apr1-short-salt': '$apr1$ab$omSBxwSV8ZyOXde7t2LWL.',
  bcrypt: '$2y$05$abcdefghijklmnopqrstuuLK7U1u6pVRmL7L1BBM2aS35PSZnDXlK',
  sha512: '$6$saltsalt$As4wrv0kZlfch1du9WeH7qhskyLriQWySXrZzynnvi46nFnNxjdpl6ksRegrrKexvhIa/Iny8S8uF3fVWTMuC1',
  md5crypt: '$1$saltsalt$RwMqRjSWhXMKbW72DwzGd1',
  des: 'abhWCwoTZY2c6',
  yescrypt: '$y$j9T$abcdefghijklmnop$tySFNIfWVy.ymkBDHEMW6bAQ07dlkLVGalgni.VV4l8',
  sha: '{SHA}/vNB+F2HQ559kaLUZbmHHvZrXpg=',
  ssha: '{SSHA}JVrhyTqab1YvH3vR2b1RYUumqqZzYWx0',
  plain: '{PLAIN}s3cret',
  empty: '',
};
const LONG = 'a much longer password than sixteen bytes';
const REALM = 'test auth';
const HA1 = '48a8e8834a347180df42057998d4e2ba'; // MD5("alice:test auth:s3cret")

function route(ingress: string, path: string): string {
  return `- ns-app-80 app.test ns ${ingress} app ${path}`;
}

function servers(port: number): string {
  const location = (path: string, ingress: string): string => `
      location ${path} {
        set $proxy_upstream_name "ns-app-80";
        set $resty_route "${route(ingress, path)}";
        add_header X-Remote-User "[$remote_user]" always;
        access_by_lua_block { resty_ingress.auth("${route(ingress, path)}") }
        proxy_pass http://upstream_balancer;
      }`;
  return `
    server {
      listen 127.0.0.1:${port};
      ${location('/basic', 'basic')}
      ${location('/digest', 'digest')}
      ${location('/missing', 'nobody')}
      location /secure {
        set $resty_route "r ns-app-80 tls.test ns basic app /secure";
        access_by_lua_block { resty_ingress.auth("r ns-app-80 tls.test ns basic app /secure") }
        proxy_pass http://upstream_balancer;
      }
      location /plain {
        set $resty_route "r ns-app-80 plain.test ns basic app /plain";
        access_by_lua_block { resty_ingress.auth("r ns-app-80 plain.test ns basic app /plain") }
        proxy_pass http://upstream_balancer;
      }
      location /open {
        set $resty_route "${route('open', '/open')}";
        proxy_pass http://upstream_balancer;
      }
    }`;
}

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

/** The Authorization header curl --digest sends for this challenge. */
function digest(challenge: string, opts: { user?: string; ha1?: string; uri?: string; nc?: string; method?: string } = {}): string {
  const nonce = /nonce="([^"]+)"/u.exec(challenge)?.[1] ?? '';
  const uri = opts.uri ?? '/digest/page';
  const nc = opts.nc ?? '00000001';
  const cnonce = 'c0ffee';
  const ha2 = md5(`${opts.method ?? 'GET'}:${uri}`);
  const response = md5(`${opts.ha1 ?? HA1}:${nonce}:${nc}:${cnonce}:auth:${ha2}`);
  return `Digest username="${opts.user ?? 'alice'}", realm="${REALM}", nonce="${nonce}", uri="${uri}", algorithm=MD5, `
    + `response="${response}", qop=auth, nc=${nc}, cnonce="${cnonce}"`;
}

void describe('basic and digest authentication (Lua)', () => {
  let fixture: LuaNginx;
  let port: number;
  let backend: Server;
  /** The Authorization header the backend last received ("-" for none). */
  let upstreamAuthorization = '';

  before(async () => {
    backend = createServer((req, res) => {
      upstreamAuthorization = req.headers.authorization ?? '-';
      res.end('app');
    });
    await new Promise<void>((done) => backend.listen(0, '127.0.0.2', done));
    port = await freePort();
    fixture = await startLuaNginx(servers(port));
    const body = [{ name: 'ns-app-80', loadBalance: 'round_robin', endpoints: [{ address: '127.0.0.2', port: (backend.address() as AddressInfo).port }] }];
    const res = await fetch(`${fixture.statusUrl}/configuration/backends`, { method: 'POST', body: JSON.stringify(body) });
    assert.equal(res.status, 201);
    await waitAllWorkersApplied(fixture);
    await pushSets(defaultSets());
  });
  after(async () => {
    await fixture?.nginx.stop();
    backend?.closeAllConnections();
    await new Promise((done) => backend?.close(done));
  });

  function defaultSets(): unknown[] {
    const users = Object.fromEntries(Object.entries(HASHES).map(([name, hash]) => [name, hash]));
    users.long = '$apr1$x$eVg/QpGhpgNiDA46nGsav0';
    return [
      { id: 'ns/basic', type: 'basic', realm: REALM, users },
      { id: 'ns/digest', type: 'digest', realm: REALM, users: { alice: HA1, nobody: '' } },
    ];
  }

  async function pushSets(sets: unknown[]): Promise<void> {
    const res = await fetch(`${fixture.statusUrl}/configuration/credentials`, { method: 'POST', body: JSON.stringify({ sets }) });
    assert.equal(res.status, 201, await res.text());
  }

  async function get(path: string, authorization?: string): Promise<{ status: number; challenge: string | null; remoteUser: string | null }> {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: authorization === undefined ? {} : { authorization } });
    await res.arrayBuffer();
    return { status: res.status, challenge: res.headers.get('www-authenticate'), remoteUser: res.headers.get('x-remote-user') };
  }

  const basicRows: { name: string; authorization?: string; status: number }[] = [
    ...Object.keys(HASHES).filter((form) => form !== 'empty').map((form) => ({ name: `${form}: the right password`, authorization: basic(form, PASSWORD), status: 200 })),
    ...Object.keys(HASHES).map((form) => ({ name: `${form}: a wrong password`, authorization: basic(form, 's3cret!'), status: 401 })),
    { name: 'apr1 of a password longer than 16 bytes', authorization: basic('long', LONG), status: 200 },
    { name: 'an empty hash lets nobody in (ingress-nginx: 401)', authorization: basic('empty', ''), status: 401 },
    { name: 'no Authorization header', status: 401 },
    { name: 'an unknown user', authorization: basic('mallory', PASSWORD), status: 401 },
    { name: 'another scheme', authorization: `Bearer ${PASSWORD}`, status: 401 },
    { name: 'not base64', authorization: 'Basic !!!', status: 401 },
    { name: 'no colon in the credentials', authorization: `Basic ${Buffer.from('apr1').toString('base64')}`, status: 401 },
    { name: 'the scheme in upper case', authorization: basic('plain', PASSWORD).replace('Basic', 'BASIC'), status: 200 },
    { name: 'a password with a NUL byte', authorization: basic('plain', `${PASSWORD}\u0000x`), status: 401 },
  ];
  for (const row of basicRows) {
    void it(`basic: ${row.name} → ${row.status}`, async () => {
      const answer = await get('/basic/page', row.authorization);
      assert.equal(answer.status, row.status);
      assert.equal(answer.challenge, row.status === 401 ? `Basic realm="${REALM}"` : null);
      assertCleanErrorLog(fixture);
    });
  }

  void it('basic: the Authorization header does not reach the backend, $remote_user stays for the log; the second request takes the remembered answer', async () => {
    for (let i = 0; i < 3; i++) {
      upstreamAuthorization = '';
      const answer = await get('/basic/page', basic('bcrypt', PASSWORD));
      assert.equal(answer.status, 200);
      assert.equal(upstreamAuthorization, '-');
      assert.equal(answer.remoteUser, '[bcrypt]');
    }
  });

  void it('a location of an Ingress without a user set answers 503; one without auth is not checked', async () => {
    assert.equal((await get('/missing/x', basic('plain', PASSWORD))).status, 503);
    assert.equal((await get('/open/x')).status, 200);
  });

  void it('a new push applies to the next request: a changed password, a removed set (503), no reload', async () => {
    const pids = fixture.nginx.workerPids();
    assert.equal((await get('/basic/page', basic('plain', PASSWORD))).status, 200);
    await pushSets([{ id: 'ns/basic', type: 'basic', realm: REALM, users: { plain: '{PLAIN}new' } }]);
    assert.equal((await get('/basic/page', basic('plain', PASSWORD))).status, 401, 'the remembered answer went with the old set');
    assert.equal((await get('/basic/page', basic('plain', 'new'))).status, 200);
    await pushSets([]);
    assert.equal((await get('/basic/page', basic('plain', 'new'))).status, 503);
    assert.deepEqual(fixture.nginx.workerPids(), pids);
    await pushSets(defaultSets());
  });

  void it('ssl-redirect first: a plain-HTTP request to a host with a certificate is redirected, not asked for a password', async () => {
    const tls = createSelfSignedCertificate({ dnsNames: ['tls.test'] });
    const res = await fetch(`${fixture.statusUrl}/configuration/certificates`, {
      method: 'POST', body: JSON.stringify({ certificates: [{ id: 'ns/tls', cert: tls.cert, key: tls.key }], hosts: { 'tls.test': 'ns/tls' }, defaultCertificate: null }),
    });
    assert.equal(res.status, 201, await res.text());
    const deadline = Date.now() + 2000;
    let answer = await fetch(`http://127.0.0.1:${port}/secure/x`, { headers: { host: 'tls.test' }, redirect: 'manual' });
    while (answer.status !== 308 && Date.now() < deadline) {
      await answer.arrayBuffer();
      answer = await fetch(`http://127.0.0.1:${port}/secure/x`, { headers: { host: 'tls.test' }, redirect: 'manual' });
    }
    await answer.arrayBuffer();
    assert.equal(answer.status, 308);
    // fetch cannot set Host: the redirect names the connection's host; the route's host (tls.test) decided it.
    assert.match(answer.headers.get('location') ?? '', /^https:\/\/[^/]+\/secure\/x$/u);
    assert.equal(answer.headers.get('www-authenticate'), null);
    const plain = await get('/plain/x');
    assert.equal(plain.status, 401, 'a host without a certificate is asked for credentials');
    assertCleanErrorLog(fixture);
  });

  void it('digest: the challenge, then the answer curl --digest gives (200), whose replay is refused', async () => {
    const first = await get('/digest/page');
    assert.equal(first.status, 401);
    assert.match(first.challenge ?? '', /^Digest realm="test auth", nonce="[0-9a-f]{24}[A-Za-z0-9+/]{27}", qop="auth", algorithm=MD5$/u);
    const authorization = digest(first.challenge ?? '');
    upstreamAuthorization = '';
    assert.equal((await get('/digest/page', authorization)).status, 200);
    assert.equal(upstreamAuthorization, '-');
    assert.equal((await get('/digest/page', authorization)).status, 401, 'the same nonce count again');
    assert.equal((await get('/digest/page', digest(first.challenge ?? '', { nc: '00000002' }))).status, 200, 'the next count');
  });

  const digestRows: { name: string; header: (challenge: string) => string }[] = [
    { name: 'a wrong password', header: (c) => digest(c, { ha1: md5(`alice:${REALM}:wrong`) }) },
    { name: 'an unknown user', header: (c) => digest(c, { user: 'mallory' }) },
    { name: 'a user whose digest is empty', header: (c) => digest(c, { user: 'nobody', ha1: '' }) },
    { name: 'another URI than the request\'s', header: (c) => digest(c, { uri: '/digest/other' }) },
    { name: 'another method than the request\'s', header: (c) => digest(c, { method: 'POST' }) },
    { name: 'a nonce NGINX did not sign', header: (c) => digest(c.replace(/nonce="[0-9a-f]/u, 'nonce="f')) },
    { name: 'another realm', header: (c) => digest(c).replace(`realm="${REALM}"`, 'realm="other"') },
    { name: 'qop auth-int', header: (c) => digest(c).replace('qop=auth', 'qop=auth-int') },
    { name: 'a repeated parameter', header: (c) => `${digest(c)}, nc=00000009` },
    { name: 'a basic header', header: () => basic('alice', PASSWORD) },
  ];
  for (const row of digestRows) {
    void it(`digest: ${row.name} → 401 with a new challenge`, async () => {
      const { challenge } = await get('/digest/page');
      const answer = await get('/digest/page', row.header(challenge ?? ''));
      assert.equal(answer.status, 401);
      assert.match(answer.challenge ?? '', /^Digest realm="test auth", nonce="/u);
      assertCleanErrorLog(fixture);
    });
  }

  const refusedBodies: { name: string; body: string; reason: RegExp }[] = [
    { name: 'not an object', body: '[]', reason: /JSON object/u },
    { name: 'an unknown field', body: '{"sets":[],"extra":1}', reason: /unknown field/u },
    { name: 'a bad id', body: '{"sets":[{"id":"ns","type":"basic","realm":"","users":{}}]}', reason: /id must be/u },
    { name: 'an id twice', body: '{"sets":[{"id":"a/b","type":"basic","realm":"","users":{}},{"id":"a/b","type":"basic","realm":"","users":{}}]}', reason: /twice/u },
    { name: 'another type', body: '{"sets":[{"id":"a/b","type":"ntlm","realm":"","users":{}}]}', reason: /basic or digest/u },
    { name: 'a realm with a quote', body: '{"sets":[{"id":"a/b","type":"basic","realm":"x\\"y","users":{}}]}', reason: /realm/u },
    { name: 'a user with a colon', body: '{"sets":[{"id":"a/b","type":"basic","realm":"","users":{"a:b":"{PLAIN}x"}}]}', reason: /user name/u },
    { name: 'a hash with a newline', body: '{"sets":[{"id":"a/b","type":"basic","realm":"","users":{"a":"{PLAIN}x\\ny"}}]}', reason: /hash/u },
    { name: 'a digest user without 32 hex digits', body: '{"sets":[{"id":"a/b","type":"digest","realm":"","users":{"a":"abc"}}]}', reason: /32 hex/u },
  ];
  for (const row of refusedBodies) {
    void it(`POST /configuration/credentials refuses ${row.name} (400), and keeps what it had`, async () => {
      const res = await fetch(`${fixture.statusUrl}/configuration/credentials`, { method: 'POST', body: row.body });
      assert.equal(res.status, 400);
      assert.match(await res.text(), row.reason);
      assert.equal((await get('/basic/page', basic('plain', PASSWORD))).status, 200);
    });
  }

  void it('GET /configuration/credentials names the sets and counts users, no hash', async () => {
    const res = await fetch(`${fixture.statusUrl}/configuration/credentials`);
    const text = await res.text();
    const summary = JSON.parse(text) as { sets: unknown[] };
    assert.deepEqual(summary.sets, [{ id: 'ns/basic', type: 'basic', users: 12 }, { id: 'ns/digest', type: 'digest', users: 2 }]);
    assert.doesNotMatch(text, /apr1|PLAIN|48a8e8/u);
  });
});
