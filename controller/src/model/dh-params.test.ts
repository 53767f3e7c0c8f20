// ssl-dh-param in a build (dh-params.ts): a PKCS #3 "DH PARAMETERS" PEM as
// `openssl dhparam` writes it is read into the model (rebuilt byte for byte);
// anything else, or a Secret that is missing or has no dhparam.pem, leaves
// NGINX without parameters and says why, never quoting the Secret's content.
// testdata/ffdhe2048.pem is RFC 7919's public ffdhe2048 group, written by
// `openssl genpkey -genparam -algorithm DH -pkeyopt group:ffdhe2048`.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import { readDhParams, withDhParams } from './dh-params.ts';
import { createModelBuilder } from './build.ts';
import { readConfigMap } from './features/testing.ts';
import { configMap, options, snapshot } from './testdata/fixtures.ts';

const FFDHE2048 = readFileSync(new URL('./testdata/ffdhe2048.pem', import.meta.url), 'utf8');
const pemOf = (der: Buffer, label = 'DH PARAMETERS'): string => `-----BEGIN ${label}-----\n${der.toString('base64')}\n-----END ${label}-----\n`;
const DER = Buffer.from(FFDHE2048.replace(/-----[^-]+-----/gu, '').replace(/\s/gu, ''), 'base64');
/** SEQUENCE { INTEGER p, INTEGER g } of small numbers. */
const small = (p: number[], g: number[]): Buffer => Buffer.from([0x30, p.length + g.length + 4, 0x02, p.length, ...p, 0x02, g.length, ...g]);

void describe('readDhParams', () => {
  const rows: { name: string; pem: string; want: 'ok' | RegExp }[] = [
    { name: 'openssl\'s ffdhe2048 (2048 bits, generator 2)', pem: FFDHE2048, want: 'ok' },
    { name: 'with CRLF line ends', pem: FFDHE2048.replaceAll('\n', '\r\n'), want: 'ok' },
    { name: 'X9.42 parameters (openssl dhparam -dsaparam)', pem: pemOf(DER, 'X9.42 DH PARAMETERS'), want: /no single "DH PARAMETERS" PEM block/u },
    { name: 'two blocks', pem: FFDHE2048 + FFDHE2048, want: /no single/u },
    { name: 'a certificate', pem: pemOf(DER, 'CERTIFICATE'), want: /no single/u },
    { name: 'empty', pem: '', want: /no single/u },
    { name: 'truncated DER', pem: pemOf(DER.subarray(0, 100)), want: /not DER-encoded/u },
    { name: 'bytes after the sequence', pem: pemOf(Buffer.concat([DER, Buffer.from([0])])), want: /not DER-encoded/u },
    { name: 'a 5-bit prime', pem: pemOf(small([23], [2])), want: /has 5 bits/u },
    { name: 'a negative prime', pem: pemOf(small([0x97], [2])), want: /not DER-encoded/u },
    { name: 'not a sequence', pem: pemOf(Buffer.from([0x31, 0x03, 0x02, 0x01, 0x05])), want: /not DER-encoded/u },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const read = readDhParams(row.pem);
      if (row.want === 'ok') {
        assert.ok(read.ok, read.ok ? '' : read.reason);
        assert.equal(read.value, FFDHE2048, 'rebuilt byte for byte as openssl writes it');
      } else {
        assert.ok(!read.ok);
        assert.match(read.reason, row.want);
      }
    });
  }

  void it('an even prime and a generator not below the prime are refused', () => {
    const prime = Buffer.from(DER.subarray(8, 8 + 257)); // the INTEGER's content: 0x00 then 256 bytes
    assert.equal(prime.length, 257);
    const seq = (p: Buffer, g: Buffer): Buffer => {
      const ints = Buffer.concat([Buffer.from([0x02, 0x82, p.length >> 8, p.length & 0xff]), p, Buffer.from([0x02, g.length]), g]);
      return Buffer.concat([Buffer.from([0x30, 0x82, ints.length >> 8, ints.length & 0xff]), ints]);
    };
    assert.ok(readDhParams(pemOf(seq(prime, Buffer.from([2])))).ok, 'the fixture split right');
    const even = Buffer.from(prime);
    even[256]! &= 0xfe;
    assert.match((readDhParams(pemOf(seq(even, Buffer.from([2])))) as { reason: string }).reason, /even/u);
    assert.match((readDhParams(pemOf(seq(prime, prime))) as { reason: string }).reason, /generator/u);
    assert.match((readDhParams(pemOf(seq(prime, Buffer.from([1])))) as { reason: string }).reason, /generator/u);
  });
});

void describe('withDhParams', () => {
  const secret = (data: Record<string, string> | undefined): V1Secret => ({ metadata: { namespace: 'ingress', name: 'dhparam' }, ...(data ? { data } : {}) });
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const rows: { name: string; secrets: V1Secret[]; want: string | null; failure?: RegExp }[] = [
    { name: 'the Secret\'s dhparam.pem', secrets: [secret({ 'dhparam.pem': b64(FFDHE2048) })], want: FFDHE2048 },
    { name: 'no such Secret', secrets: [], want: null, failure: /Secret ingress\/dhparam: not found; NGINX runs without DH parameters/u },
    { name: 'a Secret of that name elsewhere', secrets: [{ ...secret({ 'dhparam.pem': b64(FFDHE2048) }), metadata: { namespace: 'other', name: 'dhparam' } }], want: null, failure: /not found/u },
    { name: 'no dhparam.pem', secrets: [secret({ 'tls.crt': b64('x') })], want: null, failure: /it has no dhparam\.pem/u },
    { name: 'no data', secrets: [secret(undefined)], want: null, failure: /it has no dhparam\.pem/u },
    { name: 'not DH parameters', secrets: [secret({ 'dhparam.pem': b64('-----BEGIN DH PARAMETERS-----\nc2VjcmV0LXN0dWZm\n-----END DH PARAMETERS-----\n') })], want: null, failure: /not DER-encoded/u },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const read = withDhParams(readConfigMap({ 'ssl-dh-param': 'ingress/dhparam' }).settings, row.secrets, 'ingress/resty-ingress');
      assert.equal(read.settings.tlsSession.dhParam, row.want);
      const failure = read.failures.find((item) => item.field.endsWith('data[ssl-dh-param]'));
      if (row.failure === undefined) assert.equal(failure, undefined);
      else {
        assert.match(failure?.message ?? '', row.failure);
        assert.doesNotMatch(failure?.message ?? '', /c2VjcmV0|secret-stuff|MIIB/u, 'never the content');
      }
    });
  }

  void it('no ssl-dh-param: the same settings, no failure', () => {
    const { settings } = readConfigMap({});
    const after = withDhParams(settings, [secret({ 'dhparam.pem': b64(FFDHE2048) })], 'ingress/resty-ingress');
    assert.equal(after.settings, settings);
    assert.deepEqual(after.failures, []);
  });

  void it('a reference that names no object is refused by the key itself', () => {
    const read = readConfigMap({ 'ssl-dh-param': 'dhparam' });
    assert.equal(read.settings.tlsSession.dhParamSecret, null);
    assert.ok(read.failures.some((item) => /expected <namespace>\/<name>/u.test(item.message)));
  });
});

void describe('ssl-dh-param in a long-lived builder', () => {
  void it('a Secret added later is read without any other change (the routing is reused, the Secrets are not)', () => {
    const builder = createModelBuilder();
    const base = snapshot({ configMaps: [configMap({ 'ssl-dh-param': 'ingress/dhparam' })] });
    const opts = options({ configMap: 'ingress/resty-ingress' });
    const before = builder.build(base, opts);
    assert.equal(before.model.settings.tlsSession.dhParam, null);
    assert.ok(before.failures.some((item) => /Secret ingress\/dhparam: not found/u.test(item.message)));
    const secrets: V1Secret[] = [{ metadata: { namespace: 'ingress', name: 'dhparam' }, data: { 'dhparam.pem': Buffer.from(FFDHE2048).toString('base64') } }];
    const after = builder.build({ ...base, secrets }, opts);
    assert.equal(after.model.settings.tlsSession.dhParam, FFDHE2048);
    assert.ok(!after.failures.some((item) => /dhparam/u.test(item.message)));
  });
});
