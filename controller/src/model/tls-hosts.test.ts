import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1Ingress, V1Secret } from '@kubernetes/client-node';
import { buildModel } from './build.ts';
import { deepFreeze, ingress, options, path, rule, service, snapshot, svc } from './testdata/fixtures.ts';
import { secret, testCertificate, tlsSecret, withTls } from './testdata/tls-fixtures.ts';
import type { BuildOptions, BuildResult } from './types.ts';

const shop = testCertificate(['shop.example.com', 'www.shop.example.com']);
const shop2 = testCertificate(['shop.example.com']);
const wild = testCertificate(['*.api.example.com']);
const expired = testCertificate(['old.example.com'], { notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2021-01-01T00:00:00Z') });
const fallback = testCertificate(['default.example.com']);
const NOW = Date.parse('2025-06-01T00:00:00Z');

/** An Ingress routing `/<name>` of each host to Service web (so Ingresses never share a path). */
function app(name: string, hosts: string[], created = '2024-01-01T00:00:00Z'): V1Ingress {
  return ingress(name, { created, rules: hosts.map((host) => rule(host, path(`/${name}`, svc('web', 80)))) });
}

function build(ingresses: V1Ingress[], secrets: V1Secret[], extra: Partial<BuildOptions> = {}): BuildResult {
  return buildModel(deepFreeze(snapshot({ ingresses, secrets, services: [service('web', [{ port: 80 }])] })), options({ now: NOW, ...extra }));
}

function hostMap(result: BuildResult): Record<string, string> {
  return Object.fromEntries(result.model.tls.hosts.map((h) => [h.host, h.certificate]));
}

const shopIngress = withTls(app('shop', ['shop.example.com', 'www.shop.example.com', 'blog.example.com']), [
  { hosts: ['SHOP.example.com'], secretName: 'shop-tls' },
  { hosts: ['blog.example.com'], secretName: 'blog-tls' },
]);

interface Row {
  readonly name: string;
  readonly ingresses: V1Ingress[];
  readonly secrets: V1Secret[];
  readonly extra?: Partial<BuildOptions>;
  readonly hosts: Record<string, string>;
  /** reason → text each such failure must contain */
  readonly failures: [string, RegExp][];
  readonly defaultCertificate?: string | null;
}

const rows: Row[] = [
  {
    name: 'tls.hosts (any case) → its Secret; a rule host the certificate covers gets it too; bad Secret costs only its host',
    ingresses: [shopIngress],
    secrets: [tlsSecret('shop-tls', shop), secret('blog-tls', { 'tls.crt': shop.cert, 'tls.key': wild.key })],
    hosts: { 'shop.example.com': 'default/shop-tls', 'www.shop.example.com': 'default/shop-tls' },
    failures: [['InvalidCertificate', /TLS Secret default\/blog-tls refused: tls\.key does not match/]],
  },
  {
    name: 'a Secret whose chain is too long: its hosts get the default certificate, the other Secret is served',
    ingresses: [shopIngress],
    secrets: [tlsSecret('shop-tls', shop), secret('blog-tls', { 'tls.crt': shop.cert.repeat(11), 'tls.key': shop.key })],
    hosts: { 'shop.example.com': 'default/shop-tls', 'www.shop.example.com': 'default/shop-tls' },
    failures: [['InvalidCertificate', /TLS Secret default\/blog-tls refused: tls\.crt holds a chain of 11 certificates, more than 10; the default certificate is served instead/]],
  },
  {
    name: 'a wildcard tls host maps as written (Lua matches one label under it)',
    ingresses: [withTls(app('api', ['*.api.example.com']), [{ hosts: ['*.api.example.com'], secretName: 'wild' }])],
    secrets: [tlsSecret('wild', wild)],
    hosts: { '*.api.example.com': 'default/wild' },
    failures: [],
  },
  {
    name: 'the oldest Ingress wins a host; the newer one gets a Conflict naming it',
    ingresses: [
      withTls(app('newer', ['shop.example.com'], '2024-05-01T00:00:00Z'), [{ hosts: ['shop.example.com'], secretName: 'shop2' }]),
      withTls(app('older', ['shop.example.com'], '2024-01-01T00:00:00Z'), [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }]),
    ],
    secrets: [tlsSecret('shop-tls', shop), tlsSecret('shop2', shop2)],
    hosts: { 'shop.example.com': 'default/shop-tls' },
    failures: [['Conflict', /older Ingress default\/older \(Secret default\/shop-tls\)/]],
  },
  {
    name: 'missing Secret → default certificate, the host still has TLS (redirects stay, no reload when it appears)',
    ingresses: [withTls(app('shop', ['shop.example.com']), [{ hosts: ['shop.example.com'], secretName: 'absent' }])],
    secrets: [],
    hosts: {},
    failures: [['InvalidCertificate', /default\/absent refused: Secret not found/]],
  },
  {
    name: 'Secret of the wrong type',
    ingresses: [withTls(app('shop', ['shop.example.com']), [{ hosts: ['shop.example.com'], secretName: 'opaque' }])],
    secrets: [secret('opaque', { 'tls.crt': shop.cert, 'tls.key': shop.key }, 'Opaque')],
    hosts: {},
    failures: [['InvalidCertificate', /default\/opaque refused: Secret type is "Opaque"/]],
  },
  {
    name: 'malformed PEM',
    ingresses: [withTls(app('shop', ['shop.example.com']), [{ hosts: ['shop.example.com'], secretName: 'junk' }])],
    secrets: [secret('junk', { 'tls.crt': 'not a certificate', 'tls.key': shop.key })],
    hosts: {},
    failures: [['InvalidCertificate', /default\/junk refused: tls\.crt holds no valid PEM/]],
  },
  {
    name: 'a certificate not valid for the listed host → default certificate for that host',
    ingresses: [withTls(app('shop', ['other.example.com']), [{ hosts: ['other.example.com'], secretName: 'shop-tls' }])],
    secrets: [tlsSecret('shop-tls', shop)],
    hosts: {},
    failures: [['CertificateHostMismatch', /default\/shop-tls is not valid for host "other\.example\.com"/]],
  },
  {
    name: 'an expired certificate is still served, and flagged',
    ingresses: [withTls(app('old', ['old.example.com']), [{ hosts: ['old.example.com'], secretName: 'old' }])],
    secrets: [tlsSecret('old', expired)],
    hosts: { 'old.example.com': 'default/old' },
    failures: [['CertificateExpired', /default\/old .*expired at 2021-01-01T00:00:00\.000Z; it is still served/]],
  },
  {
    name: '--default-ssl-certificate names the certificate for unknown SNI',
    ingresses: [],
    secrets: [tlsSecret('fallback', fallback, 'ingress')],
    extra: { defaultSslCertificate: 'ingress/fallback' },
    hosts: {},
    failures: [],
    defaultCertificate: 'ingress/fallback',
  },
  {
    name: 'a bad --default-ssl-certificate is a cluster-wide failure; the self-signed one stays',
    ingresses: [],
    secrets: [],
    extra: { defaultSslCertificate: 'ingress/absent' },
    hosts: {},
    failures: [['InvalidCertificate', /ingress\/absent refused: Secret not found/]],
    defaultCertificate: null,
  },
];

void describe('TLS: spec.tls → certificates', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const result = build(row.ingresses, row.secrets, row.extra);
      assert.deepEqual(hostMap(result), row.hosts);
      assert.deepEqual(result.failures.map((f) => f.reason), row.failures.map(([reason]) => reason));
      row.failures.forEach(([, text], i) => assert.match(result.failures[i].message, text));
      for (const failure of result.failures) assert.doesNotMatch(JSON.stringify(failure), /PRIVATE KEY|MII/);
      const used = new Set([...Object.values(row.hosts), ...(row.defaultCertificate ? [row.defaultCertificate] : [])]);
      assert.deepEqual(result.model.tls.certificates.map((c) => c.id), [...used].sort());
      assert.equal(result.model.tls.defaultCertificate, row.defaultCertificate ?? null);
    });
  }

  void it('rotation changes only the certificate, not its id, the host map or the servers', () => {
    const ingresses = [withTls(app('shop', ['shop.example.com']), [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }])];
    const before = build(ingresses, [tlsSecret('shop-tls', shop)]);
    const after = build(ingresses, [tlsSecret('shop-tls', shop2)]);
    assert.deepEqual(after.model.servers, before.model.servers);
    assert.deepEqual(after.model.tls.hosts, before.model.tls.hosts);
    assert.notEqual(after.model.tls.certificates[0].serial, before.model.tls.certificates[0].serial);
  });

  void it('adding spec.tls to a served host changes only the dynamic TLS part (ssl-redirect is Lua\'s)', () => {
    const plain = build([app('shop', ['shop.example.com'])], [tlsSecret('shop-tls', shop)]);
    const secured = build([withTls(app('shop', ['shop.example.com']), [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }])], [tlsSecret('shop-tls', shop)]);
    assert.deepEqual(secured.model.servers, plain.model.servers);
    assert.deepEqual(hostMap(plain), {});
    assert.deepEqual(hostMap(secured), { 'shop.example.com': 'default/shop-tls' });
  });
});
