// Which requests of a route go to its canary, inside real NGINX, with
// ingress-nginx v1.15.1's rules (canary.lua): the header first (a value, a
// pattern, or always/never), then the cookie, then the weight; a header or
// cookie that decides nothing falls through. Weight 0 and weight = total
// are exact, a split stays within binomial bounds over 1,000 requests, and
// a weightTotal below 100 draws from 100 as ingress-nginx does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertCleanErrorLog } from './test/lua-fixture.ts';
import {
  endpointOf, pushBackends, pushRoutes, ROUTES, startCanaryNginx, tallyRoutes, type Canary, type CanaryNginx,
} from './test/canary-fixture.ts';

void describe('canary: which requests go to the canary', () => {
  let fixture: CanaryNginx;
  before(async () => {
    fixture = await startCanaryNginx();
    const [main, canary] = fixture.echo;
    await pushBackends(fixture, { main: [endpointOf(main)], canary: [endpointOf(canary)] });
  });
  after(async () => {
    await fixture?.stop();
  });

  const byHeader = { backend: 'canary', header: 'X-Canary' };
  const rows: ReadonlyArray<{ name: string; canary: Omit<Canary, 'backend'> & { backend?: string }; headers?: Record<string, string>; want: 'canary' | 'main' }> = [
    { name: 'no policy on the route: main', canary: { weight: 0 }, want: 'main' },
    { name: 'header "always" beats weight 0', canary: { ...byHeader, weight: 0 }, headers: { 'x-canary': 'always' }, want: 'canary' },
    { name: 'header "never" beats weight 100', canary: { ...byHeader, weight: 100 }, headers: { 'x-canary': 'never' }, want: 'main' },
    { name: 'header with another value falls through to weight 100', canary: { ...byHeader, weight: 100 }, headers: { 'x-canary': 'maybe' }, want: 'canary' },
    { name: 'header with another value falls through to weight 0', canary: { ...byHeader, weight: 0 }, headers: { 'x-canary': 'maybe' }, want: 'main' },
    { name: 'header absent: weight decides', canary: { ...byHeader, weight: 100 }, want: 'canary' },
    { name: 'header name with dashes, any case', canary: { backend: 'canary', header: 'X-Canary-Flag', weight: 0 }, headers: { 'x-canary-flag': 'always' }, want: 'canary' },
    { name: 'headerValue equal: canary', canary: { ...byHeader, headerValue: 'v2', weight: 0 }, headers: { 'x-canary': 'v2' }, want: 'canary' },
    { name: 'headerValue set: "always" is just another value', canary: { ...byHeader, headerValue: 'v2', weight: 0 }, headers: { 'x-canary': 'always' }, want: 'main' },
    { name: 'headerValue set: "never" falls through to weight 100', canary: { ...byHeader, headerValue: 'v2', weight: 100 }, headers: { 'x-canary': 'never' }, want: 'canary' },
    { name: 'headerValue differs: falls through to the cookie', canary: { ...byHeader, headerValue: 'v2', cookie: 'cv', weight: 0 }, headers: { 'x-canary': 'v3', cookie: 'cv=always' }, want: 'canary' },
    { name: 'headerPattern matches (unanchored PCRE)', canary: { ...byHeader, headerPattern: 'v[0-9]+', weight: 0 }, headers: { 'x-canary': 'beta-v12' }, want: 'canary' },
    { name: 'headerPattern does not match: weight 0', canary: { ...byHeader, headerPattern: '^v[0-9]+$', weight: 0 }, headers: { 'x-canary': 'beta-v12' }, want: 'main' },
    { name: 'headerPattern does not match: falls through to the cookie', canary: { ...byHeader, headerPattern: '^v[0-9]+$', cookie: 'cv', weight: 0 }, headers: { 'x-canary': 'x', cookie: 'cv=always' }, want: 'canary' },
    { name: 'headerPattern set: "always" must match it', canary: { ...byHeader, headerPattern: '^v[0-9]+$', weight: 0 }, headers: { 'x-canary': 'always' }, want: 'main' },
    { name: 'headerValue and headerPattern: the value wins, the pattern is not tried', canary: { ...byHeader, headerValue: 'v2', headerPattern: '^v', weight: 0 }, headers: { 'x-canary': 'v3' }, want: 'main' },
    { name: 'cookie "always" beats weight 0', canary: { backend: 'canary', cookie: 'canary_cookie', weight: 0 }, headers: { cookie: 'a=1; canary_cookie=always' }, want: 'canary' },
    { name: 'cookie "never" beats weight 100', canary: { backend: 'canary', cookie: 'canary_cookie', weight: 100 }, headers: { cookie: 'canary_cookie=never' }, want: 'main' },
    { name: 'cookie with another value falls through to weight 100', canary: { backend: 'canary', cookie: 'canary_cookie', weight: 100 }, headers: { cookie: 'canary_cookie=yes' }, want: 'canary' },
    { name: 'header "never" beats cookie "always"', canary: { ...byHeader, cookie: 'cv', weight: 0 }, headers: { 'x-canary': 'never', cookie: 'cv=always' }, want: 'main' },
    { name: 'header "always" beats cookie "never"', canary: { ...byHeader, cookie: 'cv', weight: 0 }, headers: { 'x-canary': 'always', cookie: 'cv=never' }, want: 'canary' },
    { name: 'weight = weightTotal: always canary', canary: { backend: 'canary', weight: 1000, weightTotal: 1000 }, want: 'canary' },
    { name: 'weight 0 of 1000: never canary', canary: { backend: 'canary', weight: 0, weightTotal: 1000 }, want: 'main' },
    { name: 'an unknown canary backend: main, whatever the policy says', canary: { backend: 'ghost', header: 'x-canary', weight: 100 }, headers: { 'x-canary': 'always' }, want: 'main' },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const canary = { backend: 'canary', ...row.canary };
      // The first row's policy sits on another route: the measured one has none.
      await pushRoutes(fixture, row.name.startsWith('no policy') ? { [ROUTES.other]: canary } : { [ROUTES.main]: canary });
      assert.deepEqual(await tallyRoutes(fixture, { headers: row.headers }, 24), { [row.want]: 24 });
      assertCleanErrorLog(fixture.lua);
    });
  }

  void it('a policy applies to its own route only', async () => {
    await pushRoutes(fixture, { [ROUTES.main]: { backend: 'canary', weight: 100 } });
    assert.deepEqual(await tallyRoutes(fixture, { path: '/other' }, 24), { main: 24 });
    assert.deepEqual(await tallyRoutes(fixture, {}, 24), { canary: 24 });
    assertCleanErrorLog(fixture.lua);
  });

  // Over n requests with probability p, the canary count is within mean ± 5 standard deviations
  // (a false failure about once in 1.7 million runs).
  const splits = [
    { name: 'weight 30 of 100', canary: { weight: 30 }, p: 0.3 },
    { name: 'weight 250 of 1000', canary: { weight: 250, weightTotal: 1000 }, p: 0.25 },
    { name: 'weight 10 of 10 draws from 100, as ingress-nginx: 10 %', canary: { weight: 10, weightTotal: 10 }, p: 0.1 },
  ];
  for (const row of splits) {
    void it(`a weighted split within binomial bounds over 1,000 requests: ${row.name}`, async () => {
      await pushRoutes(fixture, { [ROUTES.main]: { backend: 'canary', ...row.canary } });
      const n = 1000;
      const hits = await tallyRoutes(fixture, {}, n);
      const canary = hits.canary ?? 0;
      assert.equal(canary + (hits.main ?? 0), n, JSON.stringify(hits));
      const mean = n * row.p;
      const bound = 5 * Math.sqrt(n * row.p * (1 - row.p));
      assert.ok(Math.abs(canary - mean) <= bound, `${canary} canary of ${n}: want ${mean} ± ${bound.toFixed(1)}`);
      assertCleanErrorLog(fixture.lua);
    });
  }
});
