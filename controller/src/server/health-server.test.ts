// The healthz server on a real port: liveness and readiness decisions, the
// metrics scrape, shutdown, and bad requests.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { Registry, Gauge } from 'prom-client';
import { createHealthChecks, type HealthSources } from './health-checks.ts';
import { startHealthServer } from './health-server.ts';

interface State { pid: number | null; lua: number | null; firstLive: boolean }

async function withServer(state: State, fn: (base: string, control: { shutdown(): void; syncStarted(): void; scrapes(): number; clock: { t: number } }) => Promise<void>, healthPath?: string): Promise<void> {
  const clock = { t: 0 };
  const sources: HealthSources = {
    nginxPid: () => state.pid, luaVersion: () => Promise.resolve(state.lua), firstConfigLive: () => state.firstLive,
    now: () => clock.t, stuckAfterMs: 1000,
  };
  const checks = createHealthChecks(sources);
  const registry = new Registry();
  new Gauge({ name: 'probe_gauge', help: 'x', registers: [registry] }).set(7);
  let scrapes = 0;
  const server = await startHealthServer({ host: '127.0.0.1', port: 0, ...(healthPath === undefined ? {} : { healthPath }), registry, checks, logger: pino({ level: 'silent' }), beforeScrape: async () => { scrapes++; } });
  try {
    await fn(`http://127.0.0.1:${server.port}`, { shutdown: () => checks.beginShutdown(), syncStarted: () => checks.syncStarted(), scrapes: () => scrapes, clock });
  } finally {
    await server.close();
  }
}

const get = async (url: string, method = 'GET'): Promise<{ status: number; text: string }> => {
  const res = await fetch(url, { method });
  return { status: res.status, text: await res.text() };
};

void describe('health server', () => {
  const rows = [
    { name: 'all good', state: { pid: process.pid, lua: 3, firstLive: true }, live: 200, ready: 200 },
    { name: 'no NGINX master', state: { pid: null, lua: 3, firstLive: true }, live: 500, ready: 500 },
    { name: 'NGINX master gone', state: { pid: 2 ** 22 + 12345, lua: 3, firstLive: true }, live: 500, ready: 500 },
    { name: 'status server silent', state: { pid: process.pid, lua: null, firstLive: true }, live: 500, ready: 500 },
    { name: 'Lua has nothing yet', state: { pid: process.pid, lua: 0, firstLive: false }, live: 500, ready: 500 },
    { name: 'alive, first config not live', state: { pid: process.pid, lua: 1, firstLive: false }, live: 200, ready: 500 },
  ];
  for (const row of rows) {
    void it(`${row.name}: /healthz ${row.live}, /readyz ${row.ready}`, async () => {
      await withServer(row.state, async (base) => {
        assert.equal((await get(`${base}/healthz`)).status, row.live);
        assert.equal((await get(`${base}/readyz`)).status, row.ready);
      });
    });
  }

  // Which paths answer liveness: 200 while NGINX runs, 500 once its master is gone; any other path is 404 either way.
  const pathRows: { name: string; healthPath: string | undefined; liveness: readonly string[]; notFound: readonly string[] }[] = [
    { name: 'no --health-check-path: only /healthz', healthPath: undefined, liveness: ['/healthz'], notFound: ['/live'] },
    { name: '--health-check-path /live: /live and /healthz', healthPath: '/live', liveness: ['/healthz', '/live'], notFound: ['/live/', '/other'] },
  ];
  for (const row of pathRows) {
    void it(row.name, async () => {
      for (const [pid, live] of [[process.pid, 200], [null, 500]] as const) {
        await withServer({ pid, lua: 3, firstLive: true }, async (base) => {
          for (const path of row.liveness) assert.equal((await get(`${base}${path}`)).status, live, `${path} with NGINX ${pid === null ? 'gone' : 'up'}`);
          for (const path of row.notFound) assert.equal((await get(`${base}${path}`)).status, 404, path);
        }, row.healthPath);
      }
    });
  }

  void it('shutdown fails both probes; a stuck sync fails liveness', async () => {
    await withServer({ pid: process.pid, lua: 1, firstLive: true }, async (base, control) => {
      control.syncStarted();
      control.clock.t = 2000;
      assert.match((await get(`${base}/healthz`)).text, /sync loop stuck/);
      control.shutdown();
      assert.deepEqual(await get(`${base}/readyz`), { status: 500, text: 'shutting down\n' });
    });
  });

  void it('/metrics serves the registry; other paths and methods are refused', async () => {
    await withServer({ pid: process.pid, lua: 1, firstLive: true }, async (base, control) => {
      const metrics = await get(`${base}/metrics`);
      assert.equal(metrics.status, 200);
      assert.equal(control.scrapes(), 1, 'NGINX is drained before each scrape');
      assert.match(metrics.text, /^probe_gauge 7$/m);
      assert.equal((await get(`${base}/nope`)).status, 404);
      assert.equal((await get(`${base}/healthz`, 'POST')).status, 405);
    });
  });
});
