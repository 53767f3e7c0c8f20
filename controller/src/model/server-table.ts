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

/** Past this many locations a host gets a key index; below, scanning is cheaper than a Map per host. */
const SCAN_LIMIT = 8;

/**
 * One host's locations in placement order. Most hosts hold one or two: a
 * Map (and a key string) per host was ~2 MB of a 10k-Ingress build that
 * outlived young-generation collections only to become garbage.
 */
class HostLocations {
  #list: Location[] | null = null;
  #index: Map<string, Location> | null = null;

  find(match: LocationMatch, path: string): Location | undefined {
    if (this.#index !== null) return this.#index.get(locationKey(match, path));
    for (const location of this.#list ?? []) {
      if (location.match === match && location.path === path) return location;
    }
    return undefined;
  }

  /** Adds a location whose match + path find() does not know. */
  add(location: Location): void {
    if (this.#list === null) {
      this.#list = [location];
      return;
    }
    this.#list.push(location);
    if (this.#index !== null) this.#index.set(locationKey(location.match, location.path), location);
    else if (this.#list.length > SCAN_LIMIT) this.#index = new Map(this.#list.map((l) => [locationKey(l.match, l.path), l]));
  }

  values(): readonly Location[] {
    return this.#list ?? [];
  }
}

/** The outcome of place(): placed, or the Location that already holds the key. */
export type Placement = { readonly placed: true } | { readonly placed: false; readonly holder: Location };

/** Servers under construction; the catch-all server always exists. */
export class ServerTable {
  readonly #servers = new Map<string, HostLocations>([[CATCH_ALL_HOST, new HostLocations()]]);

  /** Makes sure a server exists for `host` (a host rule without paths still gets a server). */
  ensure(host: string): void {
    if (!this.#servers.has(host)) this.#servers.set(host, new HostLocations());
  }

  /** Places a location unless its host + match + path is taken. */
  place(host: string, location: Location): Placement {
    this.ensure(host);
    const locations = this.#servers.get(host) as HostLocations;
    const holder = locations.find(location.match, location.path);
    if (holder) return { placed: false, holder };
    locations.add(location);
    return { placed: true };
  }

  /**
   * The location of `host` at `path`: the one of the same match kind, else any match kind
   * (exact, then regex, then prefix), or undefined. For a canary finding its main location.
   */
  locationAt(host: string, path: string, match: LocationMatch): Location | undefined {
    const locations = this.#servers.get(host);
    if (locations === undefined) return undefined;
    return locations.find(match, path) ?? (['exact', 'regex', 'prefix'] as const).map((kind) => locations.find(kind, path)).find((found) => found !== undefined);
  }

  /** True when `host` already routes `/` as a prefix (everything else falls through to it). */
  hasRootPrefix(host: string): boolean {
    return this.#servers.get(host)?.find('prefix', '/') !== undefined;
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
      locations: sortLocations(this.#servers.get(hostname)?.values() ?? []),
    }));
  }
}

/** Who holds a location, for conflict messages. */
export function holderName(holder: Location): string {
  const owner: IngressRef | null = holder.ingress;
  return owner ? `${owner.namespace}/${owner.name}` : 'a generated location';
}
