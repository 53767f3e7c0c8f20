import { test } from 'node:test';
import assert from 'node:assert/strict';
import deepEqual from 'fast-deep-equal';
import { decideApply, DYNAMIC_SETTINGS, sameStaticPart, staticPart, type Decision } from './decide.ts';
import { DEFAULT_SETTINGS } from '../model/features/parse.ts';
import { DYNAMIC_FEATURES } from '../model/features/registry.ts';
import type { Backend, DynamicBackend, Location, Model } from '../model/types.ts';

const noTls: Model['tls'] = { certificates: [], hosts: [], defaultCertificate: null };
const settings: Model['settings'] = DEFAULT_SETTINGS;

function backend(name: string, addresses: string[], loadBalance: Backend['loadBalance'] = 'round_robin'): Backend {
  return {
    name, namespace: 'default', service: name, port: 80, loadBalance, hash: null, affinity: null, routed: true,
    endpoints: addresses.map((address) => ({ address, port: 8080 })),
  };
}

function location(path: string, target: string): Location {
  return {
    path, match: 'prefix', route: { kind: 'backend', backend: target, key: `r ${target} app.example.com default app ${target} ${path}` },
    ingress: { namespace: 'default', name: 'app' }, policy: {},
  };
}

function model(paths: Record<string, string>, backends: Backend[]): Model {
  return {
    servers: [
      { hostname: '_', locations: [{ path: '/', match: 'prefix', route: { kind: 'not-found' }, ingress: null, policy: {} }] },
      { hostname: 'app.example.com', locations: Object.entries(paths).map(([p, b]) => location(p, b)) },
    ],
    backends,
    tls: noTls,
    settings,
    routes: [],
  };
}

const base = model({ '/': 'default-app-80' }, [backend('default-app-80', ['127.0.1.1', '127.0.1.2'])]);

const rows: { name: string; running: Model | null; empty?: boolean; next: Model; kind: string; changed?: string[] }[] = [
  { name: 'first sync reloads', running: null, next: base, kind: 'reload', changed: ['default-app-80'] },
  { name: 'identical state skips', running: base, next: structuredClone(base), kind: 'skip' },
  {
    name: 'scale up is dynamic', running: base, kind: 'dynamic', changed: ['default-app-80'],
    next: model({ '/': 'default-app-80' }, [backend('default-app-80', ['127.0.1.1', '127.0.1.2', '127.0.1.3'])]),
  },
  {
    name: 'scale to zero is dynamic', running: base, kind: 'dynamic', changed: ['default-app-80'],
    next: model({ '/': 'default-app-80' }, [backend('default-app-80', [])]),
  },
  {
    // EWMA renders a Lua log phase in the backend's locations (round_robin pays none): a static change.
    name: 'load-balance change: a push of the algorithm, no reload', running: base, kind: 'dynamic', changed: ['default-app-80'],
    next: model({ '/': 'default-app-80' }, [backend('default-app-80', ['127.0.1.1', '127.0.1.2'], 'ewma')]),
  },
  {
    name: 'new path reloads and names the new backend', running: base, kind: 'reload', changed: ['default-api-80'],
    next: model({ '/': 'default-app-80', '/api': 'default-api-80' }, [
      backend('default-api-80', ['127.0.2.1']), backend('default-app-80', ['127.0.1.1', '127.0.1.2']),
    ]),
  },
  { name: 'empty data plane re-pushes everything', running: base, empty: true, next: base, kind: 'dynamic', changed: ['default-app-80'] },
];

for (const row of rows) {
  test(`decideApply: ${row.name}`, () => {
    const decision = decideApply({ model: row.running, dataplaneEmpty: row.empty ?? false }, row.next);
    assert.equal(decision.kind, row.kind);
    if (decision.kind !== 'skip') {
      assert.deepEqual(decision.changed, row.changed);
      assert.deepEqual(decision.backends.map((b) => b.name), row.next.backends.map((b) => b.name));
      assert.deepEqual(decision.backends[0]?.endpoints, row.next.backends[0]?.endpoints);
    }
  });
}

test('staticPart blanks the dynamic parts of backends: endpoints, algorithm and hash', () => {
  const next = model({ '/': 'default-app-80' }, [backend('default-app-80', ['127.0.9.9'])]);
  assert.deepEqual(staticPart(next), staticPart(base));
  assert.deepEqual(staticPart(next).servers, base.servers);
  const ewma = model({ '/': 'default-app-80' }, [backend('default-app-80', ['127.0.9.9'], 'ewma')]);
  assert.deepEqual(staticPart(ewma), staticPart(base), 'the algorithm is dynamic');
  const hashed = model({ '/': 'default-app-80' }, [{ ...backend('default-app-80', ['127.0.9.9']), hash: { by: '$request_uri', subsetSize: null } }]);
  assert.deepEqual(staticPart(hashed), staticPart(base), 'the hash is dynamic');
});

test('DYNAMIC_SETTINGS names the features the registry declares dynamic', () => {
  assert.deepEqual([...DYNAMIC_SETTINGS].sort(), DYNAMIC_FEATURES.map((feature) => feature.name).sort());
});

const hashOf = (by: string, subsetSize: number | null = null): Backend['hash'] => ({ by, subsetSize });
const balancingRows: { name: string; next: Model; kind: Decision['kind']; pushed?: Partial<DynamicBackend> }[] = [
  { name: 'round_robin → ewma: a push, no reload', next: model({ '/': 'default-app-80' }, [backend('default-app-80', ['127.0.1.1', '127.0.1.2'], 'ewma')]), kind: 'dynamic', pushed: { loadBalance: 'ewma' } },
  {
    name: 'a hash added: a push, no reload', kind: 'dynamic', pushed: { hash: { by: '$request_uri', subsetSize: null } },
    next: model({ '/': 'default-app-80' }, [{ ...backend('default-app-80', ['127.0.1.1', '127.0.1.2']), hash: hashOf('$request_uri') }]),
  },
  {
    name: 'subset size changed: a push, no reload', kind: 'dynamic', pushed: { hash: { by: '$request_uri', subsetSize: 3 } },
    next: model({ '/': 'default-app-80' }, [{ ...backend('default-app-80', ['127.0.1.1', '127.0.1.2']), hash: hashOf('$request_uri', 3) }]),
  },
  {
    name: 'the ConfigMap\'s load-balance changed: no reload (nothing to push when no backend changed)', kind: 'skip',
    next: { ...base, settings: { ...settings, loadBalance: { algorithm: 'ewma' } } },
  },
];
for (const row of balancingRows) {
  test(`decideApply, balancing: ${row.name}`, () => {
    const decision = decideApply({ model: base, dataplaneEmpty: false }, row.next);
    assert.equal(decision.kind, row.kind);
    if (decision.kind === 'skip' || row.pushed === undefined) return;
    assert.deepEqual(decision.patch?.set.map((b) => b.name), ['default-app-80']);
    assert.deepEqual({ ...decision.patch?.set[0], ...row.pushed }, decision.patch?.set[0]);
  });
}
test('a backend without a hash is pushed without the field (Lua\'s canonical form)', () => {
  const decision = decideApply({ model: null, dataplaneEmpty: true }, base);
  assert.ok(decision.kind !== 'skip');
  assert.equal('hash' in (decision.backends[0] ?? {}), false);
});

const two = model({ '/': 'default-app-80', '/api': 'default-api-80' }, [
  backend('default-api-80', ['127.0.2.1']), backend('default-app-80', ['127.0.1.1', '127.0.1.2']),
]);
const patchRows: { name: string; running: Model | null; pushed?: Model | null; empty?: boolean; next: Model; patch: { set: string[]; remove: string[] } | null }[] = [
  { name: 'first sync: full POST', running: null, next: base, patch: null },
  { name: 'lost state: full POST', running: base, empty: true, next: base, patch: null },
  {
    name: 'one backend scaled: only it', running: two, patch: { set: ['default-api-80'], remove: [] },
    next: model({ '/': 'default-app-80', '/api': 'default-api-80' }, [backend('default-api-80', []), backend('default-app-80', ['127.0.1.1', '127.0.1.2'])]),
  },
  { name: 'backend gone: removed, the other not sent', running: two, next: base, patch: { set: [], remove: ['default-api-80'] } },
  { name: 'backend added: only it', running: base, next: two, patch: { set: ['default-api-80'], remove: [] } },
  // Lua holds `two` (pushed before a reload that failed), NGINX still runs `base`.
  { name: 'diffed against what Lua holds, not what NGINX runs', running: base, pushed: two, next: base, patch: { set: [], remove: ['default-api-80'] } },
];
for (const row of patchRows) {
  test(`decideApply patch: ${row.name}`, () => {
    const decision = decideApply({ model: row.running, dataplaneEmpty: row.empty ?? false, pushed: row.pushed }, row.next);
    assert.notEqual(decision.kind, 'skip');
    if (decision.kind === 'skip') return;
    const patch = decision.patch === null ? null : { set: decision.patch.set.map((b) => b.name), remove: [...decision.patch.remove] };
    assert.deepEqual(patch, row.patch);
    assert.deepEqual(decision.changed, row.patch === null ? row.next.backends.map((b) => b.name) : [...row.patch.set, ...row.patch.remove].sort());
  });
}

const renamed = model({ '/': 'default-app-80' }, [{ ...backend('default-app-80', ['127.0.1.1', '127.0.1.2']), service: 'other' }]);
const staticRows: { name: string; next: Model; same: boolean }[] = [
  { name: 'identical copy', next: structuredClone(base), same: true },
  { name: 'endpoints differ', next: model({ '/': 'default-app-80' }, [backend('default-app-80', ['127.0.9.9'])]), same: true },
  { name: 'the algorithm differs', next: model({ '/': 'default-app-80' }, [backend('default-app-80', ['127.0.1.1', '127.0.1.2'], 'ewma')]), same: true },
  { name: 'the ConfigMap\'s load-balance differs', next: { ...base, settings: { ...settings, loadBalance: { algorithm: 'ewma' } } }, same: true },
  { name: 'certificates differ', next: { ...base, tls: { certificates: [], hosts: [{ host: 'a.test', certificate: 'x' }], defaultCertificate: 'x' } }, same: true },
  { name: 'a backend field nginx.conf uses differs', next: renamed, same: false },
  { name: 'one more backend', next: two, same: false },
  { name: 'a location differs', next: model({ '/app': 'default-app-80' }, [...base.backends]), same: false },
  { name: 'settings differ', next: { ...base, settings: { ...settings, tls: { ...settings.tls, redirectCode: 301 } } }, same: false },
];
for (const row of staticRows) {
  test(`sameStaticPart agrees with comparing staticPart copies: ${row.name}`, () => {
    assert.equal(sameStaticPart(base, row.next), row.same);
    assert.equal(deepEqual(staticPart(base), staticPart(row.next)), row.same);
  });
}
