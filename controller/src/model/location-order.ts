// The order of locations inside a server. NGINX's own matching rules decide
// which location serves a request (exact, then longest prefix, then regexes
// in order), so this order only has to be deterministic and readable:
// exact first, then regex, then prefix; within a kind, longer paths first,
// then by path text.

import { compareText } from './order.ts';
import type { Location, LocationMatch } from './types.ts';

const KIND_ORDER: Readonly<Record<LocationMatch, number>> = { exact: 0, regex: 1, prefix: 2 };

/** Sort comparator for locations of one server. */
export function compareLocations(a: Location, b: Location): number {
  const byKind = KIND_ORDER[a.match] - KIND_ORDER[b.match];
  if (byKind !== 0) return byKind;
  // Exact paths read best alphabetically; regex and prefix longest first, like NGINX's choice.
  if (a.match !== 'exact' && a.path.length !== b.path.length) return b.path.length - a.path.length;
  return compareText(a.path, b.path);
}

/** A sorted copy of a server's locations. */
export function sortLocations(locations: readonly Location[]): Location[] {
  return [...locations].sort(compareLocations);
}
