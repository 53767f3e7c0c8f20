// webhook-cert: the admission webhook's serving certificate, managed by the
// controller when the chart does not use cert-manager (--validating-webhook-secret).
// Owns: issuing a CA and serving certificates (node-forge signs, Node's crypto
// checks), the admission Secret (create/update with optimistic concurrency
// between replicas), the ValidatingWebhookConfiguration's caBundle, renewal
// before expiry. May import: kube/cluster-writer.ts (conflict errors),
// @kubernetes/client-node, node-forge, pino types. Nothing of admission/:
// the composition (controller.ts) hands the certificate to the HTTPS server.

export { createCertificateManager, INVALID_SECRET_REASON } from './certificate-manager.ts';
export type { CertificateManager, CertificateManagerOptions } from './certificate-manager.ts';
export { SECRET_KEYS } from './certificate-plan.ts';
export type { CertificatePolicy } from './certificate-plan.ts';
export { createCertificateCluster } from './cluster-access.ts';
export type { CertificateCluster, StoredSecret } from './cluster-access.ts';
export type { KeyPair } from './certificates.ts';
