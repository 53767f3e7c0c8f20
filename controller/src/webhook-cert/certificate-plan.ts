// What to do with the admission Secret's contents: use them as they are, or
// issue a new serving certificate (keeping the CA while it outlives the new
// certificate, so the webhook's caBundle rarely changes). Pure: the clock is
// a parameter; only building a new certificate draws random keys.

import { X509Certificate } from 'node:crypto';
import {
  createCa, dnsNamesOf, issueServing, keyPairProblem, notAfterOf, pemBlocks, signedByBundle,
  type KeyPair, type WebhookCertificates,
} from './certificates.ts';

/** Secret keys, as cert-manager and ingress-nginx's certgen write them (ca.key is ours: it lets the CA be kept). */
export const SECRET_KEYS = { cert: 'tls.crt', key: 'tls.key', ca: 'ca.crt', caKey: 'ca.key' } as const;

export interface CertificatePolicy {
  /** SAN DNS names the API server may call the webhook by (the webhook Service's names). */
  readonly dnsNames: readonly string[];
  /** Lifetime of a serving certificate; it is renewed when a third of it is left. */
  readonly validityMs: number;
}

/** A CA lives three serving certificates: the caBundle changes about once per two renewals. */
export const CA_LIFETIMES = 3;

export type Verdict =
  | { readonly kind: 'use'; readonly certificates: WebhookCertificates; readonly renewAt: Date }
  | {
    readonly kind: 'renew';
    readonly reason: string;
    /** The Secret held something unusable (not merely absent or old): worth a Warning Event. */
    readonly invalid: boolean;
    /** The CA to sign with, when it is sound and outlives a new serving certificate. */
    readonly keepCa: KeyPair | null;
    /** CAs of the old Secret still valid: they stay trusted while other replicas serve what they signed. */
    readonly previousCas: readonly string[];
  };

type SecretData = Readonly<Record<string, string>>;

function validCas(bundle: string | undefined, now: Date): string[] {
  return pemBlocks(bundle ?? '').filter((pem) => {
    try {
      return notAfterOf(pem) > now;
    } catch {
      return false;
    }
  });
}

/** The Secret's CA when it can sign a new certificate that ends before it does. */
function reusableCa(data: SecretData, policy: CertificatePolicy, now: Date): KeyPair | null {
  const certPem = pemBlocks(data[SECRET_KEYS.ca] ?? '')[0];
  const keyPem = data[SECRET_KEYS.caKey] ?? '';
  if (!certPem || !keyPem || keyPairProblem({ certPem, keyPem }) !== undefined) return null;
  const cert = new X509Certificate(certPem);
  return cert.ca && notAfterOf(certPem).getTime() - now.getTime() >= policy.validityMs ? { certPem, keyPem } : null;
}

/** Why the serving certificate in `data` cannot be used (invalid: it is broken, not just due), or null when it can. */
function servingProblem(data: SecretData, policy: CertificatePolicy, now: Date): { reason: string; invalid: boolean } | null {
  const serving = { certPem: data[SECRET_KEYS.cert] ?? '', keyPem: data[SECRET_KEYS.key] ?? '' };
  if (!serving.certPem || !serving.keyPem) return { reason: `${SECRET_KEYS.cert} or ${SECRET_KEYS.key} is missing`, invalid: true };
  const broken = keyPairProblem(serving);
  if (broken !== undefined) return { reason: `the serving certificate is unusable: ${broken}`, invalid: true };
  if (!signedByBundle(serving.certPem, data[SECRET_KEYS.ca] ?? '', now)) {
    return { reason: `the serving certificate is not signed by a valid CA in ${SECRET_KEYS.ca}`, invalid: true };
  }
  const names = dnsNamesOf(new X509Certificate(serving.certPem));
  const missing = policy.dnsNames.filter((name) => !names.includes(name));
  if (missing.length > 0) return { reason: `the serving certificate does not name ${missing.join(', ')}`, invalid: false };
  const left = notAfterOf(serving.certPem).getTime() - now.getTime();
  if (left < policy.validityMs / 3) return { reason: left <= 0 ? 'the serving certificate has expired' : 'the serving certificate is near expiry', invalid: false };
  return null;
}

/** Reads the Secret's data (null: no Secret) and decides. */
export function assessSecret(data: SecretData | null, policy: CertificatePolicy, now: Date): Verdict {
  if (data === null) return { kind: 'renew', reason: 'the Secret does not exist', invalid: false, keepCa: null, previousCas: [] };
  // The chart creates it empty, so that the controller needs no right to create Secrets.
  if (Object.values(SECRET_KEYS).every((key) => !data[key])) return { kind: 'renew', reason: 'the Secret is empty', invalid: false, keepCa: null, previousCas: [] };
  let problem: { reason: string; invalid: boolean } | null;
  try {
    problem = servingProblem(data, policy, now);
  } catch (err) {
    problem = { reason: `the Secret cannot be read as certificates: ${err instanceof Error ? err.message : String(err)}`, invalid: true };
  }
  if (problem === null) {
    const certPem = data[SECRET_KEYS.cert];
    const renewAt = new Date(notAfterOf(certPem).getTime() - policy.validityMs / 3);
    const certificates: WebhookCertificates = {
      ca: { certPem: pemBlocks(data[SECRET_KEYS.ca])[0] ?? '', keyPem: data[SECRET_KEYS.caKey] ?? '' },
      caBundle: data[SECRET_KEYS.ca],
      serving: { certPem, keyPem: data[SECRET_KEYS.key] },
    };
    return { kind: 'use', certificates, renewAt };
  }
  let keepCa: KeyPair | null;
  try {
    keepCa = reusableCa(data, policy, now);
  } catch {
    keepCa = null;
  }
  return { kind: 'renew', ...problem, keepCa, previousCas: validCas(data[SECRET_KEYS.ca], now) };
}

/** Issues what a 'renew' verdict asks for: a serving certificate, and a CA when the old one cannot be kept. */
export function renewCertificates(verdict: Extract<Verdict, { kind: 'renew' }>, policy: CertificatePolicy, now: Date): WebhookCertificates {
  const ca = verdict.keepCa ?? createCa(now, new Date(now.getTime() + CA_LIFETIMES * policy.validityMs));
  const serving = issueServing(ca, policy.dnsNames, now, new Date(now.getTime() + policy.validityMs));
  // The new CA first, then at most one older one still valid (replicas may still serve what it signed).
  const older = verdict.previousCas.filter((pem) => pem.trim() !== ca.certPem.trim()).slice(0, 1);
  return { ca, caBundle: [ca.certPem, ...older].map((pem) => pem.trimEnd()).join('\n') + '\n', serving };
}

/** The Secret's data for a set of certificates. */
export function secretDataOf(certificates: WebhookCertificates): Record<string, string> {
  return {
    [SECRET_KEYS.cert]: certificates.serving.certPem,
    [SECRET_KEYS.key]: certificates.serving.keyPem,
    [SECRET_KEYS.ca]: certificates.caBundle,
    ...certificates.ca.keyPem ? { [SECRET_KEYS.caKey]: certificates.ca.keyPem } : {},
  };
}
