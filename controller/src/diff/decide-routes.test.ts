// Canary splits are dynamic: adding, changing or removing one — and the
// backend only the split routes to — never reloads; Lua gets the full set of
// route policies whenever they differ from what it holds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS } from '../model/features/parse.ts';
import type { Backend, CanarySplit, Model } from '../model/types.ts';
import { decideApply } from './decide.ts';

const KEY = 'r default-web-80 shop.test default web web /';

function backend(name: string, routed: boolean): Backend {
  return { name, namespace: 'default', service: name, port: 80, endpoints: [{ address: '127.0.0.1', port: 8080 }], loadBalance: 'round_robin', hash: null, affinity: null, routed };
}

function model(split: Partial<CanarySplit> | null): Model {
  const main = backend('default-web-80', true);
  const canary = backend('default-canary-80', false);
  return {
    servers: [{ hostname: 'shop.test', locations: [{ path: '/', match: 'prefix', route: { kind: 'backend', backend: main.name, key: KEY }, ingress: { namespace: 'default', name: 'web' }, policy: {} }] }],
    backends: split === null ? [main] : [canary, main],
    tls: { certificates: [], hosts: [], defaultCertificate: null },
    settings: DEFAULT_SETTINGS,
    routes: split === null ? [] : [{
      key: KEY,
      canary: { backend: canary.name, weight: 0, weightTotal: 100, header: null, headerValue: null, headerPattern: null, cookie: null, ...split },
    }],
  };
}

void describe('decideApply: route policies', () => {
  const rows: { name: string; from: Model; to: Model; kind: string; routes: number | null; changed: string[] }[] = [
    { name: 'a canary is added (with its backend)', from: model(null), to: model({ weight: 10 }), kind: 'dynamic', routes: 1, changed: ['default-canary-80'] },
    { name: 'its weight changes', from: model({ weight: 10 }), to: model({ weight: 50 }), kind: 'dynamic', routes: 1, changed: [] },
    { name: 'by header instead', from: model({ weight: 10 }), to: model({ header: 'X-Canary' }), kind: 'dynamic', routes: 1, changed: [] },
    { name: 'the canary is removed', from: model({ weight: 10 }), to: model(null), kind: 'dynamic', routes: 0, changed: ['default-canary-80'] },
    { name: 'nothing changes', from: model({ weight: 10 }), to: model({ weight: 10 }), kind: 'skip', routes: null, changed: [] },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const decision = decideApply({ model: row.from, dataplaneEmpty: false }, row.to);
      assert.equal(decision.kind, row.kind);
      if (decision.kind === 'skip') return;
      assert.equal(decision.routes === null ? null : decision.routes.routes.length, row.routes);
      assert.deepEqual(decision.changed, row.changed);
    });
  }

  void it('after NGINX lost its state: the routes go again with everything else', () => {
    const decision = decideApply({ model: model({ weight: 10 }), dataplaneEmpty: true }, model({ weight: 10 }));
    assert.equal(decision.kind, 'dynamic');
    assert.deepEqual(decision.kind === 'dynamic' ? decision.routes?.routes.map((route) => route.key) : null, [KEY]);
  });

  void it('a backend a location routes to is static: adding a location to it reloads', () => {
    const routedCanary = { ...model({ weight: 10 }) };
    const withRoute: Model = { ...routedCanary, backends: routedCanary.backends.map((b) => ({ ...b, routed: true })) };
    assert.equal(decideApply({ model: model({ weight: 10 }), dataplaneEmpty: false }, withRoute).kind, 'reload');
  });
});
