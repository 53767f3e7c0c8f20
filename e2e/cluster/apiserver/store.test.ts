import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from './store.ts';
import type { JsonObject } from './patch.ts';
import type { WatchEvent } from './watch.ts';

const code = (c: number) => (err: unknown): boolean => (err as { code?: number }).code === c;
const meta = (o: JsonObject): JsonObject => o.metadata as JsonObject;

function freshStore(opts: { eventWindow?: number } = {}): Store {
  const store = new Store({ ...opts, namespaceFinalizeMs: 10 });
  store.create('namespaces', { metadata: { name: 'default' } });
  return store;
}

const cm = (name: string, labels: Record<string, string> = {}): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels }, data: { k: 'v' } });

void test('create assigns identity and rejects duplicates, bad names and missing namespaces', () => {
  const store = freshStore();
  const created = store.create('configmaps', cm('a'));
  assert.match(String(meta(created).uid), /^[0-9a-f-]{36}$/);
  assert.match(String(meta(created).creationTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(meta(created).generation, 1);
  assert.equal(meta(created).resourceVersion, store.resourceVersion);
  const generated = store.create('configmaps', { metadata: { generateName: 'gen-', namespace: 'default' } });
  assert.match(String(meta(generated).name), /^gen-[a-z0-9]{5}$/);
  const rows: { name: string; body: JsonObject; want: number }[] = [
    { name: 'duplicate', body: cm('a'), want: 409 },
    { name: 'no name', body: { metadata: { namespace: 'default' } }, want: 422 },
    { name: 'upper-case name', body: cm('Bad_Name'), want: 422 },
    { name: 'missing namespace', body: { metadata: { name: 'x', namespace: 'nope' } }, want: 404 },
    { name: 'wrong kind', body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }, want: 400 },
    { name: 'bad ingress path', body: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'i' }, spec: { rules: [{ http: { paths: [{ path: 'nope', pathType: 'Prefix', backend: { service: { name: 's', port: { number: 80 } } } }] } }] } }, want: 422 },
  ];
  for (const row of rows) {
    const kind = row.body.kind === 'Ingress' ? 'ingresses.networking.k8s.io' : 'configmaps';
    assert.throws(() => store.create(kind, row.body), code(row.want), row.name);
  }
  assert.throws(() => store.create('services', { metadata: { name: 's', namespace: 'default' }, spec: { ports: [{ port: 70000 }] } }),
    (err: { code?: number; details?: { causes?: { field?: string }[] } }) => err.code === 422 && err.details?.causes?.[0]?.field === 'spec.ports[0].port');
});

void test('update is optimistic and the status subresource owns .status', () => {
  const store = freshStore();
  const dep = store.create('deployments.apps', {
    metadata: { name: 'web', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
  });
  assert.equal((dep.spec as JsonObject).replicas, 1, 'defaulted');
  const stale = structuredClone(dep);
  const scaled = store.update('deployments.apps', { ...dep, spec: { ...(dep.spec as JsonObject), replicas: 3 }, status: { replicas: 99 } });
  assert.equal(meta(scaled).generation, 2);
  assert.deepEqual(scaled.status, {}, 'main resource update ignores status');
  assert.throws(() => store.update('deployments.apps', stale), code(409));
  const withStatus = store.update('deployments.apps', { ...scaled, spec: { replicas: 0 }, status: { replicas: 3 } }, { subresource: 'status' });
  assert.deepEqual(withStatus.status, { replicas: 3 });
  assert.equal((withStatus.spec as JsonObject).replicas, 3, 'status update ignores spec');
  assert.equal(meta(withStatus).generation, 2, 'status does not bump generation');
  const rv = store.resourceVersion;
  store.update('deployments.apps', withStatus);
  assert.equal(store.resourceVersion, rv, 'a no-op update writes nothing');
});

void test('list filters by selectors and pages with limit/continue', () => {
  const store = freshStore();
  for (let i = 0; i < 5; i++) store.create('configmaps', cm(`c${i}`, { idx: String(i), even: String(i % 2 === 0) }));
  assert.deepEqual(store.list('configmaps', { labelSelector: 'even=true' }).items.map((o) => meta(o).name), ['c0', 'c2', 'c4']);
  assert.deepEqual(store.list('configmaps', { fieldSelector: 'metadata.name=c3' }).items.map((o) => meta(o).name), ['c3']);
  const names: unknown[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const page = store.list('configmaps', { limit: 2, continue: token });
    names.push(...page.items.map((o) => meta(o).name));
    token = page.continue;
    pages++;
  } while (token);
  assert.deepEqual(names, ['c0', 'c1', 'c2', 'c3', 'c4']);
  assert.equal(pages, 3);
  const first = store.list('configmaps', { limit: 2 });
  store.create('configmaps', cm('later'));
  store.expireResourceVersions();
  assert.throws(() => store.list('configmaps', { limit: 2, continue: first.continue }), code(410));
  assert.throws(() => store.list('configmaps', { continue: 'garbage' }), code(400));
});

void test('watch replays from a resourceVersion, projects selectors, and 410s when expired', () => {
  const store = freshStore({ eventWindow: 3 });
  const start = store.resourceVersion;
  const a = store.create('configmaps', cm('a', { app: 'x' }));
  store.update('configmaps', { ...a, metadata: { ...meta(a), labels: { app: 'y' } } });
  const seen: WatchEvent[] = [];
  let closed = false;
  const stop = store.watch('configmaps', { resourceVersion: start, labelSelector: 'app=x' }, { onEvent: (e) => seen.push(e), onClose: () => { closed = true; } });
  assert.deepEqual(seen.map((e) => e.type), ['ADDED', 'DELETED'], 'leaving the selector reads as DELETED');
  store.create('configmaps', cm('b', { app: 'x' }));
  assert.deepEqual(seen.map((e) => e.type), ['ADDED', 'DELETED', 'ADDED']);
  stop();
  store.create('configmaps', cm('c', { app: 'x' }));
  assert.equal(seen.length, 3, 'no events after stop');
  assert.equal(closed, false);
  for (const n of ['d', 'e', 'f']) store.create('configmaps', cm(n));
  const expired: WatchEvent[] = [];
  store.watch('configmaps', { resourceVersion: start }, { onEvent: (e) => expired.push(e), onClose: () => { closed = true; } });
  assert.equal(expired[0].type, 'ERROR');
  assert.equal((expired[0].object as JsonObject).code, 410);
  assert.equal(closed, true, 'the expired watch is ended');
  const initial: WatchEvent[] = [];
  store.watch('configmaps', { resourceVersion: '0' }, { onEvent: (e) => initial.push(e), onClose: () => undefined });
  assert.equal(initial.filter((e) => e.type === 'ADDED').length, 6, 'rv 0 starts with the current state');
});

void test('namespace deletion terminates, then removes its objects', async () => {
  const store = freshStore();
  store.create('namespaces', { metadata: { name: 'gone' } });
  store.create('configmaps', { metadata: { name: 'c', namespace: 'gone' } });
  const terminating = store.delete('namespaces', undefined, 'gone');
  assert.equal((terminating.status as JsonObject).phase, 'Terminating');
  assert.throws(() => store.create('configmaps', { metadata: { name: 'd', namespace: 'gone' } }), code(403));
  store.delete('configmaps', 'gone', 'c');
  store.create('configmaps', { metadata: { name: 'e', namespace: 'default' } });
  await new Promise((r) => setTimeout(r, 50));
  assert.throws(() => store.get('namespaces', undefined, 'gone'), code(404));
  assert.equal(store.list('configmaps').items.length, 1, 'other namespaces keep their objects');
  store.close();
});

void test('patch kinds through the store, and server-side apply creates', () => {
  const store = freshStore();
  store.create('configmaps', cm('p'));
  const rows: { name: string; kind: 'merge' | 'json' | 'strategic' | 'apply'; body: unknown; want: JsonObject }[] = [
    { name: 'merge', kind: 'merge', body: { data: { m: '1' } }, want: { k: 'v', m: '1' } },
    { name: 'json', kind: 'json', body: [{ op: 'remove', path: '/data/m' }], want: { k: 'v' } },
    { name: 'strategic', kind: 'strategic', body: { data: { s: '2' } }, want: { k: 'v', s: '2' } },
    { name: 'apply', kind: 'apply', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p' }, data: { a: '3' } }, want: { k: 'v', s: '2', a: '3' } },
  ];
  for (const row of rows) assert.deepEqual(store.patch('configmaps', 'default', 'p', row.kind, row.body as never).data, row.want, row.name);
  assert.throws(() => store.patch('configmaps', 'default', 'p', 'merge', { metadata: { resourceVersion: '1' } }), code(409), 'stale rv in a patch');
  assert.throws(() => store.patch('configmaps', 'default', 'missing', 'merge', {}), code(404));
  const created = store.patch('configmaps', 'default', 'ssa', 'apply', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { x: 'y' } });
  assert.equal(meta(created).namespace, 'default');
});

void test('deleting an owner collects its dependents unless orphaned or co-owned', () => {
  const rows: { name: string; policy?: string; secondOwnerLives: boolean; wantLeft: string[] }[] = [
    { name: 'background cascade through two levels', secondOwnerLives: false, wantLeft: [] },
    { name: 'a dependent with a live second owner stays', secondOwnerLives: true, wantLeft: ['pod'] },
    { name: 'orphan policy keeps dependents', policy: 'Orphan', secondOwnerLives: false, wantLeft: ['pod', 'rs'] },
  ];
  for (const row of rows) {
    const store = freshStore();
    const ref = (o: JsonObject, kind: string): JsonObject => ({ apiVersion: 'v1', kind, name: meta(o).name, uid: meta(o).uid });
    const owner = store.create('configmaps', cm('owner'));
    const other = store.create('configmaps', cm('other'));
    const rs = store.create('configmaps', { metadata: { name: 'rs', namespace: 'default', ownerReferences: [ref(owner, 'ConfigMap')] } });
    const podOwners = [ref(rs, 'ConfigMap'), ...(row.secondOwnerLives ? [ref(other, 'ConfigMap')] : [])];
    store.create('secrets', { metadata: { name: 'pod', namespace: 'default', ownerReferences: podOwners } });
    store.delete('configmaps', 'default', 'owner', { propagationPolicy: row.policy });
    const left = [...store.list('configmaps').items, ...store.list('secrets').items].map((o) => String(meta(o).name)).filter((n) => n !== 'other').sort();
    assert.deepEqual(left, row.wantLeft, row.name);
  }
});

/** The list as it was before the key index: filter and sort the whole table on every page. */
function listByFullSort(objects: JsonObject[], opts: { namespace?: string; label?: (o: JsonObject) => boolean; after: string; limit: number }): { keys: string[]; remaining: number } {
  const all = objects
    .map((o) => [`${String(meta(o).namespace ?? '')}/${String(meta(o).name)}`, o] as const)
    .filter(([key, o]) => key > opts.after && (opts.namespace === undefined || meta(o).namespace === opts.namespace) && (opts.label?.(o) ?? true))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const page = all.slice(0, opts.limit);
  return { keys: page.map(([key]) => key), remaining: all.length - page.length };
}

void test('list pages give what a full sort of the table gave, across writes between pages', () => {
  const rows: { name: string; namespace?: string; labelSelector?: string; label?: (o: JsonObject) => boolean; limit: number }[] = [
    { name: 'all namespaces', limit: 7 },
    { name: 'one namespace (its keys are one run of the index)', namespace: 'default', limit: 5 },
    { name: 'a namespace whose name prefixes another\'s', namespace: 'ns', limit: 3 },
    { name: 'a label selector (counts what remains)', labelSelector: 'even=true', label: (o) => (meta(o).labels as Record<string, string> | undefined)?.even === 'true', limit: 4 },
  ];
  for (const row of rows) {
    const store = freshStore();
    for (const ns of ['ns', 'ns-2', 'ns0']) store.create('namespaces', { metadata: { name: ns } });
    const put = (ns: string, name: string, i: number): void => { store.create('configmaps', { metadata: { name, namespace: ns, labels: { even: String(i % 2 === 0) } } }); };
    let n = 0;
    for (const ns of ['default', 'ns', 'ns-2', 'ns0']) for (let i = 0; i < 12; i++) put(ns, `c${(i * 7) % 12}`, n++);
    let token: string | undefined;
    let after = '';
    let pages = 0;
    do {
      const page = store.list('configmaps', { namespace: row.namespace, labelSelector: row.labelSelector, limit: row.limit, continue: token });
      const current = store.list('configmaps').items;
      const want = listByFullSort(current, { namespace: row.namespace, label: row.label, after, limit: row.limit });
      const got = page.items.map((o) => `${String(meta(o).namespace)}/${String(meta(o).name)}`);
      assert.deepEqual(got, want.keys, `${row.name}: page ${pages}`);
      assert.equal(page.remainingItemCount ?? 0, want.remaining, `${row.name}: remaining after page ${pages}`);
      assert.equal(page.continue !== undefined, want.remaining > 0, `${row.name}: a continue token while objects remain`);
      after = got[got.length - 1] ?? after;
      token = page.continue;
      // Writes between pages: a key before the token's (not seen), one after it (seen), one deleted ahead.
      store.create('configmaps', { metadata: { name: `a${pages}`, namespace: 'default', labels: { even: 'true' } } });
      store.create('configmaps', { metadata: { name: `z${pages}`, namespace: row.namespace ?? 'ns0', labels: { even: 'true' } } });
      const ahead = current.map((o) => `${String(meta(o).namespace)}/${String(meta(o).name)}`).filter((k) => k > after).sort().at(-1);
      if (ahead !== undefined && pages % 2 === 0) store.delete('configmaps', ahead.split('/')[0], ahead.split('/')[1]);
      pages++;
    } while (token && pages < 100);
    assert.ok(pages > 2 && pages < 100, `${row.name}: ${pages} pages`);
  }
});

void test('a continue token past its resourceVersion window is 410 Gone, however many pages were read', () => {
  const store = freshStore({ eventWindow: 4 });
  for (let i = 0; i < 10; i++) store.create('configmaps', cm(`c${i}`));
  const first = store.list('configmaps', { limit: 3 });
  const second = store.list('configmaps', { limit: 3, continue: first.continue });
  assert.deepEqual(second.items.map((o) => meta(o).name), ['c3', 'c4', 'c5']);
  for (let i = 0; i < 5; i++) store.create('configmaps', cm(`later${i}`));
  assert.throws(() => store.list('configmaps', { limit: 3, continue: second.continue }), code(410));
});

void test('a shared list hands out the stored objects, which a later write replaces instead of changing', () => {
  const store = freshStore();
  store.create('configmaps', cm('a'));
  const shared = store.list('configmaps', { namespace: 'default' }, true).items[0]!;
  assert.equal(store.list('configmaps', { namespace: 'default' }, true).items[0], shared, 'the same object twice, no copy');
  const copied = store.list('configmaps', { namespace: 'default' }).items[0]!;
  assert.notEqual(copied, shared, 'a plain list copies');
  assert.deepEqual(copied, shared);
  const before = JSON.stringify(shared);
  store.update('configmaps', { ...copied, data: { k: 'changed' } }, { namespace: 'default' });
  assert.equal(JSON.stringify(shared), before, 'the update stored a new object; the one handed out is as it was');
  assert.deepEqual((store.list('configmaps', { namespace: 'default' }, true).items[0]!.data as JsonObject).k, 'changed');
});
