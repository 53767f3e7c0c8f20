// proxy-ssl-secret → the PEMs NGINX uses for TLS to a backend, resolved on
// every build from the Secrets of the snapshot (like spec.tls, and outside the
// routing the builder reuses: a Secret change must not wait for an Ingress
// change). As in ingress-nginx, a Secret with tls.crt + tls.key gives the client
// certificate, ca.crt the CAs to verify the backend against; one with neither
// cannot be used. A location whose Secret is missing or refused answers 503 (the
// renderer: ingress-nginx's "location denied"), and its Ingress gets a failure
// that names the Secret and what is wrong, never a byte of key material.

import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import type { V1Secret } from '@kubernetes/client-node';
import { makeFailure } from './failure.ts';
import { splitObjectReference } from './features/object-ref.ts';
import type { BackendTlsSecret, Failure, IngressRef, Server } from './types.ts';

/** The largest Secret used here (all three PEMs, decoded); as for spec.tls. */
const MAX_PEM_BYTES = 64 * 1024;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+?-----END CERTIFICATE-----/gu;

export interface ResolvedBackendTls {
  /** The usable Secrets, sorted by id. */
  readonly secrets: readonly BackendTlsSecret[];
  readonly failures: readonly Failure[];
}

function decoded(secret: V1Secret, field: string): string | null {
  const value: unknown = secret.data?.[field];
  if (typeof value !== 'string' || value === '') return null;
  return Buffer.from(value, 'base64').toString('utf8');
}

/** The certificates of a PEM bundle, each parsed; null when there is none or one does not parse. */
function certificatesOf(pem: string): string[] | null {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0 || blocks.length > 100) return null;
  try {
    for (const block of blocks) new X509Certificate(block);
  } catch {
    return null;
  }
  return blocks;
}

/** The Secret's PEMs, or why it cannot be used (never quoting its content). */
export function readBackendTlsSecret(secret: V1Secret, id: string): { ok: true; value: BackendTlsSecret } | { ok: false; reason: string } {
  const caText = decoded(secret, 'ca.crt');
  const certText = decoded(secret, 'tls.crt');
  const keyText = decoded(secret, 'tls.key');
  const size = [caText, certText, keyText].reduce((sum, text) => sum + (text === null ? 0 : Buffer.byteLength(text)), 0);
  if (size > MAX_PEM_BYTES) return { ok: false, reason: `Secret ${id} holds more than ${MAX_PEM_BYTES} bytes of PEM` };
  let ca: string | null = null;
  if (caText !== null) {
    const blocks = certificatesOf(caText);
    if (blocks === null) return { ok: false, reason: `Secret ${id}: ca.crt holds no valid PEM certificate` };
    ca = `${blocks.join('\n')}\n`;
  }
  let cert: string | null = null;
  let key: string | null = null;
  if (certText !== null && keyText !== null) {
    const blocks = certificatesOf(certText);
    if (blocks === null) return { ok: false, reason: `Secret ${id}: tls.crt holds no valid PEM certificate` };
    let privateKey;
    try {
      privateKey = createPrivateKey(keyText);
    } catch {
      return { ok: false, reason: `Secret ${id}: tls.key is not a valid PEM private key` };
    }
    if (!new X509Certificate(blocks[0] as string).checkPrivateKey(privateKey)) {
      return { ok: false, reason: `Secret ${id}: tls.key does not match tls.crt` };
    }
    cert = `${blocks.join('\n')}\n`;
    // Re-exported: NGINX gets a clean PKCS#8 PEM whatever the Secret's text around it.
    key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  } else if (certText !== null || keyText !== null) {
    return { ok: false, reason: `Secret ${id}: tls.crt and tls.key must come together` };
  }
  if (ca === null && cert === null) return { ok: false, reason: `Secret ${id} has neither ca.crt nor tls.crt and tls.key` };
  const fingerprint = createHash('sha256').update(ca ?? '').update('\0').update(cert ?? '').update('\0').update(key ?? '').digest('hex').slice(0, 16);
  return { ok: true, value: { id, ca, cert, key, fingerprint } };
}

/**
 * Why `ingress` may not use the Secret `id`, or null (ingress-nginx: only Secrets of the Ingress's
 * own namespace, unless allow-cross-namespace-resources).
 */
export function crossNamespace(id: string, ingress: IngressRef, allow: boolean): string | null {
  const ref = splitObjectReference(id, ingress.namespace);
  return allow || ref.namespace === ingress.namespace ? null : `proxy-ssl-secret ${id} is not in the Ingress's namespace ${ingress.namespace}`;
}

/** The proxy-ssl Secrets the locations of `servers` use, each Ingress told once about a Secret it cannot use. */
export function resolveBackendTls(servers: readonly Server[], secrets: readonly V1Secret[], annotationsPrefix: string, allowCrossNamespace = false): ResolvedBackendTls {
  const wanted = new Map<string, IngressRef[]>();
  const seenPolicies = new Set<object>();
  for (const server of servers) {
    for (const location of server.locations) {
      const config = location.policy.proxySsl;
      if (config === undefined || config.secret === null || location.ingress === null || seenPolicies.has(location.policy)) continue;
      seenPolicies.add(location.policy);
      const users = wanted.get(config.secret) ?? [];
      if (!users.some((ref) => ref.namespace === location.ingress?.namespace && ref.name === location.ingress.name)) users.push(location.ingress);
      wanted.set(config.secret, users);
    }
  }
  if (wanted.size === 0) return { secrets: [], failures: [] };
  const byId = new Map<string, V1Secret>();
  for (const secret of secrets) {
    const namespace = secret?.metadata?.namespace;
    const name = secret?.metadata?.name;
    if (typeof namespace === 'string' && typeof name === 'string' && wanted.has(`${namespace}/${name}`)) byId.set(`${namespace}/${name}`, secret);
  }
  const resolved: BackendTlsSecret[] = [];
  const failures: Failure[] = [];
  const field = `metadata.annotations[${annotationsPrefix}/proxy-ssl-secret]`;
  for (const [id, users] of [...wanted].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const secret = byId.get(id);
    const read = secret === undefined ? { ok: false as const, reason: `Secret ${id} not found` } : readBackendTlsSecret(secret, id);
    if (read.ok) resolved.push(read.value);
    for (const ingress of users) {
      const reason = crossNamespace(id, ingress, allowCrossNamespace) ?? (read.ok ? null : read.reason);
      if (reason !== null) failures.push(makeFailure(ingress, 'InvalidBackendTls', field, `${reason}; its paths answer 503`));
    }
  }
  return { secrets: resolved, failures };
}

/** The files written for one proxy-ssl-secret (nginx/backend-tls-files.ts writes them, nginx.conf names them). */
export interface BackendTlsFiles {
  /** ca.crt, or null. */
  readonly ca: string | null;
  /** tls.crt followed by tls.key (NGINX reads both from one file), or null. */
  readonly certificate: string | null;
}

/** The folder of the proxy-ssl files under the NGINX prefix. */
export function backendTlsDir(prefix: string): string {
  return `${prefix}/backend-tls`;
}

/**
 * The files of each Secret, by id: namespace, name and fingerprint (a rotation is a new file, so
 * NGINX still finds the old one until the reload that names the new one; `_` is in neither a
 * namespace nor a name).
 */
export function backendTlsFiles(prefix: string, secrets: readonly BackendTlsSecret[] | undefined): Map<string, BackendTlsFiles> {
  const files = new Map<string, BackendTlsFiles>();
  for (const secret of secrets ?? []) {
    const { namespace, name } = splitObjectReference(secret.id, '');
    const base = `${backendTlsDir(prefix)}/${namespace}_${name}_${secret.fingerprint}`;
    files.set(secret.id, { ca: secret.ca === null ? null : `${base}.ca.pem`, certificate: secret.cert === null ? null : `${base}.pem` });
  }
  return files;
}
