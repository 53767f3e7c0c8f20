import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { DynamicPush } from '../diff/decide.ts';
import type { DynamicCertificates, DynamicRoutes, Model } from '../model/types.ts';
import { createDynamicPusher, pushReason } from './dynamic-push.ts';
import type { DataplaneControl, SyncDetail } from './sync-types.ts';

const CERTIFICATES: DynamicCertificates = { certificates: [], hosts: {}, defaultCertificate: null };
const ROUTES: DynamicRoutes = { routes: [] };

function push(changed: string[], certificates: DynamicCertificates | null, patch: DynamicPush['patch'] = null, routes: DynamicRoutes | null = null): DynamicPush {
  return { backends: changed.map((name) => ({ name, endpoints: [], loadBalance: 'round_robin' })), patch, changed, certificates, routes };
}

const detail = (): SyncDetail => ({ why: '', changed: [], buildMs: 0, renderMs: 0, applyMs: 0 });

/** A data plane that records the calls; `fail` makes the next call throw. */
function recorder(): DataplaneControl & { calls: string[]; fail: boolean } {
  const dp = {
    calls: [] as string[],
    fail: false,
    started: () => true,
    start: async () => undefined,
    reload: async () => undefined,
    pushBackends: async (backends: readonly { name: string }[]) => { check(); dp.calls.push(`POST ${backends.map((b) => b.name).join(',')}`); },
    patchBackends: async (patch: { set: readonly { name: string }[]; remove: readonly string[] }) => { check(); dp.calls.push(`PATCH ${patch.set.map((b) => b.name).join(',')}`); },
    pushCertificates: async () => { check(); dp.calls.push('certificates'); },
    pushRoutes: async () => { check(); dp.calls.push('routes'); },
    pushCredentials: async (credentials: { sets: readonly { id: string }[] }) => { check(); dp.calls.push(`credentials ${credentials.sets.map((set) => set.id).join(',')}`); },
  };
  const check = (): void => { if (dp.fail) throw new Error('connection refused'); };
  return dp;
}

void describe('dynamic push', () => {
  const reasons: { name: string; push: DynamicPush; why: string }[] = [
    { name: 'endpoints only', push: push(['a'], null), why: 'endpoints' },
    { name: 'certificates only (TLS added to an Ingress)', push: push([], CERTIFICATES), why: 'certificates' },
    { name: 'both', push: push(['a'], CERTIFICATES), why: 'endpoints and certificates' },
    { name: 'neither', push: push([], null), why: 'no change' },
    { name: 'a canary split changed', push: push([], null, null, ROUTES), why: 'routes' },
    { name: 'an auth Secret changed', push: { ...push([], null), credentials: { sets: [] } }, why: 'credentials' },
    { name: 'a TCP backend scaled', push: { ...push([], null), streams: [] }, why: 'stream endpoints' },
  ];
  for (const row of reasons) void it(`why: ${row.name}`, () => assert.equal(pushReason(row.push), row.why));

  const sends: { name: string; push: DynamicPush; calls: string[]; mode: SyncDetail['push'] }[] = [
    { name: 'unknown Lua state: the full set, then certificates', push: push(['a', 'b'], CERTIFICATES), calls: ['POST a,b', 'certificates'], mode: 'full' },
    { name: 'a patch with changes', push: push(['b'], null, { set: [{ name: 'b', endpoints: [], loadBalance: 'round_robin' }], remove: [] }), calls: ['PATCH b'], mode: 'patch' },
    { name: 'an empty patch and new certificates: only the certificates', push: push([], CERTIFICATES, { set: [], remove: [] }), calls: ['certificates'], mode: 'patch' },
    {
      name: 'a new canary backend and its split: the backend first, then the route that names it',
      push: push(['canary'], null, { set: [{ name: 'canary', endpoints: [], loadBalance: 'round_robin' }], remove: [] }, ROUTES),
      calls: ['PATCH canary', 'routes'], mode: 'patch',
    },
    {
      name: 'an auth Secret\'s new users: only the credentials',
      push: { ...push([], null, { set: [], remove: [] }), credentials: { sets: [{ id: 'ns/app', type: 'basic', realm: '', users: { a: '{PLAIN}x' } }] } },
      calls: ['credentials ns/app'], mode: 'patch',
    },
  ];
  for (const row of sends) {
    void it(`sends: ${row.name}`, async () => {
      const dp = recorder();
      const d = detail();
      await createDynamicPusher(dp).push(row.push, {} as Model, d);
      assert.deepEqual(dp.calls, row.calls);
      assert.equal(d.push, row.mode);
    });
  }

  void it('remembers what Lua holds; a failed push or a reset makes it unknown', async () => {
    const dp = recorder();
    const pusher = createDynamicPusher(dp);
    const model = {} as Model;
    assert.deepEqual([pusher.held(), pusher.lost()], [null, false]);
    await pusher.push(push(['a'], null), model, detail());
    assert.deepEqual([pusher.held(), pusher.lost()], [model, false]);
    dp.fail = true;
    await assert.rejects(pusher.push(push(['a'], null), model, detail()));
    assert.deepEqual([pusher.held(), pusher.lost()], [null, true]);
    dp.fail = false;
    await pusher.push(push(['a'], null), model, detail());
    pusher.reset();
    assert.equal(pusher.lost(), true);
  });

  void it('adopt: backends PATCHed ahead (pending-preview.ts) count as held, sorted, the newer one replacing its name; nothing while unknown', async () => {
    const pusher = createDynamicPusher(recorder());
    const backend = (name: string, port: number): Model['backends'][number] => ({ name, port } as unknown as Model['backends'][number]);
    pusher.adopt([backend('b', 1)]);
    assert.equal(pusher.held(), null, 'an unknown state stays unknown');
    await pusher.push(push(['a'], null), { backends: [backend('a', 1), backend('c', 1)] } as unknown as Model, detail());
    pusher.adopt([backend('b', 1), backend('c', 2)]);
    assert.deepEqual(pusher.held()?.backends.map((b) => `${b.name}:${b.port}`), ['a:1', 'b:1', 'c:2']);
  });

  const STREAM_MODEL = {
    servers: [], backends: [], tls: { certificates: [], hosts: [], defaultCertificate: null }, routes: [],
    streams: [{ port: 9000, protocol: 'TCP', namespace: 'default', service: 'echo', servicePort: 80, proxyProtocol: { decode: false, encode: false }, endpoints: [{ address: '10.0.0.1', port: 80 }] }],
  } as unknown as Model;
  const STREAMS = [{ protocol: 'TCP' as const, port: 9000, endpoints: [{ address: '10.0.0.1', port: 80 }] }];
  const streamRows: { name: string; answer: () => Promise<boolean>; held: 'all' | 'not the streams'; deferred: boolean }[] = [
    { name: 'fed: njs holds them', answer: async () => true, held: 'all', deferred: false },
    { name: 'no stream {} running yet (no feed socket): fed again on the next sync, no error', answer: async () => false, held: 'not the streams', deferred: false },
    { name: 'njs refused them: everything else applied, the sync retries', answer: async () => { throw new Error('error bad peer'); }, held: 'not the streams', deferred: true },
  ];
  for (const row of streamRows) {
    void it(`stream endpoints: ${row.name}`, async () => {
      const dp = recorder();
      const pusher = createDynamicPusher({ ...dp, pushStreams: async (streams) => { dp.calls.push(`streams ${streams.length}`); return await row.answer(); } });
      await pusher.push({ ...push(['a'], null), streams: STREAMS }, STREAM_MODEL, detail());
      assert.deepEqual(dp.calls, ['POST a', 'streams 1']);
      assert.equal(pusher.lost(), false);
      const held = pusher.held();
      assert.ok(held !== null);
      assert.equal(held.backends, STREAM_MODEL.backends);
      if (row.held === 'all') assert.equal(held, STREAM_MODEL);
      else assert.notDeepEqual(held.streams?.[0]?.endpoints, STREAM_MODEL.streams?.[0]?.endpoints);
      if (row.deferred) assert.throws(() => pusher.throwDeferred(), /stream endpoints not pushed .*error bad peer/u);
      else pusher.throwDeferred();
    });
  }
});
