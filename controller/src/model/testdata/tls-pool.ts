// Test-only TLS material for the property tests: a pool of real certificates
// made once per process (RSA keys are slow: two keys, five certificates over
// the marker hosts, an expired one, one without SAN, one with names that are
// no DNS names) and Secrets that hold them, chains of them, a stray key,
// garbage PEM or strings that are not base64.

import { generateKeyPairSync } from 'node:crypto';
import type { V1Secret } from '@kubernetes/client-node';
import fc from 'fast-check';
import { createSelfSignedCertificate } from '../../tls/self-signed.ts';
import { anyString, hostileString, MARKER, userValue } from './hostile-values.ts';

/** PEM material for TLS Secrets: valid certificates over marker hosts, an expired one, one without SAN, a key that matches none. */
export interface TlsPool {
  readonly certificates: readonly { readonly cert: string; readonly key: string }[];
  readonly strayKey: string;
}

const HOUR = 3_600_000;
/** The clock of every build: certificates made "now" are valid then. */
export const BUILD_NOW = Date.now();

/** Makes the pool: two RSA keys, five certificates (~0.3 s). */
export function makeTlsPool(): TlsPool {
  const keyOf = (): string => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const keyPem = keyOf();
  const make = (dnsNames: string[], extra: { commonName?: string; notAfter?: Date } = {}): { cert: string; key: string } => {
    const made = createSelfSignedCertificate({ dnsNames, keyPem, ...extra });
    return { cert: made.cert, key: made.key };
  };
  return {
    certificates: [
      make([MARKER, `*.${MARKER}`, `${MARKER}-a`, `*.${MARKER}-a`]),
      make([`*.${MARKER}`, 'example.com', '*.example.com']),
      make([`${MARKER}.${MARKER}`], { notAfter: new Date(BUILD_NOW - HOUR) }),
      make([], { commonName: MARKER }),
      make([`${MARKER}"; evil`, 'bücher.example', `UPPER.${MARKER}`]),
    ],
    strayKey: keyOf(),
  };
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const garbagePem = (label: string): fc.Arbitrary<string> => fc.base64String({ maxLength: 200 })
  .map((body) => `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`);

/** tls.crt / tls.key contents with what they are (printed in counterexamples instead of kilobytes of base64). */
function secretData(pool: TlsPool): fc.Arbitrary<{ data: Record<string, string>; what: string }> {
  const certs = pool.certificates;
  const index = fc.nat({ max: certs.length - 1 });
  const pem = (text: string): string => b64(text);
  return fc.oneof(
    { weight: 6, arbitrary: index.map((i) => ({ what: `certificate ${i}`, data: { 'tls.crt': pem(certs[i].cert), 'tls.key': pem(certs[i].key) } })) },
    { weight: 1, arbitrary: fc.tuple(index, index).map(([a, b]) => ({ what: `chain ${a}+${b}`, data: { 'tls.crt': pem(certs[a].cert + certs[b].cert), 'tls.key': pem(certs[a].key) } })) },
    { weight: 1, arbitrary: index.map((i) => ({ what: `certificate ${i} (CRLF), stray key`, data: { 'tls.crt': pem(certs[i].cert.replaceAll('\n', '\r\n')), 'tls.key': pem(pool.strayKey) } })) },
    { weight: 1, arbitrary: fc.tuple(garbagePem('CERTIFICATE'), garbagePem('PRIVATE KEY')).map(([c, k]) => ({ what: `garbage PEM ${JSON.stringify(c)}`, data: { 'tls.crt': pem(c), 'tls.key': pem(k) } })) },
    { weight: 1, arbitrary: fc.tuple(userValue(hostileString), anyString).map(([c, k]) => ({ what: `not base64 ${JSON.stringify(c)}`, data: { 'tls.crt': c, 'tls.key': pem(k) } })) },
  );
}

/** The Secret `default/<name>` with generated contents and type. */
export function secretArbitrary(pool: TlsPool, name: string): fc.Arbitrary<V1Secret> {
  return fc.record({ content: secretData(pool), type: fc.constantFrom('kubernetes.io/tls', 'kubernetes.io/tls', 'kubernetes.io/tls', 'Opaque') })
    .map(({ content, type }) => ({
      metadata: { namespace: 'default', name }, type, data: content.data,
      [fc.toStringMethod]: () => `Secret ${name} (${type}: ${content.what})`,
    }));
}
