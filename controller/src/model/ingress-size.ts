// How large one Ingress may be. The API server takes objects up to ~1.5 MiB:
// 80k hosts, or 10k paths, in one Ingress. Every build and every admission
// review translates the whole Ingress on the event loop, about 10 µs a path,
// so an Ingress past these bounds is refused as a whole (counted before
// anything else is read: the refusal costs one pass over its lists), which
// keeps a review of anything the API server accepts under ~100 ms. The bounds
// are far above what one application's Ingress holds; ingress-nginx has none.

import { makeFailure } from './failure.ts';
import type { Failure, IngressRef } from './types.ts';

/** spec.rules entries. */
export const MAX_RULES = 5000;
/** Paths in all rules together. */
export const MAX_PATHS = 5000;
/** spec.tls entries. */
export const MAX_TLS_ENTRIES = 1000;
/** Hosts in all spec.tls entries together. */
export const MAX_TLS_HOSTS = 5000;

const lengthOf = (value: unknown): number => (Array.isArray(value) ? value.length : 0);

interface SizedSpec {
  readonly rules?: unknown;
  readonly tls?: unknown;
}

/** What is over a bound, as `<count> <what> (at most <bound>)`, or null. */
function overBound(spec: SizedSpec): string | null {
  const rules: readonly unknown[] = Array.isArray(spec.rules) ? spec.rules : [];
  if (rules.length > MAX_RULES) return `${rules.length} rules (at most ${MAX_RULES})`;
  let paths = 0;
  for (const rule of rules) paths += lengthOf((rule as { http?: { paths?: unknown } } | null)?.http?.paths);
  if (paths > MAX_PATHS) return `${paths} paths (at most ${MAX_PATHS} in all rules)`;
  const tls: readonly unknown[] = Array.isArray(spec.tls) ? spec.tls : [];
  if (tls.length > MAX_TLS_ENTRIES) return `${tls.length} tls entries (at most ${MAX_TLS_ENTRIES})`;
  let tlsHosts = 0;
  for (const entry of tls) tlsHosts += lengthOf((entry as { hosts?: unknown } | null)?.hosts);
  if (tlsHosts > MAX_TLS_HOSTS) return `${tlsHosts} TLS hosts (at most ${MAX_TLS_HOSTS} in all tls entries)`;
  return null;
}

/** A failure when the Ingress is larger than the bounds, else null. */
export function checkIngressSize(spec: SizedSpec | undefined, ref: IngressRef): Failure | null {
  const over = spec === undefined || spec === null ? null : overBound(spec);
  return over === null ? null : makeFailure(ref, 'IngressTooLarge', 'spec',
    `Ingress has ${over}; split it into several Ingresses (an Ingress this large would stall every sync); it is not served`);
}
