// Kubernetes name grammars and Ingress rule hosts. The API server enforces
// them, but the builder trusts nothing it did not check itself: these strings
// end up in backend names, IngressRefs and server_names, which the renderer
// writes into nginx.conf. Rule hosts are RFC 1123 names, optionally with one
// leading `*.` wildcard label; an empty host is the catch-all.

import { accept, refuse, type Checked } from './checked.ts';

/** The hostname of the catch-all server (rule host "" and unknown hosts). */
export const CATCH_ALL_HOST = '_';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MAX_HOST_CHARS = 253;
/**
 * RFC 1123 labels of at most 63 characters, dot-separated; `*.example.com`: the wildcard is a
 * whole first label, never a partial one. Linear: a label's inner part is bounded and ends at a dot.
 */
const RULE_HOST = /^(?:\*\.)?[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)*$/u;

/** Lowercases and validates a rule host; "" or absent → the catch-all `_`. */
export function checkRuleHost(raw: unknown): Checked<string> {
  if (raw === undefined || raw === null || raw === '') return accept(CATCH_ALL_HOST);
  if (typeof raw !== 'string') return refuse('host must be a string');
  const host = raw.toLowerCase();
  if (host.length > MAX_HOST_CHARS) return refuse(`host is longer than ${MAX_HOST_CHARS} characters`);
  if (host === '*') return refuse('wildcard host needs a domain after "*."');
  // One pass, no split: an Ingress may name 100k hosts.
  if (!RULE_HOST.test(host)) return refuse('host is not a valid DNS name (RFC 1123, optional leading "*.")');
  return accept(host);
}


/** A namespace name (DNS-1123 label, at most 63 characters). */
export function checkNamespace(value: unknown): Checked<string> {
  if (typeof value !== 'string' || value.length > 63 || !DNS1123_LABEL.test(value)) {
    return refuse('not a valid namespace name (DNS-1123 label)');
  }
  return accept(value);
}

/** An object name such as an Ingress's (DNS-1123 subdomain, at most 253 characters). */
export function checkObjectName(value: unknown): Checked<string> {
  if (typeof value !== 'string' || value.length > 253 || !DNS1123_SUBDOMAIN.test(value)) {
    return refuse('not a valid object name (DNS-1123 subdomain)');
  }
  return accept(value);
}

/** A Service name (DNS-1035 label, at most 63 characters). */
export function checkServiceName(value: unknown): Checked<string> {
  if (typeof value !== 'string' || value.length > 63 || !DNS1035_LABEL.test(value)) {
    return refuse('not a valid Service name (DNS-1035 label)');
  }
  return accept(value);
}

/** A Service port reference: a number 1..65535 or a port name (IANA service name shape). */
export function checkServicePort(value: unknown): Checked<number | string> {
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 1 && value <= 65535
      ? accept(value)
      : refuse('port number must be an integer from 1 to 65535');
  }
  if (typeof value === 'string' && value.length <= 63 && DNS1123_LABEL.test(value) && /[a-z]/.test(value)) {
    return accept(value);
  }
  return refuse('port name must be a lowercase DNS label containing a letter');
}

/** A TCP/UDP port number from an EndpointSlice. */
export function isPortNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}
