// Rule hosts become NGINX server_names, so only RFC 1123 names (optionally
// with one leading `*.` wildcard label) pass. An empty host is the catch-all.

import { accept, refuse, type Checked } from './checked.ts';

/** The hostname of the catch-all server (rule host "" and unknown hosts). */
export const CATCH_ALL_HOST = '_';

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const MAX_HOST_CHARS = 253;
const MAX_LABEL_CHARS = 63;

/** Lowercases and validates a rule host; "" or absent → the catch-all `_`. */
export function checkRuleHost(raw: unknown): Checked<string> {
  if (raw === undefined || raw === null || raw === '') return accept(CATCH_ALL_HOST);
  if (typeof raw !== 'string') return refuse('host must be a string');
  const host = raw.toLowerCase();
  if (host.length > MAX_HOST_CHARS) return refuse(`host is longer than ${MAX_HOST_CHARS} characters`);
  const labels = host.split('.');
  // `*.example.com`: the wildcard is a whole first label, never a partial one.
  const named = labels[0] === '*' ? labels.slice(1) : labels;
  if (named.length === 0) {
    return refuse('wildcard host needs a domain after "*."');
  }
  for (const label of named) {
    if (label.length > MAX_LABEL_CHARS || !LABEL.test(label)) {
      return refuse('host is not a valid DNS name (RFC 1123, optional leading "*.")');
    }
  }
  return accept(host);
}
