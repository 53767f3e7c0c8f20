// createModelBuilder keeps per-Ingress translations and per-Service-port
// endpoints between builds, keyed by object identity. These tests hold it to
// two promises: every build equals a fresh buildModel() of the same snapshot,
// whatever came before; and it really reuses (same objects out) exactly when
// the objects in are the same.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { buildModel, createModelBuilder } from './build.ts';
import { ann, deepFreeze, ingress, options, path, rule, service, slice, snapshot, svc } from './testdata/fixtures.ts';
import { configOf, findBackend, findLocation } from './testdata/inspect.ts';
import { testCertificate, tlsSecret, withTls } from './testdata/tls-fixtures.ts';
import type { BuildOptions, Snapshot } from './types.ts';

const CONFIG_MAP = 'ingress/resty-ingress';

function configMap(data: Record<string, string>): V1ConfigMap {
  return deepFreeze({ metadata: { namespace: 'ingress', name: 'resty-ingress' }, data });
}

const web = deepFreeze(service('web', [{ port: 80 }]));
const webSlice = deepFreeze(slice('web-1', 'web', [{ port: 8080 }], [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2'] }]));
const app = deepFreeze(ingress('app', { rules: [rule('app.example', path('/', svc('web', 80)))] }));
const docs = deepFreeze(ingress('docs', {
  annotations: { [ann('proxy-body-size')]: '2m' },
  rules: [rule('docs.example', path('/docs', svc('web', 80)))],
}));
const bad = deepFreeze(ingress('bad', { annotations: { [ann('load-balance')]: 'ewma; evil' }, rules: [rule('bad.example', path('/', svc('web', 80)))] }));
/** Served with the default body size and a warning (ingress-nginx ignores the invalid value too). */
const lenient = deepFreeze(ingress('lenient', { annotations: { [ann('proxy-body-size')]: '1m; evil' }, rules: [rule('lenient.example', path('/', svc('web', 80)))] }));
const base: Snapshot = deepFreeze(snapshot({ ingresses: [app, docs, bad, lenient], services: [web], endpointSlices: [webSlice] }));
const EXPIRY = Date.UTC(2030, 0, 1);
const expiring = testCertificate(['app.example'], { notBefore: new Date(Date.UTC(2020, 0, 1)), notAfter: new Date(EXPIRY) });
const withCertificate: Snapshot = deepFreeze({
  ...base,
  ingresses: [withTls(app, [{ hosts: ['app.example'], secretName: 'app-tls' }]), docs, bad],
  secrets: [tlsSecret('app-tls', expiring)],
});

/** A build step: the snapshot and options the builder gets next. */
interface Step {
  readonly snapshot: Snapshot;
  readonly options?: BuildOptions;
}

const rows: { name: string; steps: Step[] }[] = [
  { name: 'the same snapshot twice', steps: [{ snapshot: base }, { snapshot: base }] },
  {
    name: 'an Ingress replaced by an edited copy (new path)',
    steps: [{ snapshot: base }, {
      snapshot: deepFreeze({ ...base, ingresses: [deepFreeze(ingress('app', { rules: [rule('app.example', path('/v2', svc('web', 80)))] })), docs, bad] }),
    }],
  },
  { name: 'an Ingress deleted, then back', steps: [{ snapshot: base }, { snapshot: deepFreeze({ ...base, ingresses: [docs, bad] }) }, { snapshot: base }] },
  {
    name: 'the ConfigMap changes an annotation default',
    steps: [
      { snapshot: base, options: options({ configMap: CONFIG_MAP }) },
      { snapshot: deepFreeze({ ...base, configMaps: [configMap({ 'proxy-body-size': '8m', 'ssl-redirect': 'false' })] }), options: options({ configMap: CONFIG_MAP }) },
      { snapshot: base, options: options({ configMap: CONFIG_MAP }) },
    ],
  },
  {
    name: 'the annotation prefix changes between builds',
    steps: [{ snapshot: base }, { snapshot: base, options: options({ annotationsPrefix: 'example.com' }) }, { snapshot: base }],
  },
  {
    name: 'an EndpointSlice replaced (one endpoint not ready)',
    steps: [{ snapshot: base }, {
      snapshot: deepFreeze({ ...base, endpointSlices: [deepFreeze(slice('web-1', 'web', [{ port: 8080 }], [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2'], ready: false }]))] }),
    }],
  },
  {
    name: 'a second slice for the same Service',
    steps: [{ snapshot: base }, {
      snapshot: deepFreeze({ ...base, endpointSlices: [webSlice, deepFreeze(slice('web-2', 'web', [{ port: 8080 }], [{ addresses: ['10.0.0.3'] }]))] }),
    }],
  },
  {
    name: 'the Service replaced (its port renumbered, the Ingress now misses it)',
    steps: [{ snapshot: base }, { snapshot: deepFreeze({ ...base, services: [deepFreeze(service('web', [{ port: 81 }]))] }) }, { snapshot: base }],
  },
  {
    name: 'the same snapshot under another ingress class (nothing is ours any more)',
    steps: [{ snapshot: base }, { snapshot: base, options: options({ controllerClass: 'example.com/other' }) }, { snapshot: base }],
  },
  {
    name: 'the same snapshot while the clock passes a certificate\'s expiry',
    steps: [{ snapshot: withCertificate, options: options({ now: EXPIRY - 1000 }) }, { snapshot: withCertificate, options: options({ now: EXPIRY + 1000 }) }],
  },
];

void describe('createModelBuilder: every build equals a fresh buildModel', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const builder = createModelBuilder();
      row.steps.forEach((step, i) => {
        const opts = step.options ?? options();
        assert.deepEqual(builder.build(step.snapshot, opts), buildModel(step.snapshot, opts), `step ${i + 1}`);
      });
    });
  }
});

void describe('createModelBuilder: reuses exactly what did not change', () => {
  void it('an unchanged Ingress gives the same Location object; an edited one a new Location', () => {
    const builder = createModelBuilder();
    const first = builder.build(base, options());
    const edited = deepFreeze(ingress('docs', { annotations: { [ann('proxy-body-size')]: '3m' }, rules: [rule('docs.example', path('/docs', svc('web', 80)))] }));
    const second = builder.build(deepFreeze({ ...base, ingresses: [app, edited, bad] }), options());
    assert.equal(findLocation(second, 'app.example', '/'), findLocation(first, 'app.example', '/'));
    assert.notEqual(findLocation(second, 'docs.example', '/docs'), findLocation(first, 'docs.example', '/docs'));
    assert.equal(configOf(second, findLocation(second, 'docs.example', '/docs'), 'proxy')?.bodySize, '3m');
  });

  void it('a ConfigMap change is seen by unchanged Ingresses (their translations are dropped)', () => {
    const builder = createModelBuilder();
    const opts = options({ configMap: CONFIG_MAP });
    const first = builder.build(base, opts);
    const second = builder.build(deepFreeze({ ...base, configMaps: [configMap({ 'proxy-body-size': '8m' })] }), opts);
    assert.equal(configOf(first, findLocation(first, 'app.example', '/'), 'proxy')?.bodySize, '1m');
    assert.equal(configOf(second, findLocation(second, 'app.example', '/'), 'proxy')?.bodySize, '8m');
    // An annotation still beats the default.
    assert.equal(configOf(second, findLocation(second, 'docs.example', '/docs'), 'proxy')?.bodySize, '2m');
  });

  void it('unchanged slices give the same endpoints array; a replaced slice a new one', () => {
    const builder = createModelBuilder();
    const first = builder.build(base, options());
    const again = builder.build(deepFreeze({ ...base, ingresses: [app, docs] }), options());
    assert.equal(findBackend(again, 'default-web-80')?.endpoints, findBackend(first, 'default-web-80')?.endpoints);
    const moved = deepFreeze(slice('web-1', 'web', [{ port: 8080 }], [{ addresses: ['10.0.0.9'] }]));
    const third = builder.build(deepFreeze({ ...base, endpointSlices: [moved] }), options());
    assert.deepEqual(findBackend(third, 'default-web-80')?.endpoints, [{ address: '10.0.0.9', port: 8080 }]);
  });

  void it('an endpoint change keeps the servers and every Backend whose slices did not move; only the moved one is new', () => {
    const api = deepFreeze(service('api', [{ port: 80 }]));
    const apiSlice = deepFreeze(slice('api-1', 'api', [{ port: 9090 }], [{ addresses: ['10.0.1.1'] }]));
    const apiIngress = deepFreeze(ingress('api', { rules: [rule('api.example', path('/', svc('api', 80)))] }));
    const two = deepFreeze({ ...base, ingresses: [app, docs, bad, apiIngress], services: [api, web], endpointSlices: [apiSlice, webSlice] });
    const builder = createModelBuilder();
    const first = builder.build(two, options());
    const moved = deepFreeze(slice('web-1', 'web', [{ port: 8080 }], [{ addresses: ['10.0.0.9'] }]));
    const second = builder.build(deepFreeze({ ...two, endpointSlices: [apiSlice, moved] }), options({ now: 1 }));
    assert.equal(second.model.servers, first.model.servers);
    assert.equal(findBackend(second, 'default-api-80'), findBackend(first, 'default-api-80'));
    assert.notEqual(findBackend(second, 'default-web-80'), findBackend(first, 'default-web-80'));
    assert.deepEqual(findBackend(second, 'default-web-80')?.endpoints, [{ address: '10.0.0.9', port: 8080 }]);
    // A Service replaced (same spec) is a new object: the routing is made again.
    const third = builder.build(deepFreeze({ ...two, services: [deepFreeze(service('api', [{ port: 80 }])), web], endpointSlices: [apiSlice, moved] }), options());
    assert.notEqual(third.model.servers, first.model.servers);
    assert.deepEqual(third.model.servers, first.model.servers);
  });

  void it('a refused Ingress and an ignored annotation are reported on every build, not only the first', () => {
    const builder = createModelBuilder();
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(builder.build(base, options()).failures.map((f) => `${f.reason} ${f.ingress?.name}`), ['InvalidAnnotation bad', 'IgnoredInvalidAnnotation lenient']);
    }
  });
});
