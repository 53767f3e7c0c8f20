// Value parsers for command-line flags. Each returns the typed value or throws
// commander's InvalidArgumentError, whose message commander prefixes with the
// flag and the bad value ("option '--http-port <port>' argument 'x' is invalid.").
// Grammars are strict: several values end up in nginx.conf or in API paths.

import { isIP } from 'node:net';

import { InvalidArgumentError } from 'commander';

/** pino's level names, lowest to highest, plus `silent`. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

// RFC 1123 label (namespaces) and subdomain (most object names), as Kubernetes validates them.
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
// IngressClass spec.controller: a domain-prefixed path, e.g. k8s.io/ingress-nginx.
const CONTROLLER_CLASS = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?$/;
// Goes into `nginx -p` and file paths inside nginx.conf: no spaces, quotes, `;`, `$`, `{}`.
const SAFE_ABSOLUTE_PATH = /^\/[A-Za-z0-9._/-]*$/;

function isDnsLabel(value: string): boolean {
  return value.length <= 63 && DNS_LABEL.test(value);
}

function isDnsSubdomain(value: string): boolean {
  return value.length <= 253 && DNS_SUBDOMAIN.test(value);
}

/** A TCP port: a decimal integer from 1 to 65535. */
export function parsePort(value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) < 1 || Number(value) > 65535) {
    throw new InvalidArgumentError('Expected an integer port from 1 to 65535.');
  }
  return Number(value);
}

/** A finite number greater than zero (e.g. syncs per second). */
export function parsePositiveNumber(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number <= 0) {
    throw new InvalidArgumentError('Expected a number greater than 0.');
  }
  return number;
}

/** Whole seconds from 0 to 3600 (e.g. --shutdown-grace-period). */
export function parseSeconds(value: string): number {
  if (!/^\d{1,4}$/.test(value) || Number(value) > 3600) {
    throw new InvalidArgumentError('Expected whole seconds from 0 to 3600.');
  }
  return Number(value);
}

/** `auto` or a whole number of NGINX worker processes (1–1024). */
export function parseWorkerProcesses(value: string): number | 'auto' {
  if (value === 'auto') return 'auto';
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > 1024) {
    throw new InvalidArgumentError('Expected "auto" or an integer from 1 to 1024.');
  }
  return Number(value);
}

/** Go-flag booleans (what ingress-nginx users type): true/false, 1/0, t/f in any common case. */
export function parseBoolean(value: string): boolean {
  if (['true', 'True', 'TRUE', 't', 'T', '1'].includes(value)) return true;
  if (['false', 'False', 'FALSE', 'f', 'F', '0'].includes(value)) return false;
  throw new InvalidArgumentError('Expected true or false.');
}

export function parseLogLevel(value: string): LogLevel {
  const level = LOG_LEVELS.find((candidate) => candidate === value);
  if (level === undefined) throw new InvalidArgumentError(`Expected one of: ${LOG_LEVELS.join(', ')}.`);
  return level;
}

/** `namespace/name`, or the empty string for "not set". */
export function parseNamespacedName(value: string): string {
  if (value === '') return value;
  const parts = value.split('/');
  if (parts.length !== 2 || !isDnsLabel(parts[0] ?? '') || !isDnsSubdomain(parts[1] ?? '')) {
    throw new InvalidArgumentError('Expected namespace/name (lowercase RFC 1123 names).');
  }
  return value;
}

/** A namespace name, or the empty string for "all namespaces". */
export function parseNamespace(value: string): string {
  if (value !== '' && !isDnsLabel(value)) {
    throw new InvalidArgumentError('Expected a namespace name (lowercase RFC 1123 label) or "" for all.');
  }
  return value;
}

/** An object name such as an IngressClass or a Lease (RFC 1123 subdomain). */
export function parseObjectName(value: string): string {
  if (!isDnsSubdomain(value)) throw new InvalidArgumentError('Expected a lowercase RFC 1123 name.');
  return value;
}

/** An annotation prefix: a DNS subdomain, without the trailing `/`. */
export function parseAnnotationsPrefix(value: string): string {
  if (!isDnsSubdomain(value)) {
    throw new InvalidArgumentError('Expected a DNS subdomain without a trailing "/", e.g. nginx.ingress.kubernetes.io.');
  }
  return value;
}

export function parseControllerClass(value: string): string {
  if (value.length > 250 || !CONTROLLER_CLASS.test(value)) {
    throw new InvalidArgumentError('Expected a domain-prefixed path, e.g. resty-ingress.dev/controller.');
  }
  return value;
}

/** An IPv4 or IPv6 address (no host names: NGINX must not resolve at start). */
export function parseIpAddress(value: string): string {
  if (isIP(value) === 0) throw new InvalidArgumentError('Expected an IPv4 or IPv6 address.');
  return value;
}

/** --apiserver-host: an http(s) URL without credentials or query ("" = not set). */
export function parseApiserverHost(value: string): string {
  if (value === '') return value;
  const url = URL.canParse(value) ? new URL(value) : null;
  if (url === null || !['http:', 'https:'].includes(url.protocol) || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new InvalidArgumentError('Expected the API server as https://host:port (or http://).');
  }
  return value;
}

/** An IPv4 or IPv6 address, or "" for "not set". */
export function parseOptionalIpAddress(value: string): string {
  return value === '' ? value : parseIpAddress(value);
}

/** --health-check-path: an absolute URL path of plain characters, not one the healthz server already answers. */
export function parseHealthPath(value: string): string {
  if (!/^\/[A-Za-z0-9._~/-]{0,200}$/.test(value)) throw new InvalidArgumentError('Expected an absolute path of letters, digits, ".", "_", "~", "-" and "/".');
  if (value === '/readyz' || value === '/metrics') throw new InvalidArgumentError(`Expected a path other than ${value}, which the healthz server answers already.`);
  return value;
}

export function parseSafeAbsolutePath(value: string): string {
  if (!SAFE_ABSOLUTE_PATH.test(value) || value.split('/').includes('..')) {
    throw new InvalidArgumentError('Expected an absolute path of letters, digits, ".", "_", "-" and "/".');
  }
  return value;
}

/** Any path; only rejects an empty-looking value passed explicitly. */
export function parseFilePath(value: string): string {
  if (value !== value.trim()) throw new InvalidArgumentError('Expected a path without surrounding spaces.');
  return value;
}

/** --publish-status-address: a comma list of IP addresses and DNS names ("" = not set). */
export function parseAddressList(value: string): string {
  if (value === '') return '';
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (isIP(entry) === 0 && !isDnsSubdomain(entry)) {
      throw new InvalidArgumentError(`Expected a comma list of IP addresses and DNS names; ${JSON.stringify(entry)} is neither.`);
    }
  }
  return entries.join(',');
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/;
const DURATION_UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go-style duration of one unit (`30s`, `1m`, `500ms`; a bare number is seconds) → milliseconds, > 0. */
export function parseDurationMs(value: string): number {
  const match = DURATION.exec(value);
  const ms = match ? Number(match[1]) * DURATION_UNIT_MS[match[2] ?? 's'] : Number.NaN;
  if (!(ms > 0) || ms > 24 * 3_600_000) throw new InvalidArgumentError('Expected a duration such as 30s, 1m or 500ms (up to 24h).');
  return ms;
}

/** `[host]:port` as Go writes listen addresses (`:8443`, `127.0.0.1:8443`, `[::1]:8443`); "" = not set. */
export function parseListenAddress(value: string): string {
  if (value === '') return '';
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]*))?:(\d{1,5})$/.exec(value);
  const host = match?.[1] ?? match?.[2] ?? '';
  const port = Number(match?.[3]);
  if (!match || (host !== '' && isIP(host) === 0) || !(port >= 1 && port <= 65535)) {
    throw new InvalidArgumentError('Expected [ip]:port, e.g. :8443 or 127.0.0.1:8443.');
  }
  return value;
}

/** Splits a value accepted by parseListenAddress; an empty host means every address. */
export function splitListenAddress(value: string): { host: string; port: number } {
  const at = value.lastIndexOf(':');
  const host = value.slice(0, at).replace(/^\[|\]$/g, '');
  return { host: host === '' ? '0.0.0.0' : host, port: Number(value.slice(at + 1)) };
}

const HOUR_MS = 3_600_000;

/** A certificate lifetime (`8760h`, `90m`, `30s`): 10 s (tests) to ten years. */
export function parseCertificateValidityMs(value: string): number {
  const match = DURATION.exec(value);
  const ms = match ? Number(match[1]) * DURATION_UNIT_MS[match[2] ?? 's'] : Number.NaN;
  if (!(ms >= 10_000) || ms > 87_600 * HOUR_MS) throw new InvalidArgumentError('Expected a duration such as 8760h or 720h (10s to 87600h).');
  return ms;
}
