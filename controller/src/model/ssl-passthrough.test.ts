// ssl-passthrough decided over every Ingress (model/ssl-passthrough.ts), as ingress-nginx
// v1.15.1's getConfiguration / createServers: the host's `/` location (a `/` rule, else
// spec.defaultBackend) gives the backend, the global default does not; other paths are
// reported; the oldest Ingress of a host decides (a younger one that disagrees is told);
// without --enable-ssl-passthrough the annotation is reported and nothing is passthrough;
// wildcard and host-less rules cannot be; the endpoints are the backend's, in the model; plain
// HTTP proxied to a passthrough backend speaks TLS.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1Ingress } from '@kubernetes/client-node';
import { buildModel } from './build.ts';
import { DEFAULT_SETTINGS } from './features/parse.ts';
import { passthroughClientAddress } from './ssl-passthrough.ts';
import { ann, configMap, ingress, options, path, rule, service, slice, snapshot, svc } from './testdata/fixtures.ts';
import type { BuildResult, GlobalSettings } from './types.ts';

const PASS = { [ann('ssl-passthrough')]: 'true' };
const tls = service('tls', [{ port: 443, name: 'https' }]);
const web = service('web', [{ port: 80, name: 'http' }]);
const tlsSlice = slice('tls-1', 'tls', [{ name: 'https', port: 8443 }], [{ addresses: ['10.0.0.2'] }, { addresses: ['10.0.0.1'] }]);

function build(ingresses: V1Ingress[], enabled = true): BuildResult {
  return buildModel(snapshot({ ingresses, services: [tls, web], endpointSlices: [tlsSlice] }), options({ enableSslPassthrough: enabled }));
}

function hosts(result: BuildResult): string[] {
  return (result.model.sslPassthrough ?? []).map((host) => `${host.hostname} → ${host.namespace}/${host.service}:${host.servicePort} by ${host.ingress.name}`);
}

function reported(result: BuildResult): string[] {
  return result.failures.filter((failure) => failure.reason.startsWith('SslPassthrough')).map((failure) => `${failure.reason} ${failure.ingress?.name ?? '-'}`);
}

const created = (day: number): string => `2024-01-${String(day).padStart(2, '0')}T00:00:00Z`;

void describe('ssl-passthrough over the cluster', () => {
  const rows: { name: string; ingresses: V1Ingress[]; enabled?: boolean; want: string[]; failures: string[] }[] = [
    {
      name: 'a `/` rule: its backend, the only one that matters',
      ingresses: [ingress('p', { annotations: PASS, rules: [rule('pass.test', path('/', svc('tls', 443)))] })],
      want: ['pass.test → default/tls:443 by p'], failures: [],
    },
    {
      name: 'no `/` rule: spec.defaultBackend gives it',
      ingresses: [ingress('p', { annotations: PASS, defaultBackend: svc('tls', 'https'), rules: [rule('pass.test', path('/api', svc('web', 80)))] })],
      want: ['pass.test → default/tls:https by p'], failures: ['SslPassthroughPathsIgnored p'],
    },
    {
      name: 'neither: the global default backend is not a target (ingress-nginx ignores it too)',
      ingresses: [ingress('p', { annotations: PASS, rules: [rule('pass.test', path('/api', svc('tls', 443)))] })],
      want: [], failures: ['SslPassthroughNoBackend p'],
    },
    {
      name: 'the flag off: reported, nothing is passthrough',
      ingresses: [ingress('p', { annotations: PASS, rules: [rule('pass.test', path('/', svc('tls', 443)))] })],
      enabled: false, want: [], failures: ['SslPassthroughDisabled p'],
    },
    {
      name: 'the flag on, no annotation: nothing is passthrough, nothing said',
      ingresses: [ingress('p', { rules: [rule('pass.test', path('/', svc('tls', 443)))] })],
      want: [], failures: [],
    },
    {
      name: 'the older Ingress of the host is passthrough: a younger one without it is told its paths get no TLS',
      ingresses: [
        ingress('old', { created: created(1), annotations: PASS, rules: [rule('pass.test', path('/', svc('tls', 443)))] }),
        ingress('young', { created: created(2), rules: [rule('pass.test', path('/shop', svc('web', 80)))] }),
      ],
      want: ['pass.test → default/tls:443 by old'], failures: ['SslPassthroughConflict young', 'SslPassthroughPathsIgnored old'],
    },
    {
      name: 'the older Ingress of the host is not: a younger passthrough one is ignored for it, with a Warning',
      ingresses: [
        ingress('old', { created: created(1), rules: [rule('pass.test', path('/', svc('web', 80)))] }),
        ingress('young', { created: created(2), annotations: PASS, rules: [rule('pass.test', path('/tls', svc('tls', 443)))] }),
      ],
      want: [], failures: ['SslPassthroughConflict young'],
    },
    {
      name: 'the `/` of another Ingress of the host is the target (placement is oldest-wins already)',
      ingresses: [
        ingress('old', { created: created(1), annotations: PASS, rules: [rule('pass.test', path('/', svc('tls', 443)))] }),
        ingress('young', { created: created(2), annotations: PASS, rules: [rule('pass.test', path('/', svc('web', 80)))] }),
      ],
      want: ['pass.test → default/tls:443 by old'], failures: [],
    },
    {
      name: 'a wildcard host and a rule without host cannot be passthrough (SNI is matched exactly)',
      ingresses: [ingress('p', { annotations: PASS, rules: [rule('*.pass.test', path('/', svc('tls', 443))), rule('', path('/', svc('tls', 443))), rule('a.test', path('/', svc('tls', 443)))] })],
      want: ['a.test → default/tls:443 by p'], failures: ['SslPassthroughNeedsHost p', 'SslPassthroughNeedsHost p'],
    },
    {
      name: 'a canary Ingress makes nothing passthrough',
      ingresses: [
        ingress('main', { created: created(1), rules: [rule('pass.test', path('/', svc('web', 80)))] }),
        ingress('canary', { created: created(2), annotations: { ...PASS, [ann('canary')]: 'true', [ann('canary-weight')]: '10' }, rules: [rule('pass.test', path('/', svc('tls', 443)))] }),
      ],
      want: [], failures: [],
    },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const result = build(row.ingresses, row.enabled ?? true);
      assert.deepEqual(hosts(result), row.want);
      assert.deepEqual(reported(result).sort(), [...row.failures].sort());
      assert.ok(result.failures.filter((failure) => failure.reason.startsWith('SslPassthrough')).every((failure) => failure.warning === true), 'warnings, never a refusal');
    });
  }

  void it('the endpoints are the backend\'s ready ones, sorted, and the host keeps its HTTP server', () => {
    const result = build([ingress('p', { annotations: PASS, rules: [rule('pass.test', path('/', svc('tls', 443)))] })]);
    assert.deepEqual(result.model.sslPassthrough?.[0]?.endpoints, [{ address: '10.0.0.1', port: 8443 }, { address: '10.0.0.2', port: 8443 }]);
    assert.ok(result.model.servers.some((server) => server.hostname === 'pass.test'), 'plain HTTP to the host is still served');
  });

  void it('a TCP service on the HTTPS port is still refused: the SNI router owns it', () => {
    const snap = snapshot({ services: [tls], endpointSlices: [tlsSlice], configMaps: [configMap({ '8443': 'default/tls:443' }, 'tcp-services', 'ingress')] });
    const result = buildModel(snap, options({ enableSslPassthrough: true, tcpServicesConfigMap: 'ingress/tcp-services', reservedPorts: [{ port: 8443, flag: '--https-port' }] }));
    assert.equal(result.model.streams, undefined);
    assert.ok(result.failures.some((failure) => failure.reason === 'ReservedStreamPort'));
  });

  void it('plain HTTP proxied to a passthrough backend speaks TLS (ingress-nginx\'s https:// / grpcs://), other backends as before', () => {
    const result = build([
      ingress('p', { created: created(1), annotations: PASS, rules: [rule('pass.test', path('/', svc('tls', 443)), path('/web', svc('web', 80)))] }),
      ingress('g', { created: created(2), annotations: { [ann('backend-protocol')]: 'GRPC' }, rules: [rule('grpc.test', path('/', svc('tls', 443)))] }),
      ingress('f', { created: created(3), annotations: { [ann('backend-protocol')]: 'FCGI' }, rules: [rule('fcgi.test', path('/', svc('tls', 443)))] }),
    ]);
    const protocols = result.model.servers.flatMap((server) => server.locations.filter((location) => location.ingress !== null)
      .map((location) => `${server.hostname}${location.path} ${location.policy.backendProtocol?.protocol ?? '-'}`));
    assert.deepEqual(protocols.sort(), ['fcgi.test/ FCGI', 'grpc.test/ GRPCS', 'pass.test/ HTTPS', 'pass.test/web -']);
  });

  void it('no passthrough host: the model has no sslPassthrough field', () => {
    assert.equal('sslPassthrough' in build([ingress('w', { rules: [rule('web.test', path('/', svc('web', 80)))] })]).model, false);
  });
});

void describe('ssl-passthrough and the client address', () => {
  const settings = (changes: Partial<GlobalSettings['clientAddress']>): GlobalSettings => ({ ...DEFAULT_SETTINGS, clientAddress: { ...DEFAULT_SETTINGS.clientAddress, ...changes } });
  const rows: { name: string; changes: Partial<GlobalSettings['clientAddress']>; enabled: boolean; dropped: boolean }[] = [
    { name: 'use-forwarded-headers with the flag: dropped, with a Warning', changes: { useForwardedHeaders: true }, enabled: true, dropped: true },
    { name: 'enable-real-ip with the flag: dropped', changes: { enableRealIp: true }, enabled: true, dropped: true },
    { name: 'use-proxy-protocol with the flag: kept (the router reads it and sends the client on)', changes: { useProxyProtocol: true }, enabled: true, dropped: false },
    { name: 'use-forwarded-headers without the flag: kept', changes: { useForwardedHeaders: true }, enabled: false, dropped: false },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const result = passthroughClientAddress(settings(row.changes), row.enabled, 'ingress/resty-ingress');
      assert.equal(result.failures.length, row.dropped ? 1 : 0);
      const address = result.settings.clientAddress;
      assert.equal(address.useForwardedHeaders || address.enableRealIp, !row.dropped && (row.changes.useForwardedHeaders === true || row.changes.enableRealIp === true));
      if (row.dropped) assert.equal(result.failures[0]?.configMap, 'ingress/resty-ingress');
    });
  }

  void it('through buildModel: the ConfigMap\'s use-forwarded-headers is dropped with the flag on', () => {
    const snap = snapshot({ services: [web], configMaps: [configMap({ 'use-forwarded-headers': 'true' })] });
    const result = buildModel(snap, options({ enableSslPassthrough: true, configMap: 'ingress/resty-ingress' }));
    assert.equal(result.model.settings.clientAddress.useForwardedHeaders, false);
    assert.ok(result.failures.some((failure) => failure.reason === 'SslPassthroughRealIp'));
  });
});
