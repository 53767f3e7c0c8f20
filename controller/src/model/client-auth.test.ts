// Client certificates per host (client-auth.ts): the oldest Ingress of a host decides, a
// younger one asking otherwise is warned; the CA bundle is read from ca.crt (only what parses
// as X.509 goes to Lua); a Secret that is missing, elsewhere or without a usable ca.crt
// leaves the host without a CA (Lua answers 403), with a failure on the Ingress.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import type { V1Ingress, V1Secret } from '@kubernetes/client-node';
import { createSelfSignedCertificate } from '../tls/self-signed.ts';
import { buildModel } from './build.ts';
import { claimClientAuth, markClientAuthServers, readCaBundle, resolveClientAuth, type ClientCertClaim } from './client-auth.ts';
import { clientCertsFeature } from './features/client-certs.ts';
import { ann, configMap, ingress, options, path, rule, service, snapshot, svc } from './testdata/fixtures.ts';
import type { ClientCertsConfig, Server } from './types.ts';

const ca = createSelfSignedCertificate({ commonName: 'Test CA' });
const other = createSelfSignedCertificate({ commonName: 'Other CA' });
const b64 = (text: string): string => Buffer.from(text).toString('base64');
const secret = (namespace: string, name: string, data: Record<string, string>): V1Secret => ({ metadata: { namespace, name }, data });
const config = (over: Partial<ClientCertsConfig>): ClientCertsConfig => ({ ...clientCertsFeature.defaults, secret: { namespace: null, name: 'ca' }, ...over });
const claim = (name: string, hosts: string[], over: Partial<ClientCertsConfig> = {}): ClientCertClaim => ({ ref: { namespace: 'shop', name }, hosts, config: config(over) });

void describe('readCaBundle', () => {
  const rows: { name: string; data: Record<string, string>; want: string | RegExp }[] = [
    { name: 'one CA', data: { 'ca.crt': b64(ca.cert) }, want: new X509Certificate(ca.cert).toString() },
    { name: 'two CAs, text around them dropped', data: { 'ca.crt': b64(`# bundle\n${ca.cert}junk\n${other.cert}`) }, want: new X509Certificate(ca.cert).toString() + new X509Certificate(other.cert).toString() },
    { name: 'no ca.crt (a TLS Secret)', data: { 'tls.crt': b64(ca.cert) }, want: /has no ca.crt/ },
    { name: 'empty ca.crt', data: { 'ca.crt': '' }, want: /has no ca.crt/ },
    { name: 'no PEM block', data: { 'ca.crt': b64('not a certificate') }, want: /no PEM certificate/ },
    { name: 'a block that is not X.509', data: { 'ca.crt': b64('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n') }, want: /does not parse/ },
    { name: 'larger than 64 KiB', data: { 'ca.crt': b64(ca.cert.repeat(Math.ceil(70_000 / ca.cert.length))) }, want: /larger than/ },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const read = readCaBundle(secret('shop', 'ca', row.data));
      if (typeof row.want === 'string') assert.deepEqual(read, { pem: row.want });
      else assert.match('reason' in read ? read.reason : 'accepted', row.want);
    });
  }
});

void describe('claimClientAuth: oldest wins per host', () => {
  const rows: { name: string; claims: ClientCertClaim[]; winners: Record<string, string>; warned: string[] }[] = [
    { name: 'one Ingress, two hosts', claims: [claim('a', ['a.test', 'b.test'])], winners: { 'a.test': 'a', 'b.test': 'a' }, warned: [] },
    { name: 'a younger Ingress with other settings is warned', claims: [claim('old', ['a.test']), claim('young', ['a.test'], { verify: 'optional' })], winners: { 'a.test': 'old' }, warned: ['young'] },
    { name: 'a younger Ingress with the same settings is not', claims: [claim('old', ['a.test']), claim('young', ['a.test'])], winners: { 'a.test': 'old' }, warned: [] },
    { name: 'different hosts do not conflict', claims: [claim('a', ['a.test']), claim('b', ['b.test'], { depth: 3 })], winners: { 'a.test': 'a', 'b.test': 'b' }, warned: [] },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const { winners, failures } = claimClientAuth(row.claims);
      assert.deepEqual(Object.fromEntries([...winners].map(([host, w]) => [host, w.ref.name])), row.winners);
      assert.deepEqual(failures.map((f) => f.ingress?.name), row.warned);
      assert.ok(failures.every((f) => f.warning === true && f.reason === 'ClientCertConflict' && f.message.includes('older Ingress shop/old')));
    });
  }
});

void describe('resolveClientAuth and markClientAuthServers', () => {
  const secrets = [secret('shop', 'ca', { 'ca.crt': b64(ca.cert) }), secret('shop', 'tls-only', { 'tls.crt': b64(ca.cert) }), secret('bank', 'ca', { 'ca.crt': b64(ca.cert) })];
  const rows: { name: string; claim: ClientCertClaim; ca: string | null; failure: RegExp | null; allowCrossNamespace?: boolean }[] = [
    { name: 'the Ingress\'s namespace by default', claim: claim('a', ['a.test']), ca: 'shop/ca', failure: null },
    { name: 'namespace/name in the same namespace', claim: claim('a', ['a.test'], { secret: { namespace: 'shop', name: 'ca' } }), ca: 'shop/ca', failure: null },
    { name: 'another namespace: 403', claim: claim('a', ['a.test'], { secret: { namespace: 'bank', name: 'ca' } }), ca: null, failure: /bank\/ca is in another namespace \(allow-cross-namespace-resources is off\); host a.test answers 403/ },
    {
      name: 'another namespace with allow-cross-namespace-resources: read', claim: claim('a', ['a.test'], { secret: { namespace: 'bank', name: 'ca' } }),
      ca: 'bank/ca', failure: null, allowCrossNamespace: true,
    },
    {
      name: 'another namespace with allow-cross-namespace-resources, missing: 403', claim: claim('a', ['a.test'], { secret: { namespace: 'bank', name: 'gone' } }),
      ca: null, failure: /bank\/gone is not found/, allowCrossNamespace: true,
    },
    { name: 'a missing Secret: 403', claim: claim('a', ['a.test'], { secret: { namespace: null, name: 'gone' } }), ca: null, failure: /shop\/gone is not found/ },
    { name: 'a Secret without ca.crt: 403', claim: claim('a', ['a.test'], { secret: { namespace: null, name: 'tls-only' } }), ca: null, failure: /has no ca.crt/ },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const { winners } = claimClientAuth([row.claim]);
      const { state, failures } = resolveClientAuth(winners, secrets, row.allowCrossNamespace);
      assert.deepEqual(state?.hosts.map((h) => h.ca), [row.ca]);
      assert.deepEqual(state?.cas.map((c) => c.id), row.ca === null ? [] : [row.ca]);
      if (row.failure === null) assert.deepEqual(failures, []);
      else assert.match(failures[0]?.message ?? '', row.failure);
    });
  }

  void it('settings travel to the host; the servers of the host are marked with pass-certificate only', () => {
    const { winners } = claimClientAuth([claim('a', ['a.test'], { verify: 'optional_no_ca', depth: 3, matchCn: 'CN=alice', errorPage: 'https://e.test/x', passCertificate: true })]);
    const { state } = resolveClientAuth(winners, secrets);
    assert.deepEqual(state?.hosts, [{ host: 'a.test', ca: 'shop/ca', verify: 'optional_no_ca', depth: 3, matchCn: 'CN=alice', errorPage: 'https://e.test/x' }]);
    const servers: Server[] = [{ hostname: 'a.test', locations: [] }, { hostname: 'b.test', locations: [] }];
    assert.deepEqual(markClientAuthServers(servers, winners), [{ hostname: 'a.test', locations: [], clientAuth: { passCertificate: true } }, { hostname: 'b.test', locations: [] }]);
  });

  void it('no claims: no state, servers untouched', () => {
    const servers: Server[] = [{ hostname: 'a.test', locations: [] }];
    assert.deepEqual(resolveClientAuth(new Map(), secrets), { state: undefined, failures: [] });
    assert.equal(markClientAuthServers(servers, new Map()), servers);
  });
});

void describe('buildModel: auth-tls-secret of another namespace and allow-cross-namespace-resources', () => {
  const ingressOf = (secretRef: string): V1Ingress => ingress('secure', {
    namespace: 'shop', annotations: { [ann('auth-tls-secret')]: secretRef }, rules: [rule('a.test', path('/', svc('web', 80)))],
  });
  const rows: { name: string; data: Record<string, string>; want: string | null }[] = [
    { name: 'off (the default): the host gets no CA (403)', data: {}, want: null },
    { name: '"true": the other namespace\'s CA is read', data: { 'allow-cross-namespace-resources': 'true' }, want: 'bank/ca' },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const result = buildModel(snapshot({
        ingresses: [ingressOf('bank/ca')], services: [service('web', [{ port: 80 }], 'shop')],
        secrets: [secret('bank', 'ca', { 'ca.crt': b64(ca.cert) })], configMaps: [configMap(row.data)],
      }), options({ configMap: 'ingress/resty-ingress' }));
      assert.deepEqual(result.model.tls.clientAuth?.hosts.map((host) => host.ca), [row.want]);
      assert.equal(result.failures.some((failure) => failure.reason === 'ClientCertSecret'), row.want === null);
    });
  }
});
