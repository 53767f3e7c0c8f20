import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { pino } from 'pino';
import { DEFAULT_SETTINGS as settings } from '../model/features/parse.ts';
import type { Model } from '../model/types.ts';
import { createReloadScheduler, RetryLater, type ReloadScheduler } from './reload-scheduler.ts';

/** A model whose static part is its one path (`name`): two names, two configurations. */
function model(name: string): Model {
  return {
    servers: [{ hostname: 'app.test', locations: [{ path: `/${name}`, match: 'prefix', route: { kind: 'not-found' }, ingress: null, policy: {} }] }],
    backends: [],
    tls: { certificates: [], hosts: [], defaultCertificate: null },
    settings,
    routes: [],
  };
}
const nameOf = (m: Model | null): string => m?.servers[0]?.locations[0]?.path.slice(1) ?? '(none)';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Harness {
  readonly scheduler: ReloadScheduler;
  /** What happened, in order: `ahead V`, `reload V`, `live V`, `reloaded V`, `failed V`, `kick`. */
  readonly log: string[];
  renders(): number;
  /** Reloads wait for this while set. */
  hold: Promise<void> | null;
  /** Failures the next reloads throw, in order. */
  failures: Error[];
}

function harness(options: { settleMs?: number; holdMs?: number; firstHoldMs?: number; ahead?: boolean; now?: () => number } = {}): Harness {
  let renders = 0;
  const h: Harness = {
    log: [],
    hold: null,
    failures: [],
    renders: () => renders,
    scheduler: null as unknown as ReloadScheduler,
  };
  (h as { scheduler: ReloadScheduler }).scheduler = createReloadScheduler({
    settleMs: options.settleMs ?? 0,
    holdMs: options.holdMs ?? 60_000,
    ...(options.firstHoldMs === undefined ? {} : { firstHoldMs: options.firstHoldMs }),
    ...(options.now === undefined ? {} : { now: options.now }),
    retryLaterMs: 50,
    render: (m) => { renders += 1; return { conf: `conf ${nameOf(m)}`, version: nameOf(m) }; },
    async reload(_conf, version) {
      h.log.push(`reload ${version}`);
      if (h.hold) await h.hold;
      const failure = h.failures.shift();
      if (failure) throw failure;
      h.log.push(`live ${version}`);
    },
    ...(options.ahead === true ? { validateAhead: async (_conf: string, version: string) => { h.log.push(`ahead ${version}`); } } : {}),
    kick: () => h.log.push('kick'),
    onReloaded: (m) => h.log.push(`reloaded ${nameOf(m)}`),
    onReloadFailed: (_err, m) => h.log.push(`failed ${nameOf(m)}`),
    logger: pino({ level: 'silent' }),
  });
  h.scheduler.started(model('start'));
  return h;
}

/** A promise and the function that resolves it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => { open = resolve; });
  return { promise, open };
}

void describe('reload scheduler', () => {
  void it('without a settle window a reload starts at once, and kicks a sync when it ends', async () => {
    const { scheduler, log } = harness();
    assert.equal(scheduler.plan(model('a')), 'started');
    assert.equal(nameOf(scheduler.target()), 'a', 'the differ compares with what NGINX reloads to');
    assert.equal(nameOf(scheduler.running()), 'start', 'not confirmed yet');
    assert.equal(scheduler.busy(), true);
    await scheduler.settled();
    assert.deepEqual(log, ['reload a', 'live a', 'reloaded a', 'kick']);
    assert.equal(nameOf(scheduler.running()), 'a');
    assert.equal(scheduler.busy(), false);
  });

  void it('a settle window: validated ahead once, one kick when it closes, then the reload reuses that render', async () => {
    const h = harness({ settleMs: 60, ahead: true });
    assert.equal(h.scheduler.plan(model('a')), 'settling');
    assert.equal(h.scheduler.plan(model('a')), 'settling');
    await h.scheduler.settled();
    assert.deepEqual(h.log, ['ahead a', 'kick']);
    assert.equal(h.scheduler.plan(model('a')), 'started');
    await h.scheduler.settled();
    assert.deepEqual(h.log, ['ahead a', 'kick', 'reload a', 'live a', 'reloaded a', 'kick']);
    assert.equal(h.renders(), 1, 'rendered once: for the validation ahead');
  });

  void it('a newer change in the window takes the pending one\'s place; the window is not extended', async () => {
    const h = harness({ settleMs: 80 });
    const opened = Date.now();
    h.scheduler.plan(model('a'));
    await sleep(40);
    assert.equal(h.scheduler.plan(model('b')), 'settling');
    await h.scheduler.settled();
    const closedAfter = Date.now() - opened;
    assert.ok(closedAfter < 80 + 40, `closed ${closedAfter} ms after the first change, not a full window after the second`);
    assert.equal(h.scheduler.plan(model('b')), 'started');
    await h.scheduler.settled();
    assert.deepEqual(h.log.filter((l) => l.startsWith('reload ')), ['reload b'], 'a was never reloaded');
  });

  void it('a change that needs no reload any more forgets the window: the next static change waits a full one', async () => {
    const h = harness({ settleMs: 40 });
    h.scheduler.plan(model('a'));
    await h.scheduler.settled();
    h.scheduler.unchanged(model('start'));
    assert.equal(h.scheduler.plan(model('b')), 'settling');
  });

  void it('one reload at a time: a change meanwhile is queued, and goes when the kick at the end of the first says so', async () => {
    const h = harness({ settleMs: 0 });
    const reloadGate = gate();
    h.hold = reloadGate.promise;
    assert.equal(h.scheduler.plan(model('a')), 'started');
    assert.equal(h.scheduler.plan(model('b')), 'queued');
    reloadGate.open();
    await h.scheduler.settled();
    assert.equal(h.log.at(-1), 'kick');
    assert.equal(h.scheduler.plan(model('b')), 'started');
    await h.scheduler.settled();
    assert.deepEqual(h.log.filter((l) => /^(reload|live) /.test(l)), ['reload a', 'live a', 'reload b', 'live b']);
  });

  void it('no validation ahead while a reload runs', async () => {
    const h = harness({ settleMs: 30, ahead: true });
    h.scheduler.plan(model('a'));
    await h.scheduler.settled();
    const reloadGate = gate();
    h.hold = reloadGate.promise;
    assert.equal(h.scheduler.plan(model('a')), 'started');
    assert.equal(h.scheduler.plan(model('b')), 'settling');
    reloadGate.open();
    await h.scheduler.settled();
    assert.deepEqual(h.log.filter((l) => l.startsWith('ahead')), ['ahead a']);
  });

  void it('a failed reload: back to what runs, the same configuration is held as bad, another one goes', async () => {
    const h = harness();
    h.failures.push(new Error('nginx: [emerg] bad'));
    assert.equal(h.scheduler.plan(model('bad')), 'started');
    await h.scheduler.settled();
    assert.deepEqual(h.log, ['reload bad', 'failed bad', 'kick']);
    assert.equal(nameOf(h.scheduler.target()), 'start');
    assert.equal(h.scheduler.plan(model('bad')), 'known-bad');
    assert.equal(h.scheduler.plan(model('good')), 'started');
    await h.scheduler.settled();
    assert.equal(nameOf(h.scheduler.running()), 'good');
  });

  void it('a held configuration is tried again after its hold', async () => {
    const h = harness({ holdMs: 40 });
    h.failures.push(new Error('nginx: [emerg] bad'));
    h.scheduler.plan(model('bad'));
    await h.scheduler.settled();
    const kicks = h.log.filter((l) => l === 'kick').length;
    await sleep(60);
    assert.equal(h.log.filter((l) => l === 'kick').length, kicks + 1, 'a kick when the hold ends');
    assert.equal(h.scheduler.plan(model('bad')), 'started');
    await h.scheduler.settled();
  });

  void it('a configuration that keeps failing waits 1 s, then twice as long each time, at most the hold', async () => {
    let clock = 0;
    const h = harness({ holdMs: 5_000, now: () => clock });
    const waits: number[] = [];
    h.failures.push(new Error('nginx: [emerg] bad'));
    assert.equal(h.scheduler.plan(model('bad')), 'started');
    await h.scheduler.settled();
    for (let round = 0; round < 5; round++) {
      const from = clock;
      h.failures.push(new Error('nginx: [emerg] bad'));
      while (h.scheduler.plan(model('bad')) === 'known-bad') clock += 250;
      waits.push(clock - from);
      await h.scheduler.settled();
    }
    assert.deepEqual(waits, [1000, 2000, 4000, 5000, 5000]);
    assert.equal(h.log.filter((l) => l === 'failed bad').length, 6);
    // Fixed: the next try goes live, and a later failure starts again from 1 s.
    clock += 5_000;
    assert.equal(h.scheduler.plan(model('bad')), 'started');
    await h.scheduler.settled();
    assert.equal(nameOf(h.scheduler.running()), 'bad');
    h.failures.push(new Error('nginx: [emerg] bad'));
    h.scheduler.plan(model('worse'));
    await h.scheduler.settled();
    const from = clock;
    while (h.scheduler.plan(model('worse')) === 'known-bad') clock += 250;
    assert.equal(clock - from, 1000);
    await h.scheduler.settled();
  });

  void it('RetryLater (NGINX restarting): queued for a moment, not held as bad, kicked again', async () => {
    const h = harness();
    h.failures.push(new RetryLater('NGINX is restarting'));
    h.scheduler.plan(model('a'));
    await h.scheduler.settled();
    assert.deepEqual(h.log, ['reload a', 'kick']);
    assert.equal(h.scheduler.plan(model('a')), 'queued');
    await sleep(70);
    assert.equal(h.log.at(-1), 'kick', 'kicked when the wait is over');
    assert.equal(h.scheduler.plan(model('a')), 'started');
    await h.scheduler.settled();
    assert.equal(nameOf(h.scheduler.running()), 'a');
  });

  void it('stop(): the window closes without a kick and nothing new starts', async () => {
    const h = harness({ settleMs: 10_000 });
    h.scheduler.plan(model('a'));
    const stopping = Date.now();
    await h.scheduler.stop();
    assert.ok(Date.now() - stopping < 1000);
    assert.equal(h.scheduler.busy(), false);
    assert.equal(h.scheduler.plan(model('b')), 'queued');
    await sleep(20);
    assert.deepEqual(h.log, []);
  });

  void it('stop() resolves once the reload in flight ended', async () => {
    const h = harness();
    const reloadGate = gate();
    h.hold = reloadGate.promise;
    h.scheduler.plan(model('a'));
    let stopped = false;
    const stopping = h.scheduler.stop().then(() => { stopped = true; });
    await sleep(20);
    assert.equal(stopped, false);
    reloadGate.open();
    await stopping;
    assert.deepEqual(h.log.slice(0, 3), ['reload a', 'live a', 'reloaded a']);
  });
});
