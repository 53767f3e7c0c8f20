// Basic/digest users are dynamic: a Secret's new content, a Secret appearing
// (the Ingress goes from 503 to asking for credentials) or going never reloads;
// Lua gets the full set whenever it differs from what it holds. What the
// location prints (auth-type) is static.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS } from '../model/features/parse.ts';
import type { BasicAuthConfig, CredentialSet, Model } from '../model/types.ts';
import { decideApply, sameStaticPart } from './decide.ts';

const KEY = '- default-web-80 shop.test default web web /';
const AUTH: BasicAuthConfig = { type: 'basic', secret: { namespace: null, name: 'users' }, secretType: 'auth-file', realm: 'r' };

function model(users: Record<string, string> | null, auth: BasicAuthConfig = AUTH): Model {
  const base: Model = {
    servers: [{ hostname: 'shop.test', locations: [{ path: '/', match: 'prefix', route: { kind: 'backend', backend: 'default-web-80', key: KEY }, ingress: { namespace: 'default', name: 'web' }, policy: { basicAuth: auth } }] }],
    backends: [{ name: 'default-web-80', namespace: 'default', service: 'web', port: 80, endpoints: [{ address: '127.0.0.1', port: 8080 }], loadBalance: 'round_robin', hash: null, affinity: null, routed: true }],
    tls: { certificates: [], hosts: [], defaultCertificate: null },
    settings: DEFAULT_SETTINGS,
    routes: [],
  };
  if (users === null) return base;
  const set: CredentialSet = { id: 'default/web', type: 'basic', realm: 'r', users };
  return { ...base, credentials: [set] };
}

void describe('decideApply: basic/digest users', () => {
  const rows: { name: string; from: Model; to: Model; kind: string; sets: number | null }[] = [
    { name: 'the Secret appears (503 → asking for credentials)', from: model(null), to: model({ a: '{PLAIN}x' }), kind: 'dynamic', sets: 1 },
    { name: 'a password changes', from: model({ a: '{PLAIN}x' }), to: model({ a: '{PLAIN}y' }), kind: 'dynamic', sets: 1 },
    { name: 'a user is added', from: model({ a: '{PLAIN}x' }), to: model({ a: '{PLAIN}x', b: '{PLAIN}y' }), kind: 'dynamic', sets: 1 },
    { name: 'the Secret goes (→ 503): an empty set is pushed', from: model({ a: '{PLAIN}x' }), to: model(null), kind: 'dynamic', sets: 0 },
    { name: 'nothing changes', from: model({ a: '{PLAIN}x' }), to: model({ a: '{PLAIN}x' }), kind: 'skip', sets: null },
    { name: 'no auth anywhere: nothing to push', from: model(null), to: model(null), kind: 'skip', sets: null },
    { name: 'auth-type changes: the location changes (reload)', from: model({ a: 'x' }), to: model({ a: 'x' }, { ...AUTH, type: 'digest' }), kind: 'reload', sets: null },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const decision = decideApply({ model: row.from, dataplaneEmpty: false }, row.to);
      assert.equal(decision.kind, row.kind);
      if (decision.kind === 'skip') return;
      assert.equal(decision.credentials === null || decision.credentials === undefined ? null : decision.credentials.sets.length, row.sets);
    });
  }

  void it('the users are not part of the static model', () => {
    assert.ok(sameStaticPart(model(null), model({ a: '{PLAIN}x' })));
    assert.ok(sameStaticPart(model({ a: '{PLAIN}x' }), model({ a: '{PLAIN}y' })));
  });

  void it('after NGINX lost its state: the users go again with everything else', () => {
    const decision = decideApply({ model: model({ a: '{PLAIN}x' }), dataplaneEmpty: true }, model({ a: '{PLAIN}x' }));
    assert.equal(decision.kind, 'dynamic');
    assert.deepEqual(decision.kind === 'dynamic' ? decision.credentials?.sets.map((set) => set.id) : null, ['default/web']);
  });
});
