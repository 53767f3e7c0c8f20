import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from './server.ts';
import { call, openWatch } from './testing.ts';

const NS = '/api/v1/namespaces/default';
const cm = (name: string, labels: Record<string, string> = {}): object => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { k: 'v' } });

void test('errors are Status objects with the right codes', async () => {
  const server = await startApiServer();
  try {
    server.store.create('configmaps', { metadata: { name: 'kept', namespace: 'default' }, data: { a: '1' } });
    const rows: { name: string; method: string; path: string; raw?: string; body?: unknown; contentType?: string; want: number; reason: string }[] = [
      { name: 'bad JSON', method: 'POST', path: `${NS}/configmaps`, raw: '{"metadata":', want: 400, reason: 'BadRequest' },
      { name: 'bad YAML', method: 'POST', path: `${NS}/configmaps`, raw: 'a: [', contentType: 'application/yaml', want: 400, reason: 'BadRequest' },
      { name: 'not found', method: 'GET', path: `${NS}/configmaps/nope`, want: 404, reason: 'NotFound' },
      { name: 'unknown resource', method: 'GET', path: `${NS}/widgets`, want: 404, reason: 'NotFound' },
      { name: 'invalid', method: 'POST', path: `${NS}/configmaps`, body: cm('Not_Valid'), want: 422, reason: 'Invalid' },
      { name: 'bad patch type', method: 'PATCH', path: `${NS}/configmaps/x`, body: {}, contentType: 'text/plain', want: 415, reason: 'UnsupportedMediaType' },
      { name: 'bad percent-encoding', method: 'GET', path: `${NS}/configmaps/%E0%A4%A`, want: 400, reason: 'BadRequest' },
      { name: 'body is not an object', method: 'POST', path: `${NS}/configmaps`, raw: '[1,2]', want: 400, reason: 'BadRequest' },
      { name: 'merge patch that is not an object', method: 'PATCH', path: `${NS}/configmaps/kept`, raw: '[1]', contentType: 'application/merge-patch+json', want: 400, reason: 'BadRequest' },
      { name: 'apply without fieldManager', method: 'PATCH', path: `${NS}/configmaps/kept`, raw: '{}', contentType: 'application/apply-patch+yaml', want: 400, reason: 'BadRequest' },
      { name: 'watch from a bad resourceVersion', method: 'GET', path: `${NS}/configmaps?watch=true&resourceVersion=abc`, want: 400, reason: 'BadRequest' },
      { name: 'bad selector', method: 'GET', path: `${NS}/configmaps?labelSelector=a%20b`, want: 400, reason: 'BadRequest' },
    ];
    for (const row of rows) {
      const res = await call(server, row.method, row.path, { raw: row.raw, body: row.body, contentType: row.contentType });
      assert.equal(res.status, row.want, row.name);
      assert.equal(res.body.kind, 'Status', row.name);
      assert.equal(res.body.reason, row.reason, row.name);
      assert.equal(res.body.code, row.want, row.name);
    }
    assert.deepEqual(server.store.get('configmaps', 'default', 'kept').data, { a: '1' }, 'no bad request touched the stored object');
    const dry = await call(server, 'POST', `${NS}/configmaps?dryRun=All`, { body: cm('dry') });
    assert.equal(dry.status, 201);
    assert.equal((await call(server, 'GET', `${NS}/configmaps/dry`)).status, 404, 'dryRun stores nothing');
  } finally { await server.stop(); }
});

void test('create, conflict, patch types and the status subresource over HTTP', async () => {
  const server = await startApiServer();
  try {
    const created = await call(server, 'POST', `${NS}/configmaps`, { body: cm('a') });
    assert.equal(created.status, 201);
    assert.equal((await call(server, 'POST', `${NS}/configmaps`, { body: cm('a') })).status, 409);
    const generated = await call(server, 'POST', `${NS}/configmaps`, { body: { metadata: { generateName: 'g-' } } });
    assert.match(String((generated.body.metadata as Record<string, unknown>).name), /^g-.{5}$/);
    const stale = { ...created.body };
    assert.equal((await call(server, 'PUT', `${NS}/configmaps/a`, { body: { ...created.body, data: { k: 'w' } } })).status, 200);
    const conflict = await call(server, 'PUT', `${NS}/configmaps/a`, { body: stale });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.reason, 'Conflict');
    const patches: { type: string; body: unknown; want: Record<string, string> }[] = [
      { type: 'application/merge-patch+json', body: { data: { m: '1' } }, want: { k: 'w', m: '1' } },
      { type: 'application/json-patch+json', body: [{ op: 'replace', path: '/data/k', value: 'j' }], want: { k: 'j', m: '1' } },
      { type: 'application/strategic-merge-patch+json', body: { data: { m: null } }, want: { k: 'j' } },
    ];
    for (const p of patches) {
      const res = await call(server, 'PATCH', `${NS}/configmaps/a`, { body: p.body, contentType: p.type });
      assert.equal(res.status, 200, p.type);
      assert.deepEqual(res.body.data, p.want, p.type);
    }
    const ssa = await call(server, 'PATCH', `${NS}/configmaps/b?fieldManager=t`, { raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {x: y}\n', contentType: 'application/apply-patch+yaml' });
    assert.equal(ssa.status, 201, 'server-side apply creates');
    const ing = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'i' }, spec: { rules: [{ host: 'a.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 's', port: { number: 80 } } } }] } }] } };
    const ingPath = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';
    assert.equal((await call(server, 'POST', ingPath, { body: ing })).status, 201);
    const status = { loadBalancer: { ingress: [{ ip: '127.0.0.1' }] } };
    const ignored = await call(server, 'PATCH', `${ingPath}/i`, { body: { status }, contentType: 'application/merge-patch+json' });
    assert.deepEqual(ignored.body.status, { loadBalancer: {} }, 'main resource ignores status');
    const set = await call(server, 'PATCH', `${ingPath}/i/status`, { body: { status, spec: { rules: [] } }, contentType: 'application/merge-patch+json' });
    assert.deepEqual(set.body.status, status);
    assert.equal(((set.body.spec as { rules: unknown[] }).rules).length, 1, 'status subresource ignores spec');
    assert.equal((await call(server, 'GET', `${NS}/configmaps/a/status`)).status, 404, 'configmaps have no status subresource');
  } finally { await server.stop(); }
});

void test('list with selectors, limit/continue, and Table output', async () => {
  const server = await startApiServer();
  try {
    for (const [name, tier] of [['a', 'web'], ['b', 'db'], ['c', 'web']]) await call(server, 'POST', `${NS}/configmaps`, { body: cm(name, { tier }) });
    const web = await call(server, 'GET', `${NS}/configmaps?labelSelector=${encodeURIComponent('tier in (web)')}`);
    assert.deepEqual(web.body.items?.map((i) => (i.metadata as { name: string }).name), ['a', 'c']);
    const byName = await call(server, 'GET', `/api/v1/configmaps?fieldSelector=metadata.name%3Db,metadata.namespace%3Ddefault`);
    assert.deepEqual(byName.body.items?.map((i) => (i.metadata as { name: string }).name), ['b']);
    const page1 = await call(server, 'GET', `${NS}/configmaps?limit=2`);
    const meta1 = page1.body.metadata as { continue: string; remainingItemCount: number };
    assert.equal(page1.body.items?.length, 2);
    assert.equal(meta1.remainingItemCount, 1);
    const page2 = await call(server, 'GET', `${NS}/configmaps?limit=2&continue=${meta1.continue}`);
    assert.deepEqual(page2.body.items?.map((i) => (i.metadata as { name: string }).name), ['c']);
    const table = await call(server, 'GET', `${NS}/configmaps`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    assert.equal(table.body.kind, 'Table');
    assert.deepEqual((table.body.rows as { cells: unknown[] }[]).map((r) => r.cells[0]), ['a', 'b', 'c']);
  } finally { await server.stop(); }
});

void test('watch over HTTP: initial state, resume from RV, bookmarks, 410, dropWatches', async () => {
  const server = await startApiServer({ bookmarkIntervalMs: 100 });
  try {
    const first = await call(server, 'POST', `${NS}/configmaps`, { body: cm('a') });
    const rv = (first.body.metadata as { resourceVersion: string }).resourceVersion;
    const fromZero = await openWatch(server, `${NS}/configmaps?watch=true&resourceVersion=0`);
    assert.deepEqual((await fromZero.next(1)).map((e) => e.type), ['ADDED']);
    await call(server, 'POST', `${NS}/configmaps`, { body: cm('b') });
    await call(server, 'DELETE', `${NS}/configmaps/a`);
    assert.deepEqual((await fromZero.next(2)).map((e) => e.type), ['ADDED', 'DELETED']);
    fromZero.close();
    const resumed = await openWatch(server, `${NS}/configmaps?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true`);
    const events = await resumed.next(3);
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'DELETED', 'BOOKMARK'], 'events after rv, then a bookmark');
    assert.equal((events[2].object.metadata as { resourceVersion: string }).resourceVersion, String(Number(rv) + 2));
    server.dropWatches();
    await resumed.ended;
    await call(server, 'POST', `${NS}/configmaps`, { body: cm('c') });
    server.expireResourceVersions();
    const expired = await openWatch(server, `${NS}/configmaps?watch=true&resourceVersion=${rv}`);
    const [error] = await expired.next(1);
    assert.equal(error.type, 'ERROR');
    assert.equal(error.object.code, 410);
    await expired.ended;
    const timed = await openWatch(server, `${NS}/configmaps?watch=true&resourceVersion=${server.store.resourceVersion}&timeoutSeconds=1`);
    const started = Date.now();
    await timed.ended;
    assert.ok(Date.now() - started < 3000, 'timeoutSeconds ends the watch');
    const list = await call(server, 'GET', `${NS}/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.equal(list.status, 410);
  } finally { await server.stop(); }
});

void test('restart keeps objects and the port', async () => {
  const server = await startApiServer();
  try {
    await call(server, 'POST', `${NS}/configmaps`, { body: cm('kept') });
    const url = server.url;
    await server.restart();
    assert.equal(server.url, url);
    assert.equal((await call(server, 'GET', `${NS}/configmaps/kept`)).status, 200);
  } finally { await server.stop(); }
});

void test('events.k8s.io/v1 is a view of core/v1 events', async () => {
  const server = await startApiServer();
  try {
    const eventsV1 = '/apis/events.k8s.io/v1/namespaces/default/events';
    const watch = await openWatch(server, `${eventsV1}?watch=true&resourceVersion=${server.store.resourceVersion}`);
    const created = await call(server, 'POST', eventsV1, { body: {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e1' }, eventTime: '2025-01-01T00:00:00.000000Z',
      regarding: { kind: 'Ingress', name: 'web', namespace: 'default' }, reason: 'Sync', note: 'synced', type: 'Normal',
      reportingController: 'resty-ingress', reportingInstance: 'pod-1', action: 'Sync',
    } });
    assert.equal(created.status, 201);
    assert.equal(created.body.note, 'synced', 'the response is in the events.k8s.io layout');
    const core = await call(server, 'GET', '/api/v1/namespaces/default/events/e1');
    assert.equal(core.body.message, 'synced');
    assert.deepEqual(core.body.involvedObject, { kind: 'Ingress', name: 'web', namespace: 'default' });
    assert.equal(core.body.reportingComponent, 'resty-ingress');
    const byRegarding = await call(server, 'GET', `${eventsV1}?fieldSelector=regarding.name%3Dweb,regarding.kind%3DIngress`);
    assert.deepEqual(byRegarding.body.items?.map((e) => e.note), ['synced']);
    const patched = await call(server, 'PATCH', `${eventsV1}/e1`, { body: { note: 'again' }, contentType: 'application/merge-patch+json' });
    assert.equal(patched.body.note, 'again');
    assert.equal((await call(server, 'GET', '/api/v1/namespaces/default/events/e1')).body.message, 'again');
    const events = await watch.next(2);
    assert.deepEqual(events.map((e) => [e.type, e.object.note]), [['ADDED', 'synced'], ['MODIFIED', 'again']]);
    watch.close();
  } finally { await server.stop(); }
});
