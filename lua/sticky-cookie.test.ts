// The affinity cookie as sticky.lua writes it, inside real NGINX: its
// attributes in lua-resty-cookie's order (what ingress-nginx v1.15.1 sends),
// its value (a key and the backend key, never an endpoint's address), the
// Path of the location unless configured, no cookie from a location whose
// Ingress has no affinity, and the pushes /configuration/backends refuses.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertCleanErrorLog, postRaw } from './test/lua-fixture.ts';
import {
  AFFINITY, backendKey, endpointOf, persistentKey, pushBackends, ROUTES, startStickyNginx, visit, type Affinity, type StickyNginx,
} from './test/sticky-fixture.ts';

const OLD_CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/59.0.3071.115 Safari/537.36';
const NEW_CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const KEY = backendKey('sticky');
const EXPIRES = '[A-Z][a-z]{2}, \\d\\d-[A-Z][a-z]{2}-\\d\\d \\d\\d:\\d\\d:\\d\\d GMT';

const rows: ReadonlyArray<{ name: string; affinity: Partial<Affinity>; path?: string; agent?: string; want: RegExp }> = [
  { name: 'defaults: INGRESSCOOKIE, the location\'s Path, HttpOnly', affinity: {}, want: new RegExp(`^INGRESSCOOKIE=[0-9.]+\\|${KEY}; Path=/; HttpOnly$`) },
  { name: 'the Path of a prefix location', affinity: {}, path: '/shop/cart', want: new RegExp(`^INGRESSCOOKIE=[^;]+; Path=/shop; HttpOnly$`) },
  { name: 'a regex location without session-cookie-path: its expression, as ingress-nginx', affinity: {}, path: '/re/abc', want: /; Path=\/re\/\[a-z\]\+\$; HttpOnly$/ },
  { name: 'session-cookie-path wins over the location\'s', affinity: { path: '/foo/bar' }, path: '/re/abc', want: /; Path=\/foo\/bar; HttpOnly$/ },
  {
    name: 'every attribute, in lua-resty-cookie\'s order',
    affinity: { cookie: 'SERVERID', expires: 172800, maxAge: 259200, domain: 'foo.bar', path: '/p', secure: true, sameSite: 'None' },
    want: new RegExp(`^SERVERID=[^;]+; Expires=${EXPIRES}; Max-Age=259200; Domain=foo\\.bar; Path=/p; Secure; HttpOnly; SameSite=None$`),
  },
  { name: 'Secure only on HTTPS without session-cookie-secure', affinity: { secure: false }, want: /; Path=\/; HttpOnly$/ },
  { name: 'SameSite=Lax', affinity: { sameSite: 'Lax' }, want: /; HttpOnly; SameSite=Lax$/ },
  { name: 'SameSite written "lax": none (lua-resty-cookie takes only None, Lax, Strict)', affinity: { sameSite: 'lax' }, want: /; HttpOnly$/ },
  { name: 'conditional SameSite=None: left out for a browser that rejects it', affinity: { sameSite: 'None', conditionalSameSiteNone: true }, agent: OLD_CHROME, want: /; HttpOnly$/ },
  { name: 'conditional SameSite=None: kept for a current browser', affinity: { sameSite: 'None', conditionalSameSiteNone: true }, agent: NEW_CHROME, want: /; HttpOnly; SameSite=None$/ },
  { name: 'a negative Max-Age is sent as such', affinity: { maxAge: -1 }, want: /; Max-Age=-1; Path=\/; HttpOnly$/ },
];

void describe('sticky: the cookie', () => {
  let fixture: StickyNginx;
  before(async () => {
    fixture = await startStickyNginx();
  });
  after(async () => {
    await fixture?.stop();
  });

  for (const row of rows) {
    void it(row.name, async () => {
      await pushBackends(fixture, { sticky: { endpoints: fixture.echo.map(endpointOf), affinity: { ...AFFINITY, ...row.affinity } } });
      const got = await visit(fixture, row.path ?? '/', row.agent ? { 'user-agent': row.agent } : {});
      assert.match(got.setCookie ?? '', row.want);
      assert.doesNotMatch(got.setCookie ?? '', /127\.0\.0\./, 'no address in clear');
      assertCleanErrorLog(fixture.lua);
    });
  }

  void it('persistent: the value is md5(backend name, endpoint) and the backend key', async () => {
    await pushBackends(fixture, { sticky: { endpoints: fixture.echo.map(endpointOf), affinity: { ...AFFINITY, mode: 'persistent' } } });
    for (let i = 0; i < 6; i++) {
      const got = await visit(fixture, '/');
      const answered = fixture.echo.find((b) => b.name === got.body);
      assert.ok(answered, got.body);
      assert.equal(got.setCookie, `INGRESSCOOKIE=${persistentKey('sticky', endpointOf(answered))}|${KEY}; Path=/; HttpOnly`);
    }
    assertCleanErrorLog(fixture.lua);
  });

  void it('a location of an Ingress without affinity sets no cookie, yet honours one', async () => {
    await pushBackends(fixture, { sticky: { endpoints: fixture.echo.map(endpointOf), affinity: { ...AFFINITY, mode: 'persistent' } } });
    assert.equal((await visit(fixture, '/plain')).setCookie, undefined);
    const c = fixture.echo[2];
    assert.ok(c);
    const cookie = `INGRESSCOOKIE=${persistentKey('sticky', endpointOf(c))}|${KEY}`;
    for (let i = 0; i < 8; i++) assert.deepEqual(await visit(fixture, '/plain', { cookie }), { body: 'c', setCookie: undefined });
    assertCleanErrorLog(fixture.lua);
  });

  const refused: ReadonlyArray<{ name: string; affinity: Record<string, unknown>; reason: RegExp }> = [
    { name: 'a cookie name with ";"', affinity: { ...AFFINITY, cookie: 'a;b' }, reason: /\[0\]\.affinity\.cookie/ },
    { name: 'a path with a space', affinity: { ...AFFINITY, path: '/a b' }, reason: /affinity\.path/ },
    { name: 'a domain with a CR LF', affinity: { ...AFFINITY, domain: 'a\r\nX-Evil: 1' }, reason: /affinity\.domain/ },
    { name: 'an unknown mode', affinity: { ...AFFINITY, mode: 'sticky' }, reason: /affinity\.mode/ },
    { name: 'a fractional Max-Age', affinity: { ...AFFINITY, maxAge: 1.5 }, reason: /affinity\.maxAge/ },
    { name: 'an unknown SameSite', affinity: { ...AFFINITY, sameSite: 'Relaxed' }, reason: /affinity\.sameSite/ },
    { name: 'a flag that is no boolean', affinity: { ...AFFINITY, changeOnFailure: 'true' }, reason: /affinity\.changeOnFailure/ },
    { name: 'an Ingress that is no namespace/name', affinity: { ...AFFINITY, ingresses: ['app'] }, reason: /affinity\.ingresses\[0\]/ },
    { name: 'an array for an object', affinity: ['balanced'] as unknown as Record<string, unknown>, reason: /affinity: must be an object/ },
  ];
  for (const row of refused) {
    void it(`POST /configuration/backends refuses ${row.name}`, async () => {
      const body = JSON.stringify([{ name: 'sticky', endpoints: [endpointOf(fixture.echo[0] ?? assert.fail())], loadBalance: 'round_robin', affinity: row.affinity }]);
      const res = await postRaw(fixture.lua.statusUrl, body);
      assert.equal(res.status, 400, res.text);
      assert.match(res.text, row.reason);
      assertCleanErrorLog(fixture.lua);
    });
  }

  void it('the route in the metrics log stays the location\'s key: no session or endpoint in it', async () => {
    await pushBackends(fixture, { sticky: { endpoints: fixture.echo.map(endpointOf), affinity: AFFINITY } });
    const logged = fixture.routeLog().length;
    for (let i = 0; i < 4; i++) await visit(fixture, '/');
    await new Promise((done) => setTimeout(done, 50));
    const routes = fixture.routeLog().slice(logged).map((line) => line.split('|')[0]);
    assert.deepEqual(routes, Array<string>(4).fill(ROUTES.root));
  });
});
