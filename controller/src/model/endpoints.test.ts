import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1EndpointSlice, V1IngressBackend, V1Service } from '@kubernetes/client-node';
import { buildModel } from './build.ts';
import { ingress, options, path, rule, service, slice, snapshot, svc } from './testdata/fixtures.ts';
import { failuresWith, findBackend, findLocation, targetOf } from './testdata/inspect.ts';

interface EndpointRow {
  readonly name: string;
  readonly backend: V1IngressBackend;
  readonly services: V1Service[];
  readonly slices: V1EndpointSlice[];
  /** `address:port` in model order. */
  readonly want: string[];
  readonly failure?: string;
}

const named = service('web', [{ port: 80, name: 'http', targetPort: 'web' }, { port: 9090, name: 'metrics', targetPort: 9090 }]);

const rows: EndpointRow[] = [
  {
    name: 'unnamed single port by number',
    backend: svc('web', 80),
    services: [service('web', [{ port: 80, targetPort: 8080 }])],
    slices: [slice('web-1', 'web', [{ port: 8080 }], [{ addresses: ['10.0.0.1'] }])],
    want: ['10.0.0.1:8080'],
  },
  {
    name: 'named target port resolved through the slice port name',
    backend: svc('web', 80),
    services: [named],
    slices: [slice('web-1', 'web', [{ name: 'http', port: 8080 }, { name: 'metrics', port: 9090 }], [{ addresses: ['10.0.0.1'] }])],
    want: ['10.0.0.1:8080'],
  },
  {
    name: 'service port referenced by name',
    backend: svc('web', 'metrics'),
    services: [named],
    slices: [slice('web-1', 'web', [{ name: 'http', port: 8080 }, { name: 'metrics', port: 9090 }], [{ addresses: ['10.0.0.1'] }])],
    want: ['10.0.0.1:9090'],
  },
  {
    name: 'ready filtering: ready false dropped, absent condition kept',
    backend: svc('web', 80),
    services: [named],
    slices: [slice('web-1', 'web', [{ name: 'http', port: 8080 }], [
      { addresses: ['10.0.0.1'], ready: true }, { addresses: ['10.0.0.2'], ready: false }, { addresses: ['10.0.0.3'] },
    ])],
    want: ['10.0.0.1:8080', '10.0.0.3:8080'],
  },
  {
    name: 'deduplicated across slices and sorted by address then port',
    backend: svc('web', 80),
    services: [named],
    slices: [
      slice('web-b', 'web', [{ name: 'http', port: 8080 }], [{ addresses: ['10.0.0.9'] }, { addresses: ['10.0.0.1'] }]),
      slice('web-a', 'web', [{ name: 'http', port: 8080 }], [{ addresses: ['10.0.0.1'] }]),
      // Mid-rollout the container port can differ between slices: same address, both ports kept.
      slice('web-c', 'web', [{ name: 'http', port: 8081 }], [{ addresses: ['10.0.0.1'] }]),
    ],
    want: ['10.0.0.1:8080', '10.0.0.1:8081', '10.0.0.9:8080'],
  },
  {
    name: 'IPv6 kept, FQDN slices and non-IP addresses dropped',
    backend: svc('web', 80),
    services: [named],
    slices: [
      slice('web-6', 'web', [{ name: 'http', port: 8080 }], [{ addresses: ['FD00::1'] }, { addresses: ['fe80::1%eth0'] }], 'default', 'IPv6'),
      slice('web-f', 'web', [{ name: 'http', port: 8080 }], [{ addresses: ['pod.example.com'] }], 'default', 'FQDN'),
      slice('web-4', 'web', [{ name: 'http', port: 8080 }], [{ addresses: ['not-an-ip', '10.0.0.1'] }]),
    ],
    want: ['10.0.0.1:8080', 'fd00::1:8080'],
  },
  {
    name: 'slices of other services and namespaces ignored',
    backend: svc('web', 80),
    services: [named],
    slices: [
      slice('api-1', 'api', [{ name: 'http', port: 8080 }], [{ addresses: ['10.0.1.1'] }]),
      slice('web-x', 'web', [{ name: 'http', port: 8080 }], [{ addresses: ['10.0.2.1'] }], 'other'),
    ],
    want: [],
  },
  {
    name: 'no ready endpoints is normal (no failure)',
    backend: svc('web', 80),
    services: [named],
    slices: [slice('web-1', 'web', [{ name: 'http', port: 8080 }], [{ addresses: ['10.0.0.1'], ready: false }])],
    want: [],
  },
  { name: 'missing Service', backend: svc('web', 80), services: [], slices: [], want: [], failure: 'ServiceNotFound' },
  { name: 'missing Service port', backend: svc('web', 81), services: [named], slices: [], want: [], failure: 'ServicePortNotFound' },
  {
    name: 'ExternalName Service',
    backend: svc('web', 80),
    services: [service('web', [{ port: 80 }], 'default', 'ExternalName')],
    slices: [],
    want: [],
    failure: 'UnsupportedServiceType',
  },
];

void describe('endpoints', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const result = buildModel(snapshot({
        ingresses: [ingress('app', { rules: [rule('h.example', path('/', row.backend))] })],
        services: row.services,
        endpointSlices: row.slices,
      }), options());
      const port = row.backend.service?.port?.number ?? row.backend.service?.port?.name;
      const name = `default-web-${port}`;
      // The location routes to the backend even when it has no endpoints: Lua answers 503.
      assert.equal(targetOf(findLocation(result, 'h.example', '/')), `backend:${name}`);
      const backend = findBackend(result, name);
      assert.deepEqual(backend?.endpoints.map((endpoint) => `${endpoint.address}:${endpoint.port}`), row.want);
      const reasons = result.failures.map((failure) => failure.reason);
      assert.deepEqual(reasons, row.failure ? [row.failure] : []);
      if (row.failure) {
        const [failure] = failuresWith(result, row.failure);
        assert.deepEqual(failure?.ingress, { namespace: 'default', name: 'app' });
        assert.equal(failure?.field, 'spec.rules[0].http.paths[0].backend.service.name');
      }
    });
  }

  void it('one ServiceNotFound per Ingress, not per path', () => {
    const result = buildModel(snapshot({
      ingresses: [ingress('app', { rules: [rule('h.example', path('/a', svc('gone', 80)), path('/b', svc('gone', 80)))] })],
    }), options());
    assert.equal(failuresWith(result, 'ServiceNotFound').length, 1);
    assert.deepEqual(findBackend(result, 'default-gone-80')?.endpoints, []);
  });
});
