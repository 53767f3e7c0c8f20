// Self-signed certificates: the controller's fallback default certificate,
// and the certificates tests need. node-forge builds and signs the X.509
// structure; the RSA key comes from Node's crypto (fast, native).

import { generateKeyPair, generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import forge from 'node-forge';

/** What to put in a self-signed certificate. */
export interface SelfSignedRequest {
  /** Subject CN; default the first DNS name, else `resty-ingress-default`. */
  readonly commonName?: string;
  /** Subject O, before the CN (as Go's crypto/x509 orders them); absent = none. */
  readonly organization?: string;
  /** SAN DNS names (may include `*.` wildcards); empty = no SAN extension. */
  readonly dnsNames?: readonly string[];
  /** Validity start; default one hour ago (tolerates clock skew). */
  readonly notBefore?: Date;
  /** Validity end; default one year after notBefore. */
  readonly notAfter?: Date;
  /** Serial as hex; default 16 random bytes. */
  readonly serial?: string;
  /** PEM private key to certify; default a fresh RSA 2048 key. */
  readonly keyPem?: string;
}

/** A certificate and its key, both PEM. */
export interface SelfSignedCertificate {
  readonly cert: string;
  readonly key: string;
  /** Serial as Node's X509Certificate and tls print it (uppercase hex, whole bytes). */
  readonly serial: string;
}

const HOUR_MS = 3_600_000;
const YEAR_MS = 365 * 24 * HOUR_MS;

function freshKeyPem(): string {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/**
 * A fresh RSA 2048 key (PKCS #8 PEM), made on libuv's thread pool: the controller's start goes
 * on parsing its first lists meanwhile (made inline, the key was ~80 ms of that event loop).
 */
export function generateKeyPem(): Promise<string> {
  return new Promise((resolve, reject) => {
    generateKeyPair('rsa', { modulusLength: 2048 }, (err, _publicKey, privateKey) => {
      if (err) reject(err);
      else resolve(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    });
  });
}

function normaliseSerial(hex: string): string {
  // X.509 serials are positive integers: a leading 0 keeps DER from reading a high bit as negative.
  const trimmed = hex.replace(/^0+/u, '') || '1';
  const even = trimmed.length % 2 === 0 ? trimmed : `0${trimmed}`;
  return /^[89a-f]/iu.test(even) ? `00${even}` : even;
}

/** Creates a self-signed certificate; synchronous (about 50 ms for the RSA key). */
export function createSelfSignedCertificate(request: SelfSignedRequest = {}): SelfSignedCertificate {
  const keyPem = request.keyPem ?? freshKeyPem();
  const privateKey = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  const publicKey = forge.pki.setRsaPublicKey(privateKey.n, privateKey.e);
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = normaliseSerial(request.serial ?? randomBytes(16).toString('hex'));
  const notBefore = request.notBefore ?? new Date(Date.now() - HOUR_MS);
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = request.notAfter ?? new Date(notBefore.getTime() + YEAR_MS);
  const dnsNames = request.dnsNames ?? [];
  const subject = [
    ...request.organization === undefined ? [] : [{ name: 'organizationName', value: request.organization }],
    { name: 'commonName', value: request.commonName ?? dnsNames[0] ?? 'resty-ingress-default' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  const extensions: object[] = [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', serverAuth: true },
  ];
  if (dnsNames.length > 0) extensions.push({ name: 'subjectAltName', altNames: dnsNames.map((value) => ({ type: 2, value })) });
  cert.setExtensions(extensions);
  cert.sign(privateKey, forge.md.sha256.create());
  const pem = forge.pki.certificateToPem(cert);
  return { cert: pem, key: keyPem, serial: new X509Certificate(pem).serialNumber.toUpperCase() };
}
