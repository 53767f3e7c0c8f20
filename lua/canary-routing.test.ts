// What happens to a request once its policy chose the canary, inside real
// NGINX: its retries stay on the canary's endpoints (and a main request's on
// the main's), $resty_route gains the canary backend as its 8th word (what
// the metrics log's canary label reads), an unknown canary backend leaves
// the request on the main one, a canary without endpoints answers 503, EWMA
// feedback reaches the backend that answered, and policy changes apply with
// no reload.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freePort } from './test/nginx-harness.ts';
import { assertCleanErrorLog, startEchoBackends, type EchoBackend } from './test/lua-fixture.ts';
import {
  endpointOf, pushBackends, pushRoutes, ROUTES, startCanaryNginx, tallyRoutes, type Canary, type CanaryNginx,
} from './test/canary-fixture.ts';

const REFUSED = /connect\(\) failed \(111: Connection refused\) while connecting to upstream/;

void describe('canary: routing a chosen request', () => {
  let fixture: CanaryNginx;
  let slow: EchoBackend[];
  let dead: { address: string; port: number };
  before(async () => {
    fixture = await startCanaryNginx();
    slow = await startEchoBackends(['slow'], 40);
    dead = { address: '127.0.0.1', port: await freePort() };
  });
  after(async () => {
    await fixture?.stop();
    await Promise.all((slow ?? []).map((b) => b.close()));
  });

  const retries = [
    { name: 'a canary request: its retries stay on the canary', header: 'always', want: 'canary', main: () => [endpointOf(fixture.echo[0])], canary: () => [dead, endpointOf(fixture.echo[1])] },
    { name: 'a main request: its retries stay on the main backend', header: 'never', want: 'main', main: () => [dead, endpointOf(fixture.echo[0])], canary: () => [endpointOf(fixture.echo[1])] },
  ];
  for (const row of retries) {
    void it(row.name, async () => {
      await pushBackends(fixture, { flaky: row.main(), 'flaky-canary': row.canary() });
      await pushRoutes(fixture, { [ROUTES.retry]: { backend: 'flaky-canary', header: 'x-canary', weight: 50 } });
      const logged = fixture.routeLog().length;
      assert.deepEqual(await tallyRoutes(fixture, { path: '/retry', headers: { 'x-canary': row.header } }, 24), { [row.want]: 24 });
      const lines = fixture.routeLog().slice(logged);
      const route = row.want === 'canary' ? `${ROUTES.retry} flaky-canary` : ROUTES.retry;
      assert.ok(lines.length === 24 && lines.every((line) => line.startsWith(`${route}|`)), lines.join('\n'));
      // Round robin over [dead, alive] per worker: some first tries hit the dead peer and were retried.
      assert.ok(lines.some((line) => line.includes(`${dead.address}:${dead.port}, `)), `some requests were retried: ${lines.join('\n')}`);
      assertCleanErrorLog(fixture.lua, [REFUSED]);
    });
  }

  void it('the route in the log has the canary backend as its 8th word only when the canary was chosen', async () => {
    await pushBackends(fixture, { main: [endpointOf(fixture.echo[0])], canary: [endpointOf(fixture.echo[1])] });
    await pushRoutes(fixture, { [ROUTES.main]: { backend: 'canary', header: 'x-canary', weight: 0 } });
    const logged = fixture.routeLog().length;
    assert.deepEqual(await tallyRoutes(fixture, { headers: { 'x-canary': 'always' } }, 4), { canary: 4 });
    assert.deepEqual(await tallyRoutes(fixture, { headers: { 'x-canary': 'never' } }, 4), { main: 4 });
    assert.deepEqual(await tallyRoutes(fixture, { path: '/other', headers: { 'x-canary': 'always' } }, 4), { main: 4 });
    const routes = fixture.routeLog().slice(logged).map((line) => line.split('|')[0]);
    assert.deepEqual(routes, [
      ...Array<string>(4).fill(`${ROUTES.main} canary`),
      ...Array<string>(4).fill(ROUTES.main),
      ...Array<string>(4).fill(ROUTES.other),
    ]);
    assert.deepEqual(routes.map((route) => route.split(' ').length), [...Array<number>(4).fill(8), ...Array<number>(8).fill(7)]);
    assertCleanErrorLog(fixture.lua);
  });

  const unusual = [
    { name: 'a canary backend Lua does not know: the main backend, no 8th word', backends: { main: 1 }, want: { main: 8 }, route: ROUTES.main },
    { name: 'a canary backend without endpoints: 503, as ingress-nginx', backends: { main: 1, canary: 0 }, want: { 'status 503': 8 }, route: `${ROUTES.main} canary` },
  ];
  for (const row of unusual) {
    void it(row.name, async () => {
      const endpoints = Object.fromEntries(Object.entries(row.backends).map(([name, count]) => [name, count === 0 ? [] : [endpointOf(fixture.echo[0])]]));
      await pushBackends(fixture, endpoints);
      await pushRoutes(fixture, { [ROUTES.main]: { backend: 'canary', weight: 100 } });
      const logged = fixture.routeLog().length;
      assert.deepEqual(await tallyRoutes(fixture, {}, 8), row.want);
      assert.deepEqual(new Set(fixture.routeLog().slice(logged).map((line) => line.split('|')[0])), new Set([row.route]));
      assertCleanErrorLog(fixture.lua);
    });
  }

  void it('EWMA learns on the backend that answered: the canary\'s', async () => {
    // The location's log_by_lua names the main backend; its canary's picker must get the response times.
    await pushBackends(fixture, { 'ewma-main': [endpointOf(fixture.echo[0])], 'ewma-canary': [endpointOf(slow[0]), endpointOf(fixture.echo[1])] });
    await pushRoutes(fixture, { [ROUTES.ewma]: { backend: 'ewma-canary', weight: 100 } });
    const hits = await tallyRoutes(fixture, { path: '/ewma' }, 80);
    assert.ok((hits.canary ?? 0) >= 60, `the fast canary endpoint got too little: ${JSON.stringify(hits)}`);
    assert.equal(hits.main, undefined, JSON.stringify(hits));
    assertCleanErrorLog(fixture.lua);
  });

  void it('policy changes apply at once, with no reload (same master and workers)', async () => {
    await pushBackends(fixture, { main: [endpointOf(fixture.echo[0])], canary: [endpointOf(fixture.echo[1])], 'canary-2': [endpointOf(fixture.echo[2])] });
    const pids = [fixture.lua.nginx.masterPid, ...fixture.lua.nginx.workerPids()];
    const steps: { name: string; routes: Record<string, Canary>; want: Record<string, number> }[] = [
      { name: 'weight 0', routes: { [ROUTES.main]: { backend: 'canary', weight: 0 } }, want: { main: 16 } },
      { name: 'weight 100', routes: { [ROUTES.main]: { backend: 'canary', weight: 100 } }, want: { canary: 16 } },
      { name: 'another canary backend', routes: { [ROUTES.main]: { backend: 'canary-2', weight: 100 } }, want: { 'canary-2': 16 } },
      { name: 'the policy removed', routes: {}, want: { main: 16 } },
      { name: 'added again', routes: { [ROUTES.main]: { backend: 'canary', weight: 100 } }, want: { canary: 16 } },
    ];
    for (const step of steps) {
      await pushRoutes(fixture, step.routes);
      assert.deepEqual(await tallyRoutes(fixture, {}, 16), step.want, step.name);
    }
    assert.deepEqual([fixture.lua.nginx.masterPid, ...fixture.lua.nginx.workerPids()], pids, 'master and workers unchanged');
    assertCleanErrorLog(fixture.lua);
  });
});
