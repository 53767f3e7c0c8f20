// nginx_ingress_controller_ssl_certificate_info: one series (value 1) per
// served host and certificate, labelled with what ingress-nginx put there
// (issuer, serial, key algorithm), so its certificate tables and joins on
// `identifier` keep working. Each PEM is parsed once and remembered while it
// is served.

import { X509Certificate } from 'node:crypto';
import { Gauge, type Registry } from 'prom-client';
import type { Certificate, TlsState } from '../model/types.ts';
import { DEFAULT_CERTIFICATE_HOST } from './certificate-expiry.ts';

/** The labels one leaf certificate gives, as ingress-nginx (Go's crypto/x509) spelled them. */
export interface CertificateFacts {
  /** `<issuer serialNumber attribute>-<serial in decimal>` (the attribute is usually absent: "-<serial>"). */
  readonly identifier: string;
  readonly issuer_organization: string;
  readonly issuer_common_name: string;
  /** Decimal, as Go's big.Int prints it. */
  readonly serial_number: string;
  /** Go's x509.PublicKeyAlgorithm names. */
  readonly public_key_algorithm: string;
}

const KEY_ALGORITHMS: Readonly<Record<string, string>> = { rsa: 'RSA', dsa: 'DSA', ec: 'ECDSA', ed25519: 'Ed25519' };

/** The first value of `attribute` in a distinguished name as node prints it ("C=US\nO=Example\nCN=CA"). */
function attributeOf(name: string, attribute: string): string {
  for (const line of name.split('\n')) {
    if (line.startsWith(`${attribute}=`)) return line.slice(attribute.length + 1);
  }
  return '';
}

/** The leaf's facts, or null when the PEM does not parse (it was validated before; this is defence). */
export function certificateFacts(pem: string): CertificateFacts | null {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(pem);
  } catch {
    return null;
  }
  const serial = BigInt(`0x${leaf.serialNumber}`).toString(10);
  const keyType = leaf.publicKey.asymmetricKeyType ?? '';
  return {
    identifier: `${attributeOf(leaf.issuer, 'serialNumber')}-${serial}`,
    issuer_organization: attributeOf(leaf.issuer, 'O'),
    issuer_common_name: attributeOf(leaf.issuer, 'CN'),
    serial_number: serial,
    // Go names an algorithm it does not know (RSA-PSS keys among them) by its number, 0.
    public_key_algorithm: KEY_ALGORITHMS[keyType] ?? '0',
  };
}

export interface CertificateInfoMetric {
  /** The certificates NGINX now serves (rebuilt whole, like ssl_expire_time_seconds). */
  served(tls: TlsState): void;
}

export function createCertificateInfoMetric(options: { readonly registry: Registry; readonly ingressClass: string }): CertificateInfoMetric {
  const gauge = new Gauge({
    name: 'nginx_ingress_controller_ssl_certificate_info',
    help: 'Hold all labels associated to a certificate',
    labelNames: ['namespace', 'class', 'host', 'secret_name', 'identifier', 'issuer_organization', 'issuer_common_name', 'serial_number', 'public_key_algorithm'],
    registers: [options.registry],
  });
  let parsed = new Map<string, CertificateFacts | null>();
  const factsOf = (certificate: Certificate, next: Map<string, CertificateFacts | null>): CertificateFacts | null => {
    const facts = next.get(certificate.cert) ?? parsed.get(certificate.cert) ?? certificateFacts(certificate.cert);
    next.set(certificate.cert, facts);
    return facts;
  };
  return {
    served(tls: TlsState): void {
      const byId = new Map(tls.certificates.map((certificate) => [certificate.id, certificate]));
      const hosts = tls.hosts.map(({ host, certificate }) => ({ host, id: certificate }));
      if (tls.defaultCertificate !== null) hosts.push({ host: DEFAULT_CERTIFICATE_HOST, id: tls.defaultCertificate });
      const next = new Map<string, CertificateFacts | null>();
      gauge.reset();
      for (const { host, id } of hosts) {
        const certificate = byId.get(id);
        const facts = certificate === undefined ? null : factsOf(certificate, next);
        if (certificate === undefined || facts === null) continue;
        gauge.set({ namespace: certificate.secret.namespace, class: options.ingressClass, host, secret_name: certificate.secret.name, ...facts }, 1);
      }
      // Only what is served now stays remembered.
      parsed = next;
    },
  };
}
