// Kubernetes name grammars. The API server enforces them, but the builder
// trusts nothing it did not check itself: these strings end up in backend
// names and IngressRefs, which the renderer writes into nginx.conf.

import { accept, refuse, type Checked } from './checked.ts';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

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
