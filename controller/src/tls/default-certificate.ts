// The placeholder certificate NGINX's HTTPS listener names in nginx.conf: a
// self-signed one made at start and written into the prefix. It is the
// controller's own throwaway key, never a user's: user keys only ever travel
// to Lua over the loopback configuration API and never touch disk.
// It is named as ingress-nginx's fake certificate (subject O, CN and SAN as
// its internal/net/ssl GetFakeSSLCert makes them): monitoring and runbooks
// of its users match on that subject to spot hosts served without their own.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createSelfSignedCertificate, type SelfSignedCertificate } from './self-signed.ts';

/** Where to write: the paths render names (render's defaultCertificatePaths). */
export interface CertificateFiles {
  readonly certificate: string;
  readonly key: string;
}

/** ingress-nginx's fake certificate name: `O=Acme Co, CN=Kubernetes Ingress Controller Fake Certificate`, SAN ingress.local. */
export const DEFAULT_CERTIFICATE_NAME = Object.freeze({
  organization: 'Acme Co',
  commonName: 'Kubernetes Ingress Controller Fake Certificate',
  dnsNames: Object.freeze(['ingress.local']),
});

/**
 * Makes a self-signed certificate for `keyPem` (default: a fresh key) and writes both (key mode
 * 0600); returns it for logs (serial).
 */
export function writeSelfSignedDefault(files: CertificateFiles, keyPem?: string): SelfSignedCertificate {
  const made = createSelfSignedCertificate({ ...DEFAULT_CERTIFICATE_NAME, keyPem });
  for (const dir of new Set([dirname(files.certificate), dirname(files.key)])) {
    // Only these folders are private. Made recursively with 0700, the prefix above them would be
    // too, and NGINX's workers (nobody, when started as root) could not enter it for temp files.
    mkdirSync(dirname(dir), { recursive: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  writeFileSync(files.certificate, made.cert, { mode: 0o644 });
  writeFileSync(files.key, made.key, { mode: 0o600 });
  return made;
}
