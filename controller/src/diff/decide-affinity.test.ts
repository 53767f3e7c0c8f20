// Backend.affinity is dynamic: adding, changing or removing session affinity
// is a push to Lua (POST or PATCH of the backend), never a reload. Fails when
// decide.ts treats the field as static (reload) or forgets to send it (skip).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS } from '../model/features/parse.ts';
import type { Backend, BackendAffinity, Model } from '../model/types.ts';
import { decideApply, sameStaticPart } from './decide.ts';

const COOKIE: BackendAffinity = {
  mode: 'balanced', cookie: 'INGRESSCOOKIE', path: null, domain: null, expires: null, maxAge: null, secure: false,
  sameSite: null, conditionalSameSiteNone: false, changeOnFailure: false, ingresses: ['default/app'],
};

function model(affinity: BackendAffinity | null, path = '/'): Model {
  const backend: Backend = {
    name: 'default-app-80', namespace: 'default', service: 'app', port: 80, loadBalance: 'round_robin', hash: null, affinity, routed: true,
    endpoints: [{ address: '127.0.1.1', port: 8080 }, { address: '127.0.1.2', port: 8080 }],
  };
  return {
    servers: [{
      hostname: '_',
      locations: [{
        path, match: 'prefix', route: { kind: 'backend', backend: backend.name, key: `- default-app-80 _ default app app ${path}` },
        ingress: { namespace: 'default', name: 'app' }, policy: {},
      }],
    }],
    backends: [backend], tls: { certificates: [], hosts: [], defaultCertificate: null }, settings: DEFAULT_SETTINGS, routes: [],
  };
}

const rows: { name: string; running: BackendAffinity | null; next: BackendAffinity | null; path?: string; kind: 'dynamic' | 'reload' | 'skip' }[] = [
  { name: 'affinity added: a push, no reload', running: null, next: COOKIE, kind: 'dynamic' },
  { name: 'affinity removed: a push, no reload', running: COOKIE, next: null, kind: 'dynamic' },
  { name: 'mode changed: a push', running: COOKIE, next: { ...COOKIE, mode: 'persistent' }, kind: 'dynamic' },
  { name: 'cookie name changed: a push', running: COOKIE, next: { ...COOKIE, cookie: 'SERVERID' }, kind: 'dynamic' },
  { name: 'cookie attributes changed: a push', running: COOKIE, next: { ...COOKIE, maxAge: 60, sameSite: 'Lax', secure: true }, kind: 'dynamic' },
  { name: 'the same affinity (a copy): nothing', running: COOKIE, next: structuredClone(COOKIE), kind: 'skip' },
  { name: 'affinity with a new path: the path reloads', running: null, next: COOKIE, path: '/shop', kind: 'reload' },
];

void describe('decideApply: Backend.affinity is dynamic', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const running = model(row.running);
      const next = model(row.next, row.path);
      const decision = decideApply({ model: running, dataplaneEmpty: false }, next);
      assert.equal(decision.kind, row.kind);
      assert.equal(sameStaticPart(running, next), row.path === undefined);
      if (decision.kind === 'skip') return;
      assert.deepEqual(decision.changed, ['default-app-80']);
      const sent = decision.patch?.set[0];
      assert.equal(sent?.name, 'default-app-80');
      assert.deepEqual(sent?.affinity ?? null, row.next, 'the PATCH carries the new affinity');
      assert.deepEqual(decision.backends[0]?.affinity ?? null, row.next, 'so does the full set');
    });
  }

  void it('a backend without affinity is sent as before (no affinity field)', () => {
    const decision = decideApply({ model: null, dataplaneEmpty: false }, model(null));
    assert.deepEqual(Object.keys(decision.kind === 'skip' ? {} : decision.backends[0] ?? {}), ['name', 'endpoints', 'loadBalance']);
  });
});
