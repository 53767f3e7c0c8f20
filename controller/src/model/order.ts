// "Oldest wins" needs one total order over Ingresses: creationTimestamp, then
// namespace/name so that equal timestamps (one-second resolution) still order
// the same way whatever order the informer listed them in.

import type { V1Ingress } from '@kubernetes/client-node';

/** Milliseconds since the epoch; missing or unreadable timestamps sort last (treated as newest). */
export function creationMillis(ingress: V1Ingress): number {
  const stamp: unknown = ingress?.metadata?.creationTimestamp;
  let millis = Number.NaN;
  if (stamp instanceof Date) millis = stamp.getTime();
  // The informer gives Dates; raw JSON or YAML gives RFC 3339 strings.
  else if (typeof stamp === 'string') millis = Date.parse(stamp);
  return Number.isNaN(millis) ? Number.POSITIVE_INFINITY : millis;
}

function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/** Negative when `a` is older than `b` (wins conflicts). */
export function compareIngressAge(a: V1Ingress, b: V1Ingress): number {
  const byTime = creationMillis(a) - creationMillis(b);
  if (byTime !== 0 && !Number.isNaN(byTime)) return byTime < 0 ? -1 : 1;
  const byNamespace = compareText(String(a?.metadata?.namespace ?? ''), String(b?.metadata?.namespace ?? ''));
  if (byNamespace !== 0) return byNamespace;
  return compareText(String(a?.metadata?.name ?? ''), String(b?.metadata?.name ?? ''));
}

/** A sorted copy, oldest first; the input is not touched. */
export function sortIngressesOldestFirst(ingresses: readonly V1Ingress[]): V1Ingress[] {
  return [...ingresses].sort(compareIngressAge);
}

/** Plain code-unit comparison for deterministic sorting (no locale). */
export { compareText };
