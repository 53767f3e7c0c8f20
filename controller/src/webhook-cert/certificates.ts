// The webhook's CA and serving certificate: made with node-forge (Node's
// crypto parses X.509 but cannot sign it), checked with Node's
// X509Certificate. RSA 2048 keys come from Node's crypto (native, ~50 ms).
// Pure apart from randomness: the clock is a parameter.

import { generateKeyPairSync, randomBytes, X509Certificate, createPrivateKey } from 'node:crypto';
import forge from 'node-forge';

/** A certificate and its private key, PEM. */
export interface KeyPair {
  readonly certPem: string;
  readonly keyPem: string;
}

/** Both halves of the Secret: the CA (kept while valid) and the serving certificate it signed. */
export interface WebhookCertificates {
  /** The CA that signs serving certificates; keyPem is '' when the Secret did not carry ca.key (certgen's Secrets do not). */
  readonly ca: KeyPair;
  /** Every CA the API server must trust, newest first: the current one plus a replaced one still valid (ca.crt, the caBundle). */
  readonly caBundle: string;
  readonly serving: KeyPair;
}

const CLOCK_SKEW_MS = 5 * 60_000;

function freshKeyPem(): string {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

function serialHex(): string {
  // Positive (high bit clear) 16 bytes, as RFC 5280 wants.
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  return bytes.toString('hex');
}

interface SignRequest {
  readonly subject: string;
  readonly keyPem: string;
  readonly issuer: { readonly subject: string; readonly keyPem: string } | null;
  readonly notAfter: Date;
  readonly now: Date;
  readonly isCa: boolean;
  readonly dnsNames: readonly string[];
}

function sign(request: SignRequest): string {
  const privateKey = forge.pki.privateKeyFromPem(request.keyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(privateKey.n, privateKey.e);
  cert.serialNumber = serialHex();
  // Backdated a little: a replica or an API server whose clock is behind still accepts it.
  cert.validity.notBefore = new Date(request.now.getTime() - CLOCK_SKEW_MS);
  cert.validity.notAfter = request.notAfter;
  cert.setSubject([{ name: 'commonName', value: request.subject }]);
  cert.setIssuer([{ name: 'commonName', value: request.issuer?.subject ?? request.subject }]);
  const extensions: object[] = request.isCa
    ? [{ name: 'basicConstraints', cA: true, critical: true }, { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true }]
    : [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: request.dnsNames.map((value) => ({ type: 2, value })) },
      ];
  extensions.push({ name: 'subjectKeyIdentifier' });
  cert.setExtensions(extensions);
  const signer = forge.pki.privateKeyFromPem(request.issuer?.keyPem ?? request.keyPem) as forge.pki.rsa.PrivateKey;
  cert.sign(signer, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

export const CA_SUBJECT = 'resty-ingress-admission-ca';

/** A new self-signed CA valid until `notAfter`. */
export function createCa(now: Date, notAfter: Date): KeyPair {
  const keyPem = freshKeyPem();
  return { certPem: sign({ subject: CA_SUBJECT, keyPem, issuer: null, notAfter, now, isCa: true, dnsNames: [] }), keyPem };
}

/** A serving certificate for `dnsNames` signed by `ca`, valid until `notAfter` (never past the CA's end). */
export function issueServing(ca: KeyPair, dnsNames: readonly string[], now: Date, notAfter: Date): KeyPair {
  const caEnd = notAfterOf(ca.certPem);
  const end = caEnd < notAfter ? caEnd : notAfter;
  const keyPem = freshKeyPem();
  const certPem = sign({ subject: dnsNames[0] ?? 'resty-ingress-admission', keyPem, issuer: { subject: CA_SUBJECT, keyPem: ca.keyPem }, notAfter: end, now, isCa: false, dnsNames });
  return { certPem, keyPem };
}

/** The PEM certificates in a bundle, in order. */
export function pemBlocks(bundle: string): string[] {
  return bundle.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/gu)?.map((block) => `${block}\n`) ?? [];
}

export function notAfterOf(certPem: string): Date {
  return new Date(new X509Certificate(certPem).validTo);
}

/** SAN DNS names of a certificate. */
export function dnsNamesOf(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? '').split(', ').filter((entry) => entry.startsWith('DNS:')).map((entry) => entry.slice(4));
}

/** Why `pair` cannot be used as it is (undefined: it can): unparsable, key mismatch. Throws nothing. */
export function keyPairProblem(pair: KeyPair): string | undefined {
  try {
    const cert = new X509Certificate(pair.certPem);
    if (!cert.checkPrivateKey(createPrivateKey(pair.keyPem))) return 'the private key does not belong to the certificate';
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** True when `certPem` is signed by one of the CAs in `bundle`, each valid at `now`. */
export function signedByBundle(certPem: string, bundle: string, now: Date): boolean {
  const cert = new X509Certificate(certPem);
  return pemBlocks(bundle).some((caPem) => {
    const ca = new X509Certificate(caPem);
    return ca.ca && new Date(ca.validTo) > now && cert.checkIssued(ca) && cert.verify(ca.publicKey);
  });
}
