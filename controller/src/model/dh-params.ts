// ssl-dh-param (features/tls-session.ts) in a build: the ConfigMap names a
// Secret whose dhparam.pem holds Diffie-Hellman parameters (`openssl dhparam
// 4096`), which NGINX needs for the DHE ciphers of ssl-ciphers. Read like
// spec.tls, outside the routing the builder reuses (a Secret change must not
// wait for an Ingress change). As ingress-nginx
// (nginx.go: a missing Secret or key is a warning and no ssl_dhparam), a Secret
// that cannot be used keeps NGINX without parameters, with a warning that never
// quotes its content. What reaches the model is the PEM rebuilt from the two
// numbers read here, so `nginx -t` sees only parameters this parser accepted.

import type { V1Secret } from '@kubernetes/client-node';
import { splitObjectReference } from './features/object-ref.ts';
import { makeFailure } from './failure.ts';
import type { Failure, GlobalSettings, TlsSessionSettings } from './types.ts';

/** OpenSSL 3 refuses a modulus above 10,000 bits (OPENSSL_DH_MAX_MODULUS_BITS); 8192 is the largest `openssl dhparam` size in use. */
const MAX_BITS = 8192;
/** Below 1024 bits OpenSSL's default security level refuses the parameters. */
const MIN_BITS = 1024;
const PEM = /^\s*-----BEGIN DH PARAMETERS-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END DH PARAMETERS-----\s*$/u;

/** One DER INTEGER at `at`: its unsigned value's bytes and where the next element starts; null when malformed. */
function derInteger(der: Buffer, at: number): { value: Buffer; next: number } | null {
  if (der[at] !== 0x02) return null;
  const length = derLength(der, at + 1);
  if (length === null || length.length === 0) return null;
  const end = length.start + length.length;
  if (end > der.length) return null;
  let value = der.subarray(length.start, end);
  if ((value[0]! & 0x80) !== 0) return null; // negative
  while (value.length > 1 && value[0] === 0) value = value.subarray(1);
  return { value, next: end };
}

/** A DER length at `at` (short or long form, at most 4 bytes): the content's start and length. */
function derLength(der: Buffer, at: number): { start: number; length: number } | null {
  const first = der[at];
  if (first === undefined) return null;
  if (first < 0x80) return { start: at + 1, length: first };
  const bytes = first & 0x7f;
  if (bytes === 0 || bytes > 4 || at + 1 + bytes > der.length) return null;
  let length = 0;
  for (let i = 0; i < bytes; i++) length = length * 256 + der[at + 1 + i]!;
  return { start: at + 1 + bytes, length };
}

function bitLength(value: Buffer): number {
  return value[0] === 0 ? 0 : (value.length - 1) * 8 + Math.floor(Math.log2(value[0]!)) + 1;
}

/** The PEM of a DHParameter (PKCS #3: SEQUENCE { prime, base [, privateValueLength] }) rebuilt from its numbers, or why it cannot be used. */
export function readDhParams(pem: string): { ok: true; value: string } | { ok: false; reason: string } {
  const match = PEM.exec(pem);
  if (match === null) return { ok: false, reason: 'dhparam.pem holds no single "DH PARAMETERS" PEM block' };
  const der = Buffer.from(match[1]!.replace(/[\r\n]/gu, ''), 'base64');
  const sequence = der[0] === 0x30 ? derLength(der, 1) : null;
  if (sequence === null || sequence.start + sequence.length !== der.length) return { ok: false, reason: 'dhparam.pem is not DER-encoded DH parameters' };
  const prime = derInteger(der, sequence.start);
  const base = prime === null ? null : derInteger(der, prime.next);
  if (prime === null || base === null) return { ok: false, reason: 'dhparam.pem is not DER-encoded DH parameters' };
  const bits = bitLength(prime.value);
  if (bits < MIN_BITS || bits > MAX_BITS) return { ok: false, reason: `dhparam.pem's prime has ${bits} bits (expected ${MIN_BITS} to ${MAX_BITS})` };
  if ((prime.value[prime.value.length - 1]! & 1) === 0) return { ok: false, reason: 'dhparam.pem\'s prime is even' };
  if (bitLength(base.value) < 2 || Buffer.compare(base.value, prime.value) >= 0) return { ok: false, reason: 'dhparam.pem\'s generator is not between 2 and the prime' };
  return { ok: true, value: toPem(prime.value, base.value) };
}

function derOf(tag: number, content: Buffer): Buffer {
  const length = content.length < 0x80 ? Buffer.from([content.length])
    : content.length < 0x100 ? Buffer.from([0x81, content.length]) : Buffer.from([0x82, content.length >> 8, content.length & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

function integer(value: Buffer): Buffer {
  return derOf(0x02, (value[0]! & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), value]) : value);
}

function toPem(prime: Buffer, base: Buffer): string {
  const body = derOf(0x30, Buffer.concat([integer(prime), integer(base)])).toString('base64').match(/.{1,64}/gu)!.join('\n');
  return `-----BEGIN DH PARAMETERS-----\n${body}\n-----END DH PARAMETERS-----\n`;
}

/** The settings with tlsSession.dhParam filled from the Secret ssl-dh-param names (the same object without one), and why it cannot be used. */
export function withDhParams(given: GlobalSettings, secrets: readonly V1Secret[], configMapKey: string): { readonly settings: GlobalSettings; readonly failures: readonly Failure[] } {
  const session = given.tlsSession;
  const reference = session.dhParamSecret;
  if (reference === undefined || reference === null) return { settings: given, failures: [] };
  const ref = splitObjectReference(reference, '');
  const secret = secrets.find((item) => item.metadata?.namespace === ref.namespace && item.metadata?.name === ref.name);
  const encoded: unknown = secret?.data?.['dhparam.pem'];
  const parsed = secret === undefined ? { ok: false as const, reason: 'not found' }
    : typeof encoded !== 'string' || encoded === '' ? { ok: false as const, reason: 'it has no dhparam.pem' }
      : readDhParams(Buffer.from(encoded, 'base64').toString('utf8'));
  const tlsSession: TlsSessionSettings = Object.freeze({ ...session, dhParam: parsed.ok ? parsed.value : null });
  const settings: GlobalSettings = Object.freeze({ ...given, tlsSession });
  if (parsed.ok) return { settings, failures: [] };
  const failure = makeFailure(null, 'InvalidConfigMapValue', `ConfigMap ${configMapKey}: data[ssl-dh-param]`,
    `ConfigMap key ssl-dh-param: Secret ${reference}: ${parsed.reason}; NGINX runs without DH parameters (no DHE ciphers)`);
  return { settings, failures: [failure] };
}
