import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { MAX_CHAIN_CERTIFICATES, MAX_SECRET_PEM_BYTES, namesCover, readTlsSecret } from './certificates.ts';
import { secret, testCertificate, tlsSecret } from './testdata/tls-fixtures.ts';

const good = testCertificate(['shop.example.com', '*.api.example.com'], { serial: 'abc123' });
const other = testCertificate(['other.example.com']);
const cnOnly = testCertificate([], { commonName: 'Legacy.Example.com' });
const expired = testCertificate(['old.example.com'], {
  notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2021-01-01T00:00:00Z'),
});
const NOW = Date.parse('2025-06-01T00:00:00Z');
const ref = { namespace: 'default', name: 's' };

void describe('readTlsSecret', () => {
  const refused = [
    { name: 'missing Secret', input: undefined, reason: /not found/ },
    { name: 'wrong type', input: secret('s', { 'tls.crt': good.cert, 'tls.key': good.key }, 'Opaque'), reason: /type is "Opaque"/ },
    { name: 'no tls.key', input: secret('s', { 'tls.crt': good.cert }), reason: /tls\.key is missing/ },
    { name: 'no tls.crt', input: secret('s', { 'tls.key': good.key }), reason: /tls\.crt is missing/ },
    { name: 'malformed certificate', input: secret('s', { 'tls.crt': '-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n', 'tls.key': good.key }), reason: /no valid PEM certificate/ },
    { name: 'not PEM at all', input: secret('s', { 'tls.crt': 'hello', 'tls.key': good.key }), reason: /no valid PEM certificate/ },
    { name: 'malformed key', input: secret('s', { 'tls.crt': good.cert, 'tls.key': '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' }), reason: /not an unencrypted PEM private key/ },
    { name: 'key of another certificate', input: secret('s', { 'tls.crt': good.cert, 'tls.key': other.key }), reason: /does not match/ },
    { name: `a chain of ${MAX_CHAIN_CERTIFICATES + 1} certificates`,
      input: secret('s', { 'tls.crt': good.cert + other.cert.repeat(MAX_CHAIN_CERTIFICATES), 'tls.key': good.key }),
      reason: new RegExp(`chain of ${MAX_CHAIN_CERTIFICATES + 1} certificates, more than ${MAX_CHAIN_CERTIFICATES}`) },
    { name: `more than ${MAX_SECRET_PEM_BYTES} bytes`,
      input: secret('s', { 'tls.crt': `${good.cert}${'#'.repeat(MAX_SECRET_PEM_BYTES - good.cert.length - good.key.length)}\n`, 'tls.key': good.key }),
      reason: new RegExp(`hold ${MAX_SECRET_PEM_BYTES + 1} bytes, more than ${MAX_SECRET_PEM_BYTES}`) },
  ];
  for (const row of refused) {
    void it(`refuses: ${row.name}, without quoting key material`, () => {
      const result = readTlsSecret(row.input, ref, NOW);
      assert.equal(result.ok, false);
      if (result.ok) return;
      assert.match(result.reason, row.reason);
      assert.doesNotMatch(result.reason, /BEGIN|MII/);
    });
  }

  void it('reads a valid Secret: id, SAN names sorted, serial, clean PEMs', () => {
    const result = readTlsSecret(tlsSecret('s', good), ref, NOW);
    assert.ok(result.ok);
    assert.equal(result.expired, false);
    assert.equal(result.certificate.id, 'default/s');
    assert.deepEqual(result.certificate.names, ['*.api.example.com', 'shop.example.com']);
    assert.equal(result.certificate.serial, 'ABC123');
    assert.match(result.certificate.cert, /^-----BEGIN CERTIFICATE-----\n/);
    assert.match(result.certificate.key, /^-----BEGIN PRIVATE KEY-----\n/);
  });

  void it(`takes a chain of ${MAX_CHAIN_CERTIFICATES} certificates and ${MAX_SECRET_PEM_BYTES} bytes in all`, () => {
    const chain = good.cert + other.cert.repeat(MAX_CHAIN_CERTIFICATES - 1);
    const padding = '#'.repeat(MAX_SECRET_PEM_BYTES - chain.length - good.key.length - 1);
    const result = readTlsSecret(secret('s', { 'tls.crt': `${chain}${padding}\n`, 'tls.key': good.key }), ref, NOW);
    assert.ok(result.ok, result.ok ? '' : result.reason);
    assert.equal(result.certificate.cert.match(/BEGIN CERTIFICATE/g)?.length, MAX_CHAIN_CERTIFICATES);
  });

  void it('keeps a chain whole, leaf first', () => {
    const result = readTlsSecret(secret('s', { 'tls.crt': `${good.cert}\n# comment\n${other.cert}`, 'tls.key': good.key }), ref, NOW);
    assert.ok(result.ok);
    assert.equal(result.certificate.cert.match(/BEGIN CERTIFICATE/g)?.length, 2);
    assert.equal(result.certificate.serial, 'ABC123');
  });

  void it('falls back to the CN when there is no SAN', () => {
    const result = readTlsSecret(tlsSecret('s', cnOnly), ref, NOW);
    assert.ok(result.ok);
    assert.deepEqual(result.certificate.names, ['legacy.example.com']);
  });

  const expiry = [
    { name: 'expired before now', now: NOW, want: true },
    { name: 'valid at an earlier now', now: Date.parse('2020-06-01T00:00:00Z'), want: false },
    { name: 'no clock given', now: undefined, want: false },
  ];
  for (const row of expiry) {
    void it(`expiry: ${row.name}`, () => {
      const result = readTlsSecret(tlsSecret('s', expired), ref, row.now);
      assert.ok(result.ok, 'an expired certificate is still usable');
      assert.equal(result.expired, row.want);
      assert.equal(result.certificate.notAfter, '2021-01-01T00:00:00.000Z');
    });
  }
});

void describe('namesCover', () => {
  const names = ['*.api.example.com', 'shop.example.com'];
  const rows = [
    { name: 'exact', host: 'shop.example.com', want: true },
    { name: 'case and trailing dot', host: 'SHOP.Example.com.', want: true },
    { name: 'one label under a wildcard', host: 'v1.api.example.com', want: true },
    { name: 'two labels under a wildcard', host: 'a.v1.api.example.com', want: false },
    { name: 'the wildcard base itself', host: 'api.example.com', want: false },
    { name: 'the same wildcard host', host: '*.api.example.com', want: true },
    { name: 'a broader wildcard host', host: '*.example.com', want: false },
    { name: 'unrelated', host: 'evil.com', want: false },
  ];
  for (const row of rows) {
    void it(row.name, () => assert.equal(namesCover(names, row.host), row.want));
  }

  // Certificate.names is sorted: namesCover searches it (a certificate may carry thousands of names).
  const many = [...Array.from({ length: 3000 }, (_, index) => `h${index}.example.com`), '*.wild.example.com'].sort();
  const manyRows = [
    { name: 'many names: the first', host: many[0] ?? '', want: true },
    { name: 'many names: the last', host: many.at(-1) ?? '', want: true },
    { name: 'many names: one in the middle', host: 'h1500.example.com', want: true },
    { name: 'many names: under the wildcard', host: 'x.wild.example.com', want: true },
    { name: 'many names: absent, between two', host: 'h1500a.example.com', want: false },
    { name: 'many names: absent, before all', host: '0.example.com', want: false },
    { name: 'many names: absent, after all', host: 'zzz.example.com', want: false },
  ];
  for (const row of manyRows) {
    void it(row.name, () => assert.equal(namesCover(many, row.host), row.want));
  }
});
