import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';

import { pino } from 'pino';

import type { Snapshot } from '../model/types.ts';
import { LAST_APPLIED_ANNOTATION, type KindName } from './kinds.ts';
import { createStore } from './store.ts';
import type { Store, StoreOptions } from './store.ts';
import { FakeApiServer } from './testing/fake-api-server.ts';
import type { ExpiredWatchReply, FakeObject } from './testing/fake-api-server.ts';

const FAST_BACKOFF = { initialMs: 20, maxMs: 200, jitter: 0 };
const UNAVAILABLE = 'Kubernetes API unavailable; retrying (one line when it is back)';
const AVAILABLE_AGAIN = 'Kubernetes API available again';

/** A pino line as the tests read it. */
interface LogLine {
  msg: string;
  reason?: string;
  outageMs?: number;
  failedRequests?: number;
  err?: { code?: number; stack?: string };
}

function object(namespace: string | undefined, name: string, extra: Record<string, unknown> = {}): FakeObject {
  return { metadata: { name, namespace, creationTimestamp: '2024-05-01T10:00:00Z' }, ...extra };
}

/** Polls until check() returns true; fails the test with `what` after timeoutMs. */
async function waitFor(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function names(snapshot: Snapshot, key: keyof Snapshot): string[] {
  return snapshot[key].map((obj) => `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`);
}

void describe('createStore against a fake API server', () => {
  let server: FakeApiServer;
  let store: Store | undefined;
  let changes: KindName[];

  // A fresh server per test: no request or object leaks from one test into the next.
  beforeEach(async () => {
    server = await FakeApiServer.start();
  });
  afterEach(async () => {
    await store?.stop();
    store = undefined;
    await server.close();
  });

  /**
   * Seeds one object of every kind in namespaces a and b, plus the
   * controller's ConfigMap a/resty, then starts a store that reads a/resty.
   */
  async function startSeeded(options: Partial<StoreOptions> = {}): Promise<Store> {
    for (const ns of ['a', 'b']) {
      for (const plural of ['ingresses', 'services', 'endpointslices', 'secrets', 'configmaps']) {
        server.upsert(plural, object(ns, `${plural}-seed`));
      }
    }
    server.upsert('configmaps', object('a', 'resty', { data: { 'http-redirect-code': '301' } }));
    server.upsert('ingressclasses', object(undefined, 'resty'));
    changes = [];
    store = createStore(server.kubeConfig(), {
      logger: pino({ level: 'silent' }),
      onChange: (kind) => changes.push(kind),
      backoff: FAST_BACKOFF,
      configMaps: [{ namespace: 'a', name: 'resty' }],
      ...options,
    });
    await store.waitForInitialSync();
    return store;
  }

  void it('initial sync lists every kind into a frozen, sorted snapshot', async () => {
    const snapshot = (await startSeeded()).snapshot();
    assert.deepEqual(names(snapshot, 'ingresses'), ['a/ingresses-seed', 'b/ingresses-seed']);
    assert.deepEqual(names(snapshot, 'services'), ['a/services-seed', 'b/services-seed']);
    assert.deepEqual(names(snapshot, 'endpointSlices'), ['a/endpointslices-seed', 'b/endpointslices-seed']);
    assert.deepEqual(names(snapshot, 'secrets'), ['a/secrets-seed', 'b/secrets-seed']);
    assert.deepEqual(names(snapshot, 'configMaps'), ['a/resty'], 'only the named ConfigMap');
    assert.deepEqual(names(snapshot, 'ingressClasses'), ['/resty']);
    assert.ok(Object.isFrozen(snapshot) && Object.isFrozen(snapshot.ingresses));
    assert.ok(Object.isFrozen(snapshot.ingresses[0]?.metadata), 'informer objects are frozen');
    assert.ok(snapshot.ingresses[0]?.metadata?.creationTimestamp instanceof Date, 'list items are typed');
  });

  void it('lists in pages: every object of every page, then watches from the list', async () => {
    for (let i = 0; i < 5; i++) server.upsert('services', object('a', `extra-${i}`));
    const live = await startSeeded({ listPageSize: 2 });
    assert.deepEqual(names(live.snapshot(), 'services'), ['a/extra-0', 'a/extra-1', 'a/extra-2', 'a/extra-3', 'a/extra-4', 'a/services-seed', 'b/services-seed']);
    const lists = server.requests.filter((r) => r.path === '/api/v1/services' && !r.watch);
    assert.deepEqual(lists.map((r) => [r.query.get('limit'), r.query.has('continue')]), [['2', false], ['2', true], ['2', true], ['2', true]]);
    // The merged list keeps a resourceVersion, so the watch resumes from it instead of listing again.
    await waitFor('the services watch', () => server.requests.some((r) => r.path === '/api/v1/services' && r.watch));
    const watchFrom = server.requests.find((r) => r.path === '/api/v1/services' && r.watch)?.query.get('resourceVersion');
    assert.ok(Number(watchFrom) > 0, `watch from ${watchFrom}`);
  });

  void it('drops managedFields and the last-applied annotation from listed and watched objects', async () => {
    const bloated = (name: string, spec: Record<string, unknown>): FakeObject => object('a', name, {
      metadata: {
        name, namespace: 'a', creationTimestamp: '2024-05-01T10:00:00Z',
        annotations: { [LAST_APPLIED_ANNOTATION]: '{"a":"copy"}', 'nginx.ingress.kubernetes.io/rewrite-target': '/' },
        managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:spec': {} } }],
      },
      spec,
    });
    server.upsert('ingresses', bloated('listed', { ingressClassName: 'resty' }));
    const live = await startSeeded();
    server.upsert('ingresses', bloated('watched', { ingressClassName: 'resty' }));
    await waitFor('watched ingress', () => names(live.snapshot(), 'ingresses').includes('a/watched'));
    for (const name of ['listed', 'watched']) {
      const cached = live.snapshot().ingresses.find((ing) => ing.metadata?.name === name);
      assert.equal(cached?.metadata?.managedFields, undefined, `${name}: managedFields`);
      assert.deepEqual(cached?.metadata?.annotations, { 'nginx.ingress.kubernetes.io/rewrite-target': '/' }, `${name}: annotations`);
      assert.ok(Object.isFrozen(cached?.metadata?.annotations), `${name}: still frozen`);
    }
  });

  void it('add, update and delete reach the snapshot and call onChange with the kind', async () => {
    const live = await startSeeded();
    changes.length = 0;
    server.upsert('ingresses', object('a', 'web', { spec: { ingressClassName: 'resty' } }));
    await waitFor('added ingress', () => names(live.snapshot(), 'ingresses').includes('a/web'));
    const added = live.snapshot().ingresses.find((ing) => ing.metadata?.name === 'web');
    assert.ok(added?.metadata?.creationTimestamp instanceof Date, 'watch objects are typed like list items');
    assert.ok(Object.isFrozen(added?.spec), 'watch objects are frozen');

    server.upsert('ingresses', object('a', 'web', { spec: { ingressClassName: 'other' } }));
    await waitFor('updated ingress', () =>
      live.snapshot().ingresses.some((ing) => ing.spec?.ingressClassName === 'other'));
    server.remove('services', 'b', 'services-seed');
    await waitFor('deleted service', () => !names(live.snapshot(), 'services').includes('b/services-seed'));
    assert.deepEqual(changes, ['Ingress', 'Ingress', 'Service']);
  });

  void it('reuses unchanged arrays and rebuilds only the kind that changed', async () => {
    const live = await startSeeded();
    const first = live.snapshot();
    assert.equal(live.snapshot(), first, 'no change: the same snapshot object');
    server.upsert('endpointslices', object('a', 'web'));
    await waitFor('endpoint slice', () => live.snapshot().endpointSlices.length === 3);
    const second = live.snapshot();
    assert.notEqual(second.endpointSlices, first.endpointSlices);
    assert.equal(second.ingresses, first.ingresses);
    assert.equal(second.services, first.services);
    assert.equal(first.endpointSlices.length, 2, 'an old snapshot never changes');
  });

  const dropRows: { name: string; how: 'end' | 'destroy' }[] = [
    { name: 'closed cleanly by the server', how: 'end' },
    { name: 'reset (connection destroyed)', how: 'destroy' },
  ];
  for (const row of dropRows) {
    void it(`resumes after a watch is ${row.name} and later changes still arrive`, async () => {
      const live = await startSeeded();
      await waitFor('six watches', () => server.openWatchCount() === 6);
      server.dropWatches(row.how);
      server.upsert('configmaps', object('a', 'resty', { data: { 'http-redirect-code': '307' } }));
      server.upsert('services', object('b', 'late'));
      await waitFor('changes after the drop', () => names(live.snapshot(), 'services').includes('b/late')
        && live.snapshot().configMaps[0]?.data?.['http-redirect-code'] === '307');
      await waitFor('six watches again', () => server.openWatchCount() === 6);
    });
  }

  const expiredRows: { name: string; reply: ExpiredWatchReply }[] = [
    { name: 'HTTP 410 Gone', reply: 'status-410' },
    { name: 'an ERROR event with code 410', reply: 'error-event' },
    { name: 'an ERROR event 410 on a stream the server keeps open', reply: 'error-event-keep-open' },
  ];
  for (const row of expiredRows) {
    void it(`relists after ${row.name}, catching changes the watch never delivered`, async () => {
      const live = await startSeeded();
      await waitFor('six watches', () => server.openWatchCount() === 6);
      server.expiredWatchReply = row.reply;
      // Changes lost with the compacted history: only a relist can see them.
      server.remove('secrets', 'a', 'secrets-seed', true);
      server.upsert('secrets', object('a', 'late'), true);
      server.expireHistory();
      await waitFor('relisted secrets', () =>
        names(live.snapshot(), 'secrets').join() === 'a/late,b/secrets-seed');
      await waitFor('no stream left open after ERROR', () => server.heldOpenCount() === 0);
      server.upsert('secrets', object('b', 'gone'));
      await waitFor('watch works after relist', () => names(live.snapshot(), 'secrets').includes('b/gone'));
    });
  }

  const errorRows: { name: string; code: number; logged: (entries: LogLine[]) => boolean }[] = [
    {
      name: '500 (an outage): one "unavailable" line, no stack',
      code: 500,
      logged: (entries) => entries.some((e) => e.msg === UNAVAILABLE && e.reason === 'HTTP 500') && entries.every((e) => e.err === undefined),
    },
    {
      name: '403 (not an outage): logged in full',
      code: 403,
      logged: (entries) => entries.some((e) => e.msg.includes('restarting after backoff') && e.err?.code === 403 && typeof e.err.stack === 'string'),
    },
  ];
  for (const row of errorRows) {
    void it(`restarts after a watch ERROR event ${row.name}, without relisting`, async () => {
      const logLines: LogLine[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => logLines.push(JSON.parse(line) as LogLine) });
      const live = await startSeeded({ logger });
      await waitFor('six watches', () => server.openWatchCount() === 6);
      const listsBefore = server.requests.filter((req) => !req.watch).length;
      server.failNextWatch(row.code);
      server.dropWatches('end');
      await waitFor('six watches again', () => server.openWatchCount() === 6);
      server.upsert('ingresses', object('b', 'late'));
      await waitFor('change after the error', () => names(live.snapshot(), 'ingresses').includes('b/late'));
      assert.equal(server.requests.filter((req) => !req.watch).length, listsBefore, 'resumed from its resourceVersion');
      assert.ok(row.logged(logLines), JSON.stringify(logLines));
    });
  }

  void it('an API outage: one warning when it starts, one line with its length when it ends, no stack; changes made meanwhile arrive', async () => {
    const logLines: LogLine[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line) as LogLine) });
    const live = await startSeeded({ logger });
    await waitFor('six watches', () => server.openWatchCount() === 6);
    const from = logLines.length;
    const requestsBefore = server.requests.length;
    await server.goDown();
    const downAt = Date.now();
    // FAST_BACKOFF retries every informer several times meanwhile (20 ms doubling to 200 ms).
    await new Promise((resolve) => setTimeout(resolve, 800));
    server.upsert('ingresses', object('b', 'during-outage'));
    server.remove('services', 'a', 'services-seed');
    await server.goUp();
    await waitFor('the changes made during the outage', () =>
      names(live.snapshot(), 'ingresses').includes('b/during-outage') && !names(live.snapshot(), 'services').includes('a/services-seed'));
    await waitFor('six watches again', () => server.openWatchCount() === 6);
    assert.equal(server.requests.slice(requestsBefore).filter((req) => !req.watch).length, 0, 'resumed from resourceVersions, no relist');
    const outage = logLines.slice(from);
    assert.deepEqual(outage.map((e) => e.msg), [UNAVAILABLE, AVAILABLE_AGAIN], JSON.stringify(outage));
    assert.equal(outage[0]?.reason, 'ECONNREFUSED');
    const outageMs = Number(outage[1]?.outageMs);
    assert.ok(outageMs >= 700 && outageMs <= Date.now() - downAt, `outageMs ${outageMs}`);
    assert.ok(Number(outage[1]?.failedRequests) > 6, 'every informer retried, quietly');
    assert.ok(outage.every((e) => e.err === undefined), 'no stack traces');
  });

  void it('backs off (growing delays) while lists fail with 500, then syncs', async () => {
    server.failNextLists(3, 'services');
    await startSeeded({ backoff: { initialMs: 40, maxMs: 1000, jitter: 0 } });
    const lists = server.requests.filter((req) => !req.watch);
    const serviceLists = lists.filter((req) => req.path === '/api/v1/services').map((req) => req.at);
    assert.equal(serviceLists.length, 4, 'three failures, then success');
    assert.equal(lists.length, 9, 'the other five kinds listed once');
    const gaps = serviceLists.slice(1).map((at, i) => at - (serviceLists[i] ?? at));
    // Delays 40, 80, 160 ms (no jitter); timers never fire early.
    assert.ok(gaps.every((gap, i) => gap >= 40 * 2 ** i), `gaps ${gaps.join(', ')} ms grow`);
  });

  void it('--watch-namespace lists and watches namespaced kinds in that namespace only; the named ConfigMap stays in its own', async () => {
    const live = await startSeeded({ namespace: 'b' });
    assert.deepEqual(names(live.snapshot(), 'ingresses'), ['b/ingresses-seed']);
    assert.deepEqual(names(live.snapshot(), 'configMaps'), ['a/resty'], 'the controller\'s ConfigMap outside the watched namespace');
    assert.deepEqual(names(live.snapshot(), 'ingressClasses'), ['/resty'], 'cluster-scoped kinds stay global');
    server.upsert('services', object('a', 'web'));
    server.upsert('services', object('b', 'web'));
    await waitFor('service in b', () => names(live.snapshot(), 'services').includes('b/web'));
    assert.ok(!names(live.snapshot(), 'services').includes('a/web'));
    const paths = new Set(server.requests.map((req) => req.path));
    assert.ok(paths.has('/apis/networking.k8s.io/v1/namespaces/b/ingresses'));
    assert.ok(paths.has('/apis/networking.k8s.io/v1/ingressclasses'));
    const global = [...paths].filter((path) => !path.includes('/namespaces/b/') && !path.endsWith('/ingressclasses'));
    assert.deepEqual(global, ['/api/v1/namespaces/a/configmaps'], 'no namespaced kind is listed or watched cluster-wide');
  });

  void it('reopens a watch that stays silent past its timeout (half-open connection)', async () => {
    await startSeeded({ watchTiming: { minTimeoutSeconds: 1, idleGraceMs: 100 } });
    const classWatches = (): number =>
      server.requests.filter((req) => req.watch && req.path.endsWith('/ingressclasses')).length;
    await waitFor('first watch', () => classWatches() === 1);
    const timeout = Number(server.requests.find((req) => req.watch)?.query.get('timeoutSeconds'));
    assert.ok(timeout >= 1 && timeout < 2, `timeoutSeconds ${timeout} sent to the server`);
    // The fake server ignores timeoutSeconds: only the client's idle timer can end this watch.
    await waitFor('a second watch request', () => classWatches() === 2, 3000);
  });

  void it('waitForInitialSync rejects when the store is stopped first', async () => {
    server.failNextLists(1000, 'ingresses');
    const early = createStore(server.kubeConfig(), {
      logger: pino({ level: 'silent' }), onChange: () => {}, backoff: FAST_BACKOFF,
    });
    const waiting = early.waitForInitialSync();
    await early.stop();
    await assert.rejects(waiting, /stopped before its initial sync/);
  });
});
