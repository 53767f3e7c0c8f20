// Session affinity inside real NGINX (sticky.lua): a session stays on its
// endpoint over many requests and both workers; persistent keeps every
// session when endpoints are added, balanced moves some to the new ones and
// both keep the sessions of endpoints that stay when one goes; a retry after
// a failure stays on the cookie's endpoint unless change-on-failure, which
// picks another and sets a new cookie; a canary route keeps a session on the
// backend that issued its cookie (sticky), or not (legacy).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freePort } from './test/nginx-harness.ts';
import { assertCleanErrorLog } from './test/lua-fixture.ts';
import { pushRoutes } from './test/canary-fixture.ts';
import {
  AFFINITY, backendKey, cookiePair, endpointOf, persistentKey, pushBackends, ROUTES, startStickyNginx, visit, type Affinity, type StickyNginx,
} from './test/sticky-fixture.ts';

const REFUSED = /connect\(\) failed \(111: Connection refused\) while connecting to upstream/;

/** `count` new sessions: the cookie each got and the endpoint that answered. */
async function openSessions(fixture: StickyNginx, count: number): Promise<{ cookie: string; endpoint: string }[]> {
  const sessions = [];
  for (let i = 0; i < count; i++) {
    const got = await visit(fixture, '/');
    sessions.push({ cookie: cookiePair(got.setCookie), endpoint: got.body });
  }
  return sessions;
}

void describe('sticky: sessions', () => {
  let fixture: StickyNginx;
  before(async () => {
    fixture = await startStickyNginx();
  });
  after(async () => {
    await fixture?.stop();
  });
  const endpoints = (names: string): { address: string; port: number }[] =>
    fixture.echo.filter((b) => names.includes(b.name)).map(endpointOf);

  for (const mode of ['balanced', 'persistent'] as const) {
    void it(`${mode}: a session stays on its endpoint over 24 requests; new sessions spread`, async () => {
      await pushBackends(fixture, { sticky: { endpoints: endpoints('abcd'), affinity: { ...AFFINITY, mode } } });
      const sessions = await openSessions(fixture, 12);
      assert.ok(new Set(sessions.map((s) => s.endpoint)).size > 1, `new sessions spread: ${JSON.stringify(sessions)}`);
      for (const session of sessions.slice(0, 3)) {
        for (let i = 0; i < 24; i++) assert.deepEqual(await visit(fixture, '/', { cookie: session.cookie }), { body: session.endpoint, setCookie: undefined });
      }
      assertCleanErrorLog(fixture.lua);
    });
  }

  const scaling: ReadonlyArray<{ name: string; mode: Affinity['mode']; from: string; to: string; check: (moved: string[], stayed: string[], lost: string[]) => void }> = [
    {
      name: 'persistent, scale-up a,b → a,b,c,d: no session moves', mode: 'persistent', from: 'ab', to: 'abcd',
      check: (moved) => assert.deepEqual(moved, []),
    },
    {
      name: 'balanced, scale-up a,b → a,b,c,d: some sessions move, only to the new endpoints', mode: 'balanced', from: 'ab', to: 'abcd',
      check: (moved) => {
        assert.ok(moved.length > 0, 'rebalanced');
        assert.ok(moved.every((move) => move.endsWith('>c') || move.endsWith('>d')), moved.join());
      },
    },
    {
      name: 'persistent, b goes: sessions of a stay, those of b get a new endpoint and cookie', mode: 'persistent', from: 'ab', to: 'acd',
      check: (moved, stayed, lost) => {
        assert.ok(stayed.every((at) => at === 'a'));
        assert.ok(moved.every((move) => move.startsWith('b>')), moved.join());
        assert.ok(lost.length > 0 && lost.every((at) => at !== 'b'), lost.join());
      },
    },
    {
      name: 'balanced, b goes: sessions of a stay on a', mode: 'balanced', from: 'ab', to: 'a',
      check: (moved, stayed) => {
        assert.ok(stayed.includes('a'));
        assert.ok(moved.length > 0 && moved.every((move) => move === 'b>a'), moved.join());
      },
    },
  ];
  for (const row of scaling) {
    void it(row.name, async () => {
      await pushBackends(fixture, { sticky: { endpoints: endpoints(row.from), affinity: { ...AFFINITY, mode: row.mode } } });
      const sessions = await openSessions(fixture, 40);
      await pushBackends(fixture, { sticky: { endpoints: endpoints(row.to), affinity: { ...AFFINITY, mode: row.mode } } });
      const moved: string[] = [];
      const stayed: string[] = [];
      const lost: string[] = [];
      for (const session of sessions) {
        const got = await visit(fixture, '/', { cookie: session.cookie });
        if (got.body === session.endpoint) stayed.push(got.body);
        else moved.push(`${session.endpoint}>${got.body}`);
        // Persistent reissues the cookie of a session whose endpoint went; balanced never needs to.
        if (got.setCookie !== undefined) lost.push(got.body);
        assert.equal(got.setCookie !== undefined, row.mode === 'persistent' && !row.to.includes(session.endpoint));
      }
      row.check(moved, stayed, lost);
      assertCleanErrorLog(fixture.lua);
    });
  }

  const failures: ReadonlyArray<{ name: string; changeOnFailure: boolean; want: string; newCookie: boolean }> = [
    { name: 'change-on-failure: the retry goes to another endpoint and the cookie names it', changeOnFailure: true, want: 'a', newCookie: true },
    { name: 'without change-on-failure: every try stays on the cookie\'s dead endpoint (502)', changeOnFailure: false, want: 'status 502', newCookie: false },
  ];
  for (const row of failures) {
    void it(row.name, async () => {
      const dead = { address: '127.0.0.1', port: await freePort() };
      const alive = endpointOf(fixture.echo[0] ?? assert.fail());
      const affinity = { ...AFFINITY, mode: 'persistent' as const, changeOnFailure: row.changeOnFailure };
      await pushBackends(fixture, { flaky: { endpoints: [dead, alive], affinity } });
      const cookie = `INGRESSCOOKIE=${persistentKey('flaky', dead)}|${backendKey('flaky')}`;
      for (let i = 0; i < 4; i++) {
        const got = await visit(fixture, '/retry', { cookie });
        assert.equal(got.body, row.want);
        assert.equal(got.setCookie, row.newCookie ? `INGRESSCOOKIE=${persistentKey('flaky', alive)}|${backendKey('flaky')}; Path=/retry; HttpOnly` : undefined);
      }
      assertCleanErrorLog(fixture.lua, [REFUSED, /no live upstreams while connecting to upstream/]);
    });
  }

  const canaries: ReadonlyArray<{ name: string; canaryAffinity: boolean; weight: number; cookieOf: string | null; want: string; setCookie: boolean }> = [
    { name: 'a session of the main backend stays there though the canary takes everyone', canaryAffinity: true, weight: 100, cookieOf: 'cmain', want: 'a', setCookie: false },
    { name: 'sticky: a session of the canary stays there though the canary takes no one', canaryAffinity: true, weight: 0, cookieOf: 'ccanary', want: 'b', setCookie: false },
    { name: 'sticky: a new client sent to the canary gets the canary\'s cookie', canaryAffinity: true, weight: 100, cookieOf: null, want: 'b', setCookie: true },
    // The main backend does not know the canary's key: it opens a session of its own (as ingress-nginx).
    { name: 'legacy: a canary cookie means nothing, the weight decides', canaryAffinity: false, weight: 0, cookieOf: 'ccanary', want: 'a', setCookie: true },
    { name: 'legacy: a client sent to the canary gets no cookie', canaryAffinity: false, weight: 100, cookieOf: null, want: 'b', setCookie: false },
    { name: 'legacy: a session of the main backend still stays there', canaryAffinity: false, weight: 100, cookieOf: 'cmain', want: 'a', setCookie: false },
  ];
  for (const row of canaries) {
    void it(`canary: ${row.name}`, async () => {
      const [a, b] = [endpointOf(fixture.echo[0] ?? assert.fail()), endpointOf(fixture.echo[1] ?? assert.fail())];
      const affinity = { ...AFFINITY, mode: 'persistent' as const };
      await pushBackends(fixture, { cmain: { endpoints: [a], affinity }, ccanary: { endpoints: [b], affinity: row.canaryAffinity ? affinity : null } });
      await pushRoutes({ lua: fixture.lua, port: fixture.port, echo: fixture.echo, routeLog: fixture.routeLog, stop: fixture.stop }, { [ROUTES.canary]: { backend: 'ccanary', weight: row.weight } });
      const headers: Record<string, string> = row.cookieOf === null ? {} : { cookie: `INGRESSCOOKIE=${persistentKey(row.cookieOf, row.cookieOf === 'cmain' ? a : b)}|${backendKey(row.cookieOf)}` };
      const logged = fixture.routeLog().length;
      for (let i = 0; i < 6; i++) {
        const got = await visit(fixture, '/canary', headers);
        assert.equal(got.body, row.want);
        assert.equal(got.setCookie !== undefined, row.setCookie, got.setCookie);
        const issuer = row.want === 'b' ? { name: 'ccanary', endpoint: b } : { name: 'cmain', endpoint: a };
        if (got.setCookie !== undefined) {
          assert.ok(got.setCookie.startsWith(`INGRESSCOOKIE=${persistentKey(issuer.name, issuer.endpoint)}|${backendKey(issuer.name)}; Path=/canary;`), got.setCookie);
        }
      }
      await new Promise((done) => setTimeout(done, 50));
      // The metrics labels: the key, plus the canary backend as the 8th word when the canary answered; nothing per session.
      const want = row.want === 'b' ? `${ROUTES.canary} ccanary` : ROUTES.canary;
      assert.deepEqual(fixture.routeLog().slice(logged).map((line) => line.split('|')[0]), Array<string>(6).fill(want));
      assertCleanErrorLog(fixture.lua);
    });
  }
});
