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
});
