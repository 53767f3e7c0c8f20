// The servers being built: hostname → (match kind + path) → Location. The
// first Location placed under a key keeps it, so placing Ingresses oldest
// first gives "oldest wins"; place() reports who already holds the key so
// the loser's failure can name both Ingresses.

import { CATCH_ALL_HOST } from './names.ts';
import { compareText } from './order.ts';
import type { IngressRef, Location, LocationMatch, Server } from './types.ts';

// The order of locations inside a server. NGINX's own matching rules decide
// which location serves a request (exact, then longest prefix, then regexes
// in order), so this order only has to be deterministic and readable:
// exact first, then regex, then prefix; within a kind, longer paths first,
// then by path text.
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

function locationKey(match: LocationMatch, path: string): string {
  return `${match} ${path}`;
}

/** The outcome of place(): placed, or the Location that already holds the key. */
export type Placement = { readonly placed: true } | { readonly placed: false; readonly holder: Location };

/** Servers under construction; the catch-all server always exists. */
export class ServerTable {
  readonly #servers = new Map<string, Map<string, Location>>([[CATCH_ALL_HOST, new Map()]]);

  /** Makes sure a server exists for `host` (a host rule without paths still gets a server). */
  ensure(host: string): void {
    if (!this.#servers.has(host)) this.#servers.set(host, new Map());
  }

  /** Places a location unless its host + match + path is taken. */
  place(host: string, location: Location): Placement {
    this.ensure(host);
    const locations = this.#servers.get(host) as Map<string, Location>;
    const key = locationKey(location.match, location.path);
    const holder = locations.get(key);
    if (holder) return { placed: false, holder };
    locations.set(key, location);
    return { placed: true };
  }

  /** True when `host` already routes `/` as a prefix (everything else falls through to it). */
  hasRootPrefix(host: string): boolean {
    return this.#servers.get(host)?.has(locationKey('prefix', '/')) ?? false;
  }

  /** Every hostname, catch-all first, then sorted. */
  hostnames(): string[] {
    const named = [...this.#servers.keys()].filter((host) => host !== CATCH_ALL_HOST).sort(compareText);
    return [CATCH_ALL_HOST, ...named];
  }

  /** The finished servers in contract order. */
  toServers(): Server[] {
    return this.hostnames().map((hostname) => ({
      hostname,
      locations: sortLocations([...(this.#servers.get(hostname)?.values() ?? [])]),
    }));
  }
}

/** Who holds a location, for conflict messages. */
export function holderName(holder: Location): string {
  const owner: IngressRef | null = holder.ingress;
  return owner ? `${owner.namespace}/${owner.name}` : 'a generated location';
}
