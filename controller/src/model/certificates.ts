// A `kubernetes.io/tls` Secret → a Certificate, with Node's own X.509 and key
// parsers (OpenSSL underneath; no ASN.1 of ours). Pure: parsing a string is
// no I/O, and the clock comes in as `now`. Refusal reasons never quote key
// material or a parser's error text (which could echo input); they name the
// Secret and what is wrong.

import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { V1Secret } from '@kubernetes/client-node';
import type { Certificate, SecretRef } from './types.ts';

/** The Secret type the Ingress API requires for spec.tls. */
export const TLS_SECRET_TYPE = 'kubernetes.io/tls';

/**
 * Caps on what one Secret sends to NGINX: every certificate goes to Lua and sits in a shared
 * dict, and ~40 Secrets of long chains once made a push too large for the Lua endpoint. CAs
 * issue a leaf and 1-3 intermediates (Let's Encrypt: 2 certificates, ~3.5 KiB; the longest
 * commercial chains: 4-5, ~8 KiB); a 4096-bit RSA key is ~3.3 KiB of PEM. Past a cap the
 * Secret is refused: its hosts get the default certificate and the Ingress a failure.
 */
export const MAX_CHAIN_CERTIFICATES = 10;
/** tls.crt and tls.key together, decoded. */
export const MAX_SECRET_PEM_BYTES = 64 * 1024;

/** A certificate from a Secret, or the reason it cannot be used. */
export type SecretCertificate =
  | { readonly ok: true; readonly certificate: Certificate; readonly expired: boolean }
  | { readonly ok: false; readonly reason: string };

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+?-----END CERTIFICATE-----/gu;
const DNS_NAME = /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/u;

function refuse(reason: string): SecretCertificate {
  return { ok: false, reason };
}

function decodeField(secret: V1Secret, field: string): string | null {
  const value: unknown = secret.data?.[field];
  if (typeof value !== 'string' || value === '') return null;
  return Buffer.from(value, 'base64').toString('utf8');
}

/** DNS names the leaf is valid for: SAN DNS entries, else the subject CN (as TLS clients once did). */
export function certificateNames(leaf: X509Certificate): string[] {
  // Node prints SANs as `DNS:a, DNS:b, IP Address:…`; entries with odd characters come JSON-quoted and are no DNS names.
  const fromSan = (leaf.subjectAltName ?? '').split(', ')
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice(4).toLowerCase());
  const fromCn = fromSan.length > 0 ? [] : leaf.subject.split('\n')
    .filter((line) => line.startsWith('CN='))
    .map((line) => line.slice(3).toLowerCase());
  return [...new Set([...fromSan, ...fromCn])].filter((name) => DNS_NAME.test(name)).sort();
}

/**
 * True when `names` cover `host`: an exact name, or a one-label wildcard
 * (`*.example.com` covers `a.example.com`, not `a.b.example.com` nor
 * `example.com`). A wildcard host is covered only by the same wildcard.
 */
export function namesCover(names: readonly string[], host: string): boolean {
  const wanted = host.toLowerCase().replace(/\.$/u, '');
  if (sortedIncludes(names, wanted)) return true;
  const dot = wanted.indexOf('.');
  if (wanted.startsWith('*.') || dot <= 0) return false;
  return sortedIncludes(names, `*${wanted.slice(dot)}`);
}

/** `names` is sorted (Certificate.names): a binary search, since a certificate may carry thousands of names and an Ingress thousands of hosts. */
function sortedIncludes(names: readonly string[], wanted: string): boolean {
  let low = 0;
  let high = names.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const name = names[middle] as string;
    if (name === wanted) return true;
    if (name < wanted) low = middle + 1;
    else high = middle;
  }
  return false;
}

function parseChain(pem: string): X509Certificate[] | null {
  const blocks = pem.match(PEM_CERTIFICATE);
  if (!blocks) return null;
  try {
    return blocks.map((block) => new X509Certificate(block));
  } catch {
    return null;
  }
}

function parseKey(pem: string): KeyObject | null {
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' });
    return key.type === 'private' ? key : null;
  } catch {
    return null; // encrypted, malformed, or not a key
  }
}

/** Reads and checks one TLS Secret; `now` (ms) decides `expired`, absent = never expired. */
export function readTlsSecret(secret: V1Secret | undefined, ref: SecretRef, now?: number): SecretCertificate {
  if (!secret) return refuse('Secret not found');
  if (secret.type !== TLS_SECRET_TYPE) return refuse(`Secret type is ${JSON.stringify(String(secret.type ?? ''))}, not ${TLS_SECRET_TYPE}`);
  const certPem = decodeField(secret, 'tls.crt');
  const keyPem = decodeField(secret, 'tls.key');
  if (certPem === null) return refuse('tls.crt is missing or empty');
  if (keyPem === null) return refuse('tls.key is missing or empty');
  const bytes = Buffer.byteLength(certPem) + Buffer.byteLength(keyPem);
  if (bytes > MAX_SECRET_PEM_BYTES) {
    return refuse(`tls.crt and tls.key hold ${bytes} bytes, more than ${MAX_SECRET_PEM_BYTES}`);
  }
  const chain = parseChain(certPem);
  if (!chain) return refuse('tls.crt holds no valid PEM certificate');
  if (chain.length > MAX_CHAIN_CERTIFICATES) {
    return refuse(`tls.crt holds a chain of ${chain.length} certificates, more than ${MAX_CHAIN_CERTIFICATES}`);
  }
  const key = parseKey(keyPem);
  if (!key) return refuse('tls.key is not an unencrypted PEM private key');
  const leaf = chain[0];
  if (!leaf.checkPrivateKey(key)) return refuse('tls.key does not match the certificate in tls.crt');
  const notAfter = leaf.validToDate;
  const certificate: Certificate = {
    id: `${ref.namespace}/${ref.name}`,
    secret: ref,
    // Re-encoded: Lua gets clean PEM whatever whitespace or comments the Secret held.
    cert: chain.map((item) => item.toString()).join(''),
    key: key.export({ type: 'pkcs8', format: 'pem' }).toString(),
    names: certificateNames(leaf),
    serial: leaf.serialNumber.toUpperCase(),
    notAfter: notAfter.toISOString(),
  };
  return { ok: true, certificate, expired: now !== undefined && notAfter.getTime() < now };
}
