// auth-tls-* per host (features/client-certs.ts parses them per Ingress). As in
// ingress-nginx, client certificates bind to the server: the oldest Ingress of
// a host that names auth-tls-secret decides for every path of the host, a
// younger one asking for something else gets a Warning naming the winner.
// The result has a static half (Server.clientAuth: the host checks client
// certificates, and whether ssl-client-cert goes upstream) and a dynamic half
// (TlsState.clientAuth: the CA bundles and modes, pushed to Lua with the
// certificates), so a changed CA Secret or mode is no reload. A host whose
// CA Secret is missing, in another namespace (unless the ConfigMap's
// allow-cross-namespace-resources) or without a valid ca.crt gets
// no CA: Lua answers 403 for it (ingress-nginx's AuthTLSError), never serves
// it unverified.

import { X509Certificate } from 'node:crypto';
import type { V1Secret } from '@kubernetes/client-node';
import { describeRef, makeFailure, makeWarning } from './failure.ts';
import { compareText } from './order.ts';
import type { ClientAuthHost, ClientAuthState, ClientCertsConfig, Failure, IngressRef, Server } from './types.ts';

/** A CA bundle larger than this is refused (a TLS Secret's own bound, model/certificates.ts). */
export const MAX_CA_BYTES = 64 * 1024;
/** More CAs than this in one bundle is refused. */
export const MAX_CA_CERTIFICATES = 100;

/** What one accepted Ingress asks for (addIngress records it, oldest first). */
export interface ClientCertClaim {
  readonly ref: IngressRef;
  readonly hosts: readonly string[];
  readonly config: ClientCertsConfig;
}

/** The winner of one host. */
interface HostWinner {
  readonly ref: IngressRef;
  readonly config: ClientCertsConfig;
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----/gu;

/** The CA bundle of a Secret's ca.crt, re-encoded block by block, or why it is refused. */
export function readCaBundle(secret: V1Secret): { pem: string } | { reason: string } {
  const raw = secret.data?.['ca.crt'];
  if (typeof raw !== 'string' || raw === '') return { reason: 'has no ca.crt' };
  const text = Buffer.from(raw, 'base64').toString('utf8');
  if (text.length > MAX_CA_BYTES) return { reason: `ca.crt is larger than ${MAX_CA_BYTES} bytes` };
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) return { reason: 'ca.crt holds no PEM certificate' };
  if (blocks.length > MAX_CA_CERTIFICATES) return { reason: `ca.crt holds more than ${MAX_CA_CERTIFICATES} certificates` };
  const pems: string[] = [];
  for (const block of blocks) {
    try {
      // Only what parses as X.509 goes to Lua, in Node's own PEM text.
      pems.push(new X509Certificate(block).toString());
    } catch {
      return { reason: 'ca.crt holds a certificate that does not parse' };
    }
  }
  return { pem: pems.join('') };
}

function sameSettings(a: ClientCertsConfig, b: ClientCertsConfig): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Oldest wins per host; `claims` come oldest first. */
export function claimClientAuth(claims: readonly ClientCertClaim[]): { winners: Map<string, HostWinner>; failures: Failure[] } {
  const winners = new Map<string, HostWinner>();
  const failures: Failure[] = [];
  for (const claim of claims) {
    for (const host of claim.hosts) {
      const held = winners.get(host);
      if (held === undefined) {
        winners.set(host, { ref: claim.ref, config: claim.config });
      } else if (!sameSettings(held.config, claim.config)) {
        failures.push(makeWarning(claim.ref, 'ClientCertConflict', 'metadata.annotations',
          `client certificates of host ${host} are already set by older Ingress ${describeRef(held.ref)}; its auth-tls-* apply to the whole host`));
      }
    }
  }
  return { winners, failures };
}

/** Marks the servers whose host checks client certificates (the static half). */
export function markClientAuthServers(servers: readonly Server[], winners: ReadonlyMap<string, HostWinner>): readonly Server[] {
  if (winners.size === 0) return servers;
  return servers.map((server) => {
    const winner = winners.get(server.hostname);
    return winner === undefined ? server : Object.freeze({ ...server, clientAuth: Object.freeze({ passCertificate: winner.config.passCertificate }) });
  });
}

/**
 * The dynamic half: CA bundles read from the Secrets and each host's settings. A Secret of another
 * namespace than the Ingress's is read only with the ConfigMap's allow-cross-namespace-resources,
 * as ingress-nginx's authtls parser.
 */
export function resolveClientAuth(
  winners: ReadonlyMap<string, HostWinner>, secrets: readonly V1Secret[], allowCrossNamespace = false,
): { state: ClientAuthState | undefined; failures: Failure[] } {
  if (winners.size === 0) return { state: undefined, failures: [] };
  const failures: Failure[] = [];
  const cas = new Map<string, string>();
  const refused = new Set<string>();
  const hosts: ClientAuthHost[] = [];
  for (const [host, { ref, config }] of [...winners].sort(([a], [b]) => compareText(a, b))) {
    const secret = config.secret;
    if (secret === null) continue;
    const namespace = secret.namespace ?? ref.namespace;
    const id = `${namespace}/${secret.name}`;
    const field = 'metadata.annotations[auth-tls-secret]';
    let ca: string | null = null;
    if (namespace !== ref.namespace && !allowCrossNamespace) {
      failures.push(makeFailure(ref, 'ClientCertSecret', field, `CA Secret ${id} is in another namespace (allow-cross-namespace-resources is off); host ${host} answers 403`));
    } else if (cas.has(id)) {
      ca = id;
    } else if (!refused.has(id)) {
      const found = secrets.find((s) => s.metadata?.namespace === namespace && s.metadata?.name === secret.name);
      const bundle = found === undefined ? { reason: 'is not found' } : readCaBundle(found);
      if ('pem' in bundle) {
        cas.set(id, bundle.pem);
        ca = id;
      } else {
        refused.add(id);
        failures.push(makeFailure(ref, 'ClientCertSecret', field, `CA Secret ${id} ${bundle.reason}; host ${host} answers 403`));
      }
    } else {
      failures.push(makeFailure(ref, 'ClientCertSecret', field, `CA Secret ${id} is unusable; host ${host} answers 403`));
    }
    hosts.push(Object.freeze({ host, ca, verify: config.verify, depth: config.depth, matchCn: config.matchCn, errorPage: config.errorPage }));
  }
  const state: ClientAuthState = Object.freeze({
    cas: Object.freeze([...cas].sort(([a], [b]) => compareText(a, b)).map(([id, pem]) => Object.freeze({ id, pem }))),
    hosts: Object.freeze(hosts),
  });
  return { state, failures };
}
