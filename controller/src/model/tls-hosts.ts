// spec.tls of our Ingresses → the dynamic TlsState (which certificate each
// host gets) and the static set of hosts that have TLS (for ssl-redirect).
// Oldest Ingress wins a host; the loser gets a Conflict naming the winner.
// A bad Secret costs only its hosts: they get the default certificate and the
// Ingress a failure naming the Secret and why; every other host is untouched.

import type { V1Ingress, V1IngressTLS, V1Secret } from '@kubernetes/client-node';
import { namesCover, readTlsSecret, type SecretCertificate } from './certificates.ts';
import { describeRef, makeFailure, quoteValue } from './failure.ts';
import { CATCH_ALL_HOST, checkObjectName, checkRuleHost } from './names.ts';
import { compareText } from './order.ts';
import type { Certificate, CertificateHost, Failure, IngressRef, SecretRef, TlsState } from './types.ts';

/** One spec.tls entry after validation; `secret` null = no secretName: the default certificate. */
export interface TlsEntry {
  readonly secret: SecretRef | null;
  readonly hosts: readonly string[];
  /** `spec.tls[i]`, the prefix of the fields its failures name. */
  readonly field: string;
}

/** What one accepted Ingress asks for. */
export interface IngressTls {
  readonly ref: IngressRef;
  readonly entries: readonly TlsEntry[];
  /** Its valid rule hosts: a certificate of its own covering one serves it too. */
  readonly ruleHosts: readonly string[];
}

/** Validates spec.tls of one Ingress; a bad host or secretName drops only itself. */
export function readIngressTls(ingress: V1Ingress, ref: IngressRef, ruleHosts: readonly string[]): { tls: IngressTls; failures: Failure[] } {
  const failures: Failure[] = [];
  const raw: readonly V1IngressTLS[] = Array.isArray(ingress.spec?.tls) ? ingress.spec.tls : [];
  const entries = raw.map((item, index): TlsEntry => {
    const field = `spec.tls[${index}]`;
    let secret: SecretRef | null = null;
    if (item?.secretName !== undefined && item.secretName !== '') {
      const name = checkObjectName(item.secretName);
      if (name.ok) secret = { namespace: ref.namespace, name: name.value };
      else failures.push(makeFailure(ref, 'InvalidTLS', `${field}.secretName`, `secretName ${quoteValue(item.secretName)} refused: ${name.reason}`));
    }
    const hosts = new Set<string>();
    (Array.isArray(item?.hosts) ? item.hosts : []).forEach((host, hostIndex) => {
      const checked = checkRuleHost(host);
      if (!checked.ok || checked.value === CATCH_ALL_HOST) {
        failures.push(makeFailure(ref, 'InvalidHost', `${field}.hosts[${hostIndex}]`,
          `TLS host ${quoteValue(host)} refused: ${checked.ok ? 'empty' : checked.reason}`));
      } else hosts.add(checked.value);
    });
    return { secret, hosts: [...hosts], field };
  });
  return { tls: { ref, entries, ruleHosts }, failures };
}

/** Reads each referenced Secret once and reports each problem once per Ingress. */
class SecretReader {
  readonly #secrets = new Map<string, V1Secret>();
  readonly #results = new Map<string, SecretCertificate>();
  readonly #reported = new Set<string>();
  readonly used = new Map<string, Certificate>();
  readonly failures: Failure[] = [];
  readonly #now: number | undefined;

  constructor(secrets: readonly V1Secret[], now: number | undefined) {
    this.#now = now;
    for (const secret of secrets) {
      const meta = secret?.metadata;
      if (typeof meta?.namespace === 'string' && typeof meta.name === 'string') this.#secrets.set(`${meta.namespace}/${meta.name}`, secret);
    }
  }

  read(ref: SecretRef): SecretCertificate {
    const id = `${ref.namespace}/${ref.name}`;
    let result = this.#results.get(id);
    if (!result) {
      result = readTlsSecret(this.#secrets.get(id), ref, this.#now);
      this.#results.set(id, result);
    }
    return result;
  }

  /** A failure, once per (who, reason, Secret) however many hosts it touches. */
  report(ingress: IngressRef | null, reason: string, field: string, message: string, secretId: string): void {
    const key = `${ingress ? describeRef(ingress) : ''} ${reason} ${secretId}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    this.failures.push(makeFailure(ingress, reason, field, message));
  }

  /** The certificate when usable (expired still counts, flagged); null after reporting why not. */
  usable(ingress: IngressRef | null, ref: SecretRef, field: string): Certificate | null {
    const id = `${ref.namespace}/${ref.name}`;
    const result = this.read(ref);
    if (!result.ok) {
      this.report(ingress, 'InvalidCertificate', field, `TLS Secret ${id} refused: ${result.reason}; the default certificate is served instead`, id);
      return null;
    }
    if (result.expired) {
      this.report(ingress, 'CertificateExpired', field,
        `TLS Secret ${id} holds a certificate that expired at ${result.certificate.notAfter}; it is still served`, id);
    }
    return result.certificate;
  }
}

/**
 * The usable certificates of one Ingress's entries, indexed by the names they cover: the first
 * (in entry order) covering a host in one lookup, not one pass over the entries per host (an
 * Ingress may have 100k rule hosts and 1k entries).
 */
class CoveringCertificates {
  readonly #byName = new Map<string, { readonly order: number; readonly certificate: Certificate }>();

  constructor(entries: readonly TlsEntry[], reader: SecretReader) {
    entries.forEach((entry, order) => {
      if (!entry.secret) return;
      const result = reader.read(entry.secret);
      if (!result.ok) return;
      for (const name of result.certificate.names) {
        if (!this.#byName.has(name)) this.#byName.set(name, { order, certificate: result.certificate });
      }
    });
  }

  /** As namesCover: the exact name, else the one-label wildcard over it; the earlier entry wins. */
  first(host: string): Certificate | null {
    const exact = this.#byName.get(host);
    const dot = host.indexOf('.');
    const wildcard = host.startsWith('*.') || dot <= 0 ? undefined : this.#byName.get(`*${host.slice(dot)}`);
    if (exact && wildcard) return (exact.order <= wildcard.order ? exact : wildcard).certificate;
    return (exact ?? wildcard)?.certificate ?? null;
  }
}

/** The resolved TLS part of a build. */
export interface ResolvedTls {
  readonly state: TlsState;
  readonly failures: readonly Failure[];
}

interface Claim {
  readonly ingress: IngressRef;
  readonly secretId: string | null;
}

function parseSecretKey(value: string): SecretRef | null {
  const [namespace, name, extra] = value.split('/');
  if (extra !== undefined || !namespace || !name || !checkObjectName(name).ok) return null;
  return { namespace, name };
}

/** Resolves every Ingress's TLS (oldest first) and the default certificate against the Secrets. */
export function resolveTls(
  ingresses: readonly IngressTls[],
  secrets: readonly V1Secret[],
  options: { readonly defaultSslCertificate?: string | null; readonly now?: number },
): ResolvedTls {
  const reader = new SecretReader(secrets, options.now);
  const claims = new Map<string, Claim>();
  const hosts = new Map<string, string>();
  for (const ingress of ingresses) {
    for (const entry of ingress.entries) {
      const secretId = entry.secret ? `${entry.secret.namespace}/${entry.secret.name}` : null;
      // Read once per entry, when a host first needs it (an entry may name 100k hosts).
      let entryCertificate: Certificate | null | undefined;
      entry.hosts.forEach((host, index) => {
        const claim = claims.get(host);
        if (claim) {
          if (claim.secretId !== secretId) {
            reader.failures.push(makeFailure(ingress.ref, 'Conflict', `${entry.field}.hosts[${index}]`,
              `TLS for host ${quoteValue(host)} is already set by older Ingress ${describeRef(claim.ingress)} (Secret ${claim.secretId ?? 'none'}); this entry is ignored for it`));
          }
          return;
        }
        claims.set(host, { ingress: ingress.ref, secretId });
        if (!entry.secret) return;
        if (entryCertificate === undefined) entryCertificate = reader.usable(ingress.ref, entry.secret, `${entry.field}.secretName`);
        const certificate = entryCertificate;
        if (!certificate) return;
        if (!namesCover(certificate.names, host)) {
          reader.report(ingress.ref, 'CertificateHostMismatch', `${entry.field}.hosts[${index}]`,
            `certificate of TLS Secret ${certificate.id} is not valid for host ${quoteValue(host)}; the default certificate is served for it`, `${certificate.id} ${host}`);
          return;
        }
        hosts.set(host, certificate.id);
        reader.used.set(certificate.id, certificate);
      });
    }
  }
  // A rule host no tls.hosts names is still served by a certificate of its own Ingress that is valid for it.
  for (const ingress of ingresses) {
    let covering: CoveringCertificates | null = null;
    for (const host of ingress.ruleHosts) {
      if (host === CATCH_ALL_HOST || claims.has(host)) continue;
      covering ??= new CoveringCertificates(ingress.entries, reader);
      const certificate = covering.first(host);
      if (!certificate) continue;
      claims.set(host, { ingress: ingress.ref, secretId: certificate.id });
      hosts.set(host, certificate.id);
      reader.used.set(certificate.id, certificate);
    }
  }
  let defaultCertificate: string | null = null;
  const flag = options.defaultSslCertificate;
  if (flag) {
    const ref = parseSecretKey(flag);
    const certificate = ref ? reader.usable(null, ref, '--default-ssl-certificate') : null;
    if (!ref) reader.failures.push(makeFailure(null, 'InvalidCertificate', '--default-ssl-certificate', `${quoteValue(flag)} is not namespace/name`));
    if (certificate) {
      defaultCertificate = certificate.id;
      reader.used.set(certificate.id, certificate);
    }
  }
  const certificates = [...reader.used.values()].sort((a, b) => compareText(a.id, b.id));
  const hostList: CertificateHost[] = [...hosts.entries()]
    .map(([host, certificate]) => ({ host, certificate }))
    .sort((a, b) => compareText(a.host, b.host));
  return { state: { certificates, hosts: hostList, defaultCertificate }, failures: reader.failures };
}
