// proxy-ssl-secret → Model.backendTls: which Secrets a build reads, what makes
// one unusable (ingress-nginx's backend_ssl.go: tls.crt + tls.key and/or ca.crt,
// nothing else), and that a refusal names the Secret and never its content.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import { createSelfSignedCertificate } from '../tls/self-signed.ts';
import { readBackendTlsSecret, resolveBackendTls } from './backend-tls.ts';
import type { Location, ProxySslConfig, Server } from './types.ts';

const ca = createSelfSignedCertificate({ dnsNames: ['backend.test'] });
const client = createSelfSignedCertificate({ commonName: 'client' });
const other = createSelfSignedCertificate({ commonName: 'other' });
const b64 = (text: string): string => Buffer.from(text).toString('base64');

function secret(name: string, data: Readonly<Record<string, string>>, namespace = 'default'): V1Secret {
  return Object.freeze({ metadata: { namespace, name }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) });
}

interface ReadRow {
  readonly name: string;
  readonly data: Readonly<Record<string, string>>;
  /** The PEMs kept, or the reason (a regex) it is refused. */
  readonly want: { ca: boolean; cert: boolean } | RegExp;
}

const rows: ReadRow[] = [
  { name: 'ca.crt only: verification, no client certificate', data: { 'ca.crt': ca.cert }, want: { ca: true, cert: false } },
  { name: 'tls.crt and tls.key only: a client certificate', data: { 'tls.crt': client.cert, 'tls.key': client.key }, want: { ca: false, cert: true } },
  { name: 'all three', data: { 'ca.crt': ca.cert, 'tls.crt': client.cert, 'tls.key': client.key }, want: { ca: true, cert: true } },
  { name: 'neither', data: { 'auth': 'user:pass' }, want: /has neither ca\.crt nor tls\.crt and tls\.key/u },
  { name: 'tls.crt without tls.key', data: { 'tls.crt': client.cert }, want: /must come together/u },
  { name: 'a key that does not match the certificate', data: { 'tls.crt': client.cert, 'tls.key': other.key }, want: /tls\.key does not match tls\.crt/u },
  { name: 'a key that is no key', data: { 'tls.crt': client.cert, 'tls.key': '-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n' }, want: /tls\.key is not a valid PEM private key/u },
  { name: 'ca.crt that is no certificate', data: { 'ca.crt': 'hello' }, want: /ca\.crt holds no valid PEM certificate/u },
  { name: 'ca.crt with a broken certificate', data: { 'ca.crt': '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }, want: /ca\.crt holds no valid PEM certificate/u },
  { name: 'too large', data: { 'ca.crt': ca.cert.repeat(80) }, want: /more than 65536 bytes/u },
];

void describe('readBackendTlsSecret', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const read = readBackendTlsSecret(secret('s', row.data), 'default/s');
      if (row.want instanceof RegExp) {
        assert.equal(read.ok, false);
        if (read.ok) return;
        assert.match(read.reason, row.want);
        assert.match(read.reason, /default\/s/u, 'names the Secret');
        assert.doesNotMatch(read.reason, /BEGIN|nope|hello/u, 'never quotes the content');
        return;
      }
      assert.equal(read.ok, true);
      if (!read.ok) return;
      assert.equal(read.value.ca !== null, row.want.ca);
      assert.equal(read.value.cert !== null, row.want.cert);
      assert.equal(read.value.key !== null, row.want.cert);
      assert.match(read.value.fingerprint, /^[0-9a-f]{16}$/u);
    });
  }
  void it('a rotation changes the fingerprint, the same content keeps it', () => {
    const first = readBackendTlsSecret(secret('s', { 'ca.crt': ca.cert }), 'default/s');
    const same = readBackendTlsSecret(secret('s', { 'ca.crt': ca.cert }), 'default/s');
    const rotated = readBackendTlsSecret(secret('s', { 'ca.crt': other.cert }), 'default/s');
    assert.ok(first.ok && same.ok && rotated.ok);
    assert.equal(first.value.fingerprint, same.value.fingerprint);
    assert.notEqual(first.value.fingerprint, rotated.value.fingerprint);
  });
});

const SSL: ProxySslConfig = { secret: 'default/backend-ca', verify: true, verifyDepth: 1, name: null, serverName: null, protocols: ['TLSv1.2'], ciphers: 'DEFAULT' };

function location(path: string, namespace: string, name: string, proxySsl?: ProxySslConfig): Location {
  return {
    path, match: 'prefix', route: { kind: 'backend', backend: `${namespace}-web-80`, key: `- ${namespace}-web-80 a.test ${namespace} ${name} web ${path}` },
    ingress: { namespace, name }, policy: proxySsl === undefined ? {} : { proxySsl },
  };
}

interface ResolveRow {
  readonly name: string;
  readonly servers: readonly Server[];
  readonly secrets: readonly V1Secret[];
  readonly ids: readonly string[];
  readonly failures: readonly string[];
  readonly allow?: boolean;
}

const resolveRows: ResolveRow[] = [
  { name: 'no location uses one: nothing read', servers: [{ hostname: 'a.test', locations: [location('/', 'default', 'app')] }], secrets: [secret('backend-ca', { 'ca.crt': ca.cert })], ids: [], failures: [] },
  { name: 'the Secret a location names', servers: [{ hostname: 'a.test', locations: [location('/', 'default', 'app', SSL)] }], secrets: [secret('backend-ca', { 'ca.crt': ca.cert }), secret('unused', { 'ca.crt': ca.cert })], ids: ['default/backend-ca'], failures: [] },
  { name: 'missing: the Ingress is told, once for its two paths', servers: [{ hostname: 'a.test', locations: [location('/', 'default', 'app', SSL), location('/b', 'default', 'app', SSL)] }], secrets: [], ids: [], failures: ['default/app: Secret default/backend-ca not found; its paths answer 503'] },
  {
    name: 'another namespace\'s Secret: refused for that Ingress, used by its own namespace\'s',
    servers: [{ hostname: 'a.test', locations: [location('/', 'team-b', 'thief', SSL), location('/own', 'default', 'owner', SSL)] }],
    secrets: [secret('backend-ca', { 'ca.crt': ca.cert })],
    ids: ['default/backend-ca'],
    failures: ['team-b/thief: proxy-ssl-secret default/backend-ca is not in the Ingress\'s namespace team-b; its paths answer 503'],
  },
  {
    name: 'another namespace\'s Secret with allow-cross-namespace-resources', allow: true,
    servers: [{ hostname: 'a.test', locations: [location('/', 'team-b', 'friend', SSL)] }], secrets: [secret('backend-ca', { 'ca.crt': ca.cert })], ids: ['default/backend-ca'], failures: [],
  },
  { name: 'an unusable Secret', servers: [{ hostname: 'a.test', locations: [location('/', 'default', 'app', SSL)] }], secrets: [secret('backend-ca', { 'tls.crt': client.cert })], ids: [], failures: ['default/app: Secret default/backend-ca: tls.crt and tls.key must come together; its paths answer 503'] },
];

void describe('resolveBackendTls', () => {
  for (const row of resolveRows) {
    void it(row.name, () => {
      const resolved = resolveBackendTls(row.servers, row.secrets, 'nginx.ingress.kubernetes.io', row.allow === true);
      assert.deepEqual(resolved.secrets.map((s) => s.id), row.ids);
      assert.deepEqual(resolved.failures.map((f) => `${f.ingress?.namespace}/${f.ingress?.name}: ${f.message}`), row.failures);
      for (const failure of resolved.failures) {
        assert.equal(failure.reason, 'InvalidBackendTls');
        assert.equal(failure.field, 'metadata.annotations[nginx.ingress.kubernetes.io/proxy-ssl-secret]');
      }
    });
  }
});
