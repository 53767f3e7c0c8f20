// Leader election against the local API server (e2e/cluster/apiserver), in
// process: real Lease objects, real optimistic concurrency, real timers.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { startApiServer, type ApiServer } from '../../../e2e/cluster/apiserver/index.ts';
import { createApiAvailability } from '../kube/api-availability.ts';
import { createLeaseStore, type LeaseStore } from '../kube/cluster-writer.ts';
import { createLeaderElector, microTime, type LeaderElector } from './leader-election.ts';

const TTL_MS = 2000;

/** A lease store that can be cut off, as if its replica froze or lost the network. */
function breakable(store: LeaseStore, error: Error = new Error('network down')): LeaseStore & { broken: boolean } {
  const fail = async (): Promise<never> => { throw error; };
  const wrapped = {
    broken: false,
    get: () => (wrapped.broken ? fail() : store.get()),
    create: (record: Parameters<LeaseStore['create']>[0]) => (wrapped.broken ? fail() : store.create(record)),
    update: (record: Parameters<LeaseStore['update']>[0], rv: string) => (wrapped.broken ? fail() : store.update(record, rv)),
  };
  return wrapped;
}

async function waitFor(what: string, condition: () => boolean, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

void describe('leader election (local API server)', () => {
  let api: ApiServer;
  let kc: KubeConfig;
  before(async () => {
    api = await startApiServer();
    kc = new KubeConfig();
    kc.loadFromString(api.kubeconfigFor());
  });
  after(() => api.stop());

  const pair = (lease: string): { stores: ReturnType<typeof breakable>[]; electors: LeaderElector[]; changes: string[] } => {
    const changes: string[] = [];
    const stores = ['a', 'b'].map(() => breakable(createLeaseStore(kc, 'default', lease)));
    const electors = ['a', 'b'].map((identity, i) => createLeaderElector({
      leases: stores[i], identity, ttlMs: TTL_MS, logger: pino({ level: 'silent' }),
      onChange: (leading) => changes.push(`${identity}:${leading}`),
    }));
    return { stores, electors, changes };
  };
  const leaders = (electors: LeaderElector[]): number => electors.filter((e) => e.isLeader()).length;
  const holder = async (lease: string): Promise<string> => (await createLeaseStore(kc, 'default', lease).get())?.record.holderIdentity ?? '(none)';

  void it('of two candidates exactly one leads, and the Lease names it', async () => {
    const { electors } = pair('race');
    electors.forEach((e) => e.start());
    await waitFor('a leader', () => leaders(electors) === 1, 3000);
    await new Promise((resolve) => setTimeout(resolve, 800)); // several renew rounds: still one
    assert.equal(leaders(electors), 1);
    const leader = electors[0].isLeader() ? 'a' : 'b';
    assert.equal(await holder('race'), leader);
    await Promise.all(electors.map((e) => e.stop()));
  });

  void it('when the leader stops renewing, the other takes over within the ttl', async () => {
    const { stores, electors, changes } = pair('crash');
    await electors[0].tryAcquireOrRenew();
    electors.forEach((e) => e.start());
    await waitFor('a to lead', () => electors[0].isLeader(), 2000);
    stores[0].broken = true; // a freezes: no renewals, no release
    const tookMs = await waitFor('b to take over', () => electors[1].isLeader(), TTL_MS * 2);
    assert.ok(tookMs <= TTL_MS + 1000, `took over after ${tookMs} ms (ttl ${TTL_MS} ms)`);
    await waitFor('a to step down', () => !electors[0].isLeader(), TTL_MS);
    assert.equal(await holder('crash'), 'b');
    assert.deepEqual(changes.filter((c) => c.startsWith('a')), ['a:true', 'a:false']);
    stores[0].broken = false;
    await Promise.all(electors.map((e) => e.stop()));
  });

  void it('a leader that stops releases the Lease and the other takes over at once', async () => {
    const { electors } = pair('handover');
    await electors[0].tryAcquireOrRenew();
    electors.forEach((e) => e.start());
    await waitFor('a to lead', () => electors[0].isLeader(), 2000);
    await electors[0].stop();
    const tookMs = await waitFor('b to take over', () => electors[1].isLeader(), TTL_MS);
    assert.ok(tookMs < TTL_MS, `handover took ${tookMs} ms, less than the ttl`);
    await electors[1].stop();
  });

  void it('a stale resourceVersion loses the write (optimistic concurrency)', async () => {
    const store = createLeaseStore(kc, 'default', 'occ');
    const stamp = microTime(Date.now());
    const record = { holderIdentity: 'a', leaseDurationSeconds: 2, acquireTime: stamp, renewTime: stamp, leaseTransitions: 0 };
    const rv = await store.create(record);
    await store.update({ ...record, holderIdentity: 'b' }, rv);
    await assert.rejects(store.update({ ...record, holderIdentity: 'c' }, rv), { name: 'ApiConflictError' });
    await assert.rejects(store.create(record), { name: 'ApiConflictError' });
  });

  void it('a leader past its renew deadline is not the leader, before any round says so (a frozen replica waking up)', async () => {
    let clock = Date.now();
    const elector = createLeaderElector({
      leases: createLeaseStore(kc, 'default', 'frozen'), identity: 'a', ttlMs: TTL_MS, logger: pino({ level: 'silent' }), now: () => clock,
    });
    assert.equal(await elector.tryAcquireOrRenew(), true);
    const rows = [
      { name: 'just renewed', advanceMs: 0, leads: true },
      { name: 'within the renew deadline (2/3 ttl)', advanceMs: 1000, leads: true },
      { name: 'past it: frozen for longer than the deadline', advanceMs: 500, leads: false },
    ];
    for (const row of rows) {
      clock += row.advanceMs;
      assert.equal(elector.isLeader(), row.leads, row.name);
    }
  });

  void it('an API outage: no line of its own per failed round, the shared tracker logs one each way', async () => {
    const lines: { msg: string; component?: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as { msg: string }); } });
    const store = breakable(createLeaseStore(kc, 'default', 'outage'), Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }));
    const elector = createLeaderElector({
      leases: store, identity: 'a', ttlMs: TTL_MS, retryMs: 20, logger: logger.child({ component: 'leader-election' }),
      availability: createApiAvailability(logger.child({ component: 'kube-api' })),
    });
    store.broken = true;
    elector.start();
    await new Promise((resolve) => setTimeout(resolve, 300)); // ~15 failed rounds
    store.broken = false;
    await waitFor('the Lease held', () => elector.isLeader(), 2000);
    await elector.stop();
    assert.deepEqual(lines.filter((l) => l.component === 'kube-api').map((l) => l.msg), ['Kubernetes API unavailable; retrying (one line when it is back)', 'Kubernetes API available again']);
    assert.deepEqual(lines.filter((l) => l.component === 'leader-election').map((l) => l.msg), ['became the leader', 'stopped leading']);
  });

  void it('writes MicroTime with six fractional digits', () => {
    assert.equal(microTime(Date.UTC(2025, 0, 2, 3, 4, 5, 678)), '2025-01-02T03:04:05.678000Z');
  });
});
