// The backends of custom errors and default-backend, resolved by the builder
// (custom-error-backends.ts): the annotation's Service (first port, in the
// Ingress's namespace) on the Ingress's policy, --default-backend-service on
// Model.settings when some error pages go to it; both claimed, so Lua gets
// their endpoints. A Service that cannot be used is a warning (ingress-nginx
// logs it and serves the Ingress without the annotation).
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { buildModel } from './build.ts';
import { ann, configMap, deepFreeze, ingress, options, path, rule, service, slice, snapshot, svc } from './testdata/fixtures.ts';
import type { BuildResult, CustomErrorsConfig, Snapshot } from './types.ts';

const SERVICES = [
  service('app', [{ port: 80 }]),
  service('errors', [{ port: 8080, name: 'http' }, { port: 9090 }]),
  service('global-errors', [{ port: 80 }], 'ingress'),
  service('external', [{ port: 80 }], 'default', 'ExternalName'),
  service('portless', []),
  service('errors', [{ port: 80 }], 'other'),
];

function build(annotations: Record<string, string>, opts: { data?: Record<string, string>; global?: boolean; extra?: Partial<Snapshot> } = {}): BuildResult {
  const app = ingress('app', {
    annotations: Object.fromEntries(Object.entries(annotations).map(([key, value]) => [ann(key), value])),
    rules: [rule('app.test', path('/', svc('app', 80)), path('/api', svc('app', 80)))],
  });
  return buildModel(deepFreeze(snapshot({
    ingresses: [app], services: SERVICES, configMaps: [configMap(opts.data ?? {})], ...opts.extra,
  })), options({ defaultBackendService: opts.global === false ? null : 'ingress/global-errors', configMap: 'ingress/resty-ingress' }));
}

function policyOf(result: BuildResult): (CustomErrorsConfig | undefined)[] {
  const server = result.model.servers.find((s) => s.hostname === 'app.test');
  return server?.locations.map((location) => location.policy.customErrors) ?? [];
}

function backendNames(result: BuildResult): string[] {
  return result.model.backends.map((backend) => backend.name);
}

const rows: {
  name: string; annotations: Record<string, string>; data?: Record<string, string>; global?: boolean;
  /** customErrors.backend of each app.test location (undefined: no config of its own). */
  locations: (string | null | undefined)[];
  /** Model.settings.customErrors.backend. */
  settings: string | null;
  backends: string[];
  failures?: string[];
}[] = [
  {
    name: 'default-backend: its first port on every path, claimed', annotations: { 'default-backend': 'errors' },
    locations: ['default-errors-8080', 'default-errors-8080'], settings: null,
    backends: ['default-app-80', 'default-errors-8080', 'ingress-global-errors-80'],
  },
  {
    name: 'custom-http-errors without default-backend: the global default backend takes the errors',
    annotations: { 'custom-http-errors': '404' }, locations: [null, null], settings: 'ingress-global-errors-80',
    backends: ['default-app-80', 'ingress-global-errors-80'],
  },
  {
    name: 'custom-http-errors with default-backend: the global one is filled in too (its pages go there while the Service has no endpoints)',
    annotations: { 'custom-http-errors': '404', 'default-backend': 'errors' }, locations: ['default-errors-8080', 'default-errors-8080'], settings: 'ingress-global-errors-80',
    backends: ['default-app-80', 'default-errors-8080', 'ingress-global-errors-80'],
  },
  {
    name: 'ConfigMap codes: the global default backend is filled in', annotations: {}, data: { 'custom-http-errors': '503' },
    locations: [undefined, undefined], settings: 'ingress-global-errors-80', backends: ['default-app-80', 'ingress-global-errors-80'],
  },
  {
    name: 'ConfigMap codes without --default-backend-service: NGINX answers 404 (nothing to fill in)', annotations: {},
    data: { 'custom-http-errors': '503' }, global: false, locations: [undefined, undefined], settings: null, backends: ['default-app-80'],
  },
  {
    name: 'no error pages: the global default backend is not filled in', annotations: { 'disable-proxy-intercept-errors': 'true' },
    locations: [null, null], settings: null, backends: ['default-app-80', 'ingress-global-errors-80'],
  },
  {
    name: 'a Service that does not exist: a warning, served without it', annotations: { 'default-backend': 'missing', 'custom-http-errors': '404' },
    locations: [null, null], settings: 'ingress-global-errors-80', backends: ['default-app-80', 'ingress-global-errors-80'],
    failures: [`DefaultBackendUnusable metadata.annotations[${ann('default-backend')}] (warning)`],
  },
  {
    name: 'an ExternalName Service: a warning', annotations: { 'default-backend': 'external' }, locations: [null, null], settings: null,
    backends: ['default-app-80', 'ingress-global-errors-80'], failures: [`DefaultBackendUnusable metadata.annotations[${ann('default-backend')}] (warning)`],
  },
  {
    name: 'a Service without ports: a warning', annotations: { 'default-backend': 'portless' }, locations: [null, null], settings: null,
    backends: ['default-app-80', 'ingress-global-errors-80'], failures: [`DefaultBackendUnusable metadata.annotations[${ann('default-backend')}] (warning)`],
  },
  {
    name: 'the global default backend Service named in the annotation is looked up in the Ingress\'s namespace', annotations: { 'default-backend': 'global-errors' },
    locations: [null, null], settings: null, backends: ['default-app-80', 'ingress-global-errors-80'],
    failures: [`DefaultBackendUnusable metadata.annotations[${ann('default-backend')}] (warning)`],
  },
];

void describe('custom error backends', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const result = build(row.annotations, { data: row.data, global: row.global });
      assert.deepEqual(policyOf(result).map((config) => config?.backend), row.locations);
      assert.equal(result.model.settings.customErrors.backend, row.settings);
      assert.deepEqual(backendNames(result), row.backends);
      assert.deepEqual(result.failures.map((f) => `${f.reason} ${f.field}${f.warning === true ? ' (warning)' : ''}`), row.failures ?? []);
    });
  }

  void it('the default backend\'s endpoints reach the model (pushed to Lua, so they change without a reload)', () => {
    const result = build({ 'default-backend': 'errors' }, {
      extra: { endpointSlices: [slice('errors-1', 'errors', [{ name: 'http', port: 8080 }], [{ addresses: ['127.0.0.9'] }])] },
    });
    const errors = result.model.backends.find((backend) => backend.name === 'default-errors-8080');
    assert.deepEqual(errors?.endpoints, [{ address: '127.0.0.9', port: 8080 }]);
  });

  void it('the policy with the resolved backend is one frozen object shared by the Ingress\'s paths', () => {
    const [first, second] = build({ 'default-backend': 'errors' }).model.servers.find((s) => s.hostname === 'app.test')?.locations ?? [];
    assert.ok(first && second);
    assert.equal(first.policy, second.policy);
    assert.ok(Object.isFrozen(first.policy) && Object.isFrozen(first.policy.customErrors));
  });

  void it('spec.defaultBackend locations carry the resolved policy too', () => {
    const app = ingress('app', { annotations: { [ann('default-backend')]: 'errors' }, defaultBackend: svc('app', 80) });
    const { model } = buildModel(deepFreeze(snapshot({ ingresses: [app], services: SERVICES })), options());
    const root = model.servers.find((s) => s.hostname === '_')?.locations.find((location) => location.path === '/');
    assert.equal(root?.policy.customErrors?.backend, 'default-errors-8080');
  });
});
