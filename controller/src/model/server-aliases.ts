// server-alias per host, decided over every accepted Ingress as ingress-nginx
// v1.15.1 does (controller.go, createServers): the oldest Ingress of a host that
// names aliases gives that host's server its aliases (a younger one is skipped,
// with a warning); an alias equal to the host, or to the host of another server,
// is dropped: the real host wins (ingress-nginx drops it silently; here a
// Warning Event names it). An alias two hosts claim goes to the older claim
// (NGINX would warn "conflicting server name" and keep the first). The
// catch-all server answers every name already: its aliases are ignored.
//
// A location of a server with aliases serves more than one $host, so its route
// key gets the flag `h`: the balancer's ssl-redirect check reads $host (the
// alias's own certificate decides) instead of the server name (route.lua).
// Canary policies follow the keys they were pushed under.

import { describeRef, makeWarning } from './failure.ts';
import { CATCH_ALL_HOST } from './names.ts';
import type { Failure, IngressRef, Location, RoutePolicy, Server } from './types.ts';

/** What one accepted Ingress asks for (addIngress records it, oldest first). */
export interface ServerAliasClaim {
  readonly ref: IngressRef;
  readonly hosts: readonly string[];
  readonly names: readonly string[];
}

/** The servers with their aliases, the canary policies under the keys their locations now have, and the warnings. */
export interface AliasedServers {
  readonly servers: readonly Server[];
  readonly routes: readonly RoutePolicy[];
  readonly failures: readonly Failure[];
}

/** `key` with the flag `h` when its flags ask for an ssl-redirect check (r or e). */
function hostReadingKey(key: string): string {
  const space = key.indexOf(' ');
  const flags = key.slice(0, space);
  if (!/[re]/u.test(flags) || flags.includes('h')) return key;
  return `${flags}h${key.slice(space)}`;
}

function withHostReadingKeys(locations: readonly Location[], renamed: Map<string, string>): Location[] {
  return locations.map((location) => {
    if (location.route.kind !== 'backend') return location;
    const key = hostReadingKey(location.route.key);
    if (key === location.route.key) return location;
    renamed.set(location.route.key, key);
    return { ...location, route: { ...location.route, key } };
  });
}

/** Applies `claims` (oldest first) to `servers`. */
export function applyServerAliases(servers: readonly Server[], routes: readonly RoutePolicy[], claims: readonly ServerAliasClaim[]): AliasedServers {
  if (claims.length === 0) return { servers, routes, failures: [] };
  const hosts = new Set(servers.map((server) => server.hostname));
  const byHost = new Map<string, string[]>();
  const owner = new Map<string, { host: string; ref: IngressRef }>();
  const failures: Failure[] = [];
  for (const claim of claims) {
    for (const host of claim.hosts) {
      if (host === CATCH_ALL_HOST || !hosts.has(host)) continue;
      if (byHost.has(host)) {
        failures.push(makeWarning(claim.ref, 'ServerAliasIgnored', 'metadata.annotations',
          `aliases of host ${host} are already set by an older Ingress; this Ingress's server-alias is ignored there`));
        continue;
      }
      const kept: string[] = [];
      for (const name of claim.names) {
        const held = owner.get(name);
        if (name === host) continue;
        if (hosts.has(name)) {
          failures.push(makeWarning(claim.ref, 'ServerAliasConflict', 'metadata.annotations',
            `server-alias ${name} is the host of other Ingress rules: the host wins, the alias is dropped`));
        } else if (held !== undefined) {
          failures.push(makeWarning(claim.ref, 'ServerAliasConflict', 'metadata.annotations',
            `server-alias ${name} is already an alias of host ${held.host} (Ingress ${describeRef(held.ref)}): dropped here`));
        } else {
          owner.set(name, { host, ref: claim.ref });
          kept.push(name);
        }
      }
      byHost.set(host, kept);
    }
  }
  const renamed = new Map<string, string>();
  const aliased = servers.map((server) => {
    const aliases = byHost.get(server.hostname) ?? [];
    if (aliases.length === 0) return server;
    return { ...server, aliases: Object.freeze([...aliases].sort()), locations: withHostReadingKeys(server.locations, renamed) };
  });
  const movedRoutes = renamed.size === 0 ? routes : routes.map((route) => {
    const key = renamed.get(route.key);
    return key === undefined ? route : { ...route, key };
  });
  return { servers: aliased, routes: movedRoutes, failures };
}
