import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1Ingress, V1Service } from '@kubernetes/client-node';
import { buildModel } from './build.ts';
import { ingress, options, path, rule, service, snapshot, svc } from './testdata/fixtures.ts';
import { configOf, findLocation, hostnames, targetOf } from './testdata/inspect.ts';
import type { BuildOptions } from './types.ts';

interface DefaultRow {
  readonly name: string;
  readonly ingresses: V1Ingress[];
  readonly services?: V1Service[];
  readonly opts?: Partial<BuildOptions>;
  /** host → expected target of its `/` prefix location. */
  readonly roots: Record<string, string>;
  /** Expected failure reasons, in order. */
  readonly failures?: string[];
}

const services = [service('web', [{ port: 80 }]), service('fallback', [{ port: 8080 }, { port: 9090 }], 'system'), service('db', [{ port: 81 }])];

const rows: DefaultRow[] = [
  {
    name: 'no defaults anywhere: every server gets not-found',
    ingresses: [ingress('a', { rules: [rule('h.example', path('/app', svc('web', 80)))] })],
    roots: { '_': 'not-found', 'h.example': 'not-found' },
  },
  {
    name: 'catch-all is present even with no Ingress',
    ingresses: [],
    roots: { '_': 'not-found' },
  },
  {
    name: '--default-backend-service: first port, every server without /',
    ingresses: [ingress('a', { rules: [rule('h.example', path('/app', svc('web', 80)))] })],
    opts: { defaultBackendService: 'system/fallback' },
    roots: { '_': 'backend:system-fallback-8080', 'h.example': 'backend:system-fallback-8080' },
  },
  {
    name: 'a rule path / keeps its own target',
    ingresses: [ingress('a', { rules: [rule('h.example', path('/', svc('web', 80)))] })],
    opts: { defaultBackendService: 'system/fallback' },
    roots: { '_': 'backend:system-fallback-8080', 'h.example': 'backend:default-web-80' },
  },
  {
    name: 'spec.defaultBackend: catch-all and the Ingress own hosts',
    ingresses: [
      ingress('a', { defaultBackend: svc('web', 80), rules: [rule('h.example', path('/app', svc('web', 80)))] }),
      ingress('b', { created: '2024-02-01T00:00:00Z', rules: [rule('other.example', path('/x', svc('web', 80)))] }),
    ],
    opts: { defaultBackendService: 'system/fallback' },
    roots: { '_': 'backend:default-web-80', 'h.example': 'backend:default-web-80', 'other.example': 'backend:system-fallback-8080' },
  },
  {
    name: 'spec.defaultBackend: the oldest Ingress takes the catch-all',
    ingresses: [
      ingress('newer', { created: '2024-03-01T00:00:00Z', defaultBackend: svc('db', 81) }),
      ingress('older', { created: '2024-01-01T00:00:00Z', defaultBackend: svc('web', 80) }),
    ],
    roots: { '_': 'backend:default-web-80' },
  },
  {
    name: 'spec.defaultBackend does not replace a / rule of the host (even a newer one)',
    ingresses: [
      ingress('old', { created: '2024-01-01T00:00:00Z', defaultBackend: svc('db', 81), rules: [rule('h.example', path('/app', svc('web', 80)))] }),
      ingress('new', { created: '2024-02-01T00:00:00Z', rules: [rule('h.example', path('/', svc('web', 80)))] }),
    ],
    roots: { '_': 'backend:default-db-81', 'h.example': 'backend:default-web-80' },
  },
  {
    name: 'a host rule with no paths still gets a server',
    ingresses: [ingress('a', { rules: [{ host: 'empty.example' }] })],
    roots: { '_': 'not-found', 'empty.example': 'not-found' },
  },
  {
    name: 'bad --default-backend-service value: failure without Ingress, 404',
    ingresses: [],
    opts: { defaultBackendService: 'no-slash' },
    roots: { '_': 'not-found' },
    failures: ['InvalidDefaultBackend'],
  },
  {
    name: 'hostile --default-backend-service value',
    ingresses: [],
    opts: { defaultBackendService: 'ns/a;b\n' },
    roots: { '_': 'not-found' },
    failures: ['InvalidDefaultBackend'],
  },
  {
    name: 'missing --default-backend-service Service: failure, 404',
    ingresses: [],
    opts: { defaultBackendService: 'system/missing' },
    roots: { '_': 'not-found' },
    failures: ['ServiceNotFound'],
  },
  {
    name: 'invalid spec.defaultBackend: failure, routes unaffected',
    ingresses: [ingress('a', { defaultBackend: { service: { name: 'Bad_Name', port: { number: 80 } } } })],
    roots: { '_': 'not-found' },
    failures: ['InvalidBackend'],
  },
];

void describe('default backends', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const result = buildModel(snapshot({ ingresses: row.ingresses, services: row.services ?? services }), options(row.opts));
      assert.deepEqual(hostnames(result), Object.keys(row.roots));
      for (const [host, want] of Object.entries(row.roots)) {
        assert.equal(targetOf(findLocation(result, host, '/', 'prefix')), want, host);
      }
      assert.deepEqual(result.failures.map((failure) => failure.reason), row.failures ?? []);
      for (const failure of result.failures) {
        if (failure.reason !== 'InvalidBackend') assert.equal(failure.ingress, null);
        assert.doesNotMatch(failure.message, /\n/);
      }
    });
  }

  void it('generated locations carry no Ingress, default proxy settings and no rewrite', () => {
    const result = buildModel(snapshot({ services }), options({ defaultBackendService: 'system/fallback' }));
    const root = findLocation(result, '_', '/');
    assert.equal(root?.ingress, null);
    assert.deepEqual(root?.policy, {});
    assert.equal(configOf(result, root, 'rewrite')?.target, null);
    assert.deepEqual(configOf(result, root, 'proxy'), { bodySize: '1m', connectTimeout: 5, readTimeout: 60, sendTimeout: 60 });
    assert.deepEqual(result.model.backends.map((backend) => backend.name), ['system-fallback-8080']);
  });
});
