// Test-only TLS material: self-signed certificates made once per test file
// (RSA keys take ~100 ms), Secrets that carry them, and spec.tls on Ingresses.

import type { V1Ingress, V1IngressTLS, V1Secret } from '@kubernetes/client-node';
import { createSelfSignedCertificate, type SelfSignedRequest } from '../../tls/self-signed.ts';

/** A certificate with its key. */
export interface TestCertificate {
  readonly cert: string;
  readonly key: string;
  readonly serial: string;
}

/** A certificate for `dnsNames` (SAN), valid now unless dates are given. */
export function testCertificate(dnsNames: readonly string[], request: SelfSignedRequest = {}): TestCertificate {
  return createSelfSignedCertificate({ dnsNames, ...request });
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** A Secret; `data` values are plain text (base64-encoded here as the API returns them). */
export function secret(name: string, data: Record<string, string>, type = 'kubernetes.io/tls', namespace = 'default'): V1Secret {
  return {
    metadata: { namespace, name },
    type,
    data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, b64(value)])),
  };
}

/** A kubernetes.io/tls Secret holding `certificate`. */
export function tlsSecret(name: string, certificate: TestCertificate, namespace = 'default'): V1Secret {
  return secret(name, { 'tls.crt': certificate.cert, 'tls.key': certificate.key }, 'kubernetes.io/tls', namespace);
}

/** A copy of `ingress` with spec.tls set. */
export function withTls(ingress: V1Ingress, tls: V1IngressTLS[]): V1Ingress {
  return { ...ingress, spec: { ...ingress.spec, tls } };
}
