// ingress-nginx's host-wide regex rule (v1.15.1: template.go enforceRegexModifier
// and buildLocation, controller.go's location sort, location.go's
// updateServerLocations). When one location of a server uses regex paths
// (use-regex, or a rewrite-target other than the path itself), EVERY location of that server is printed
// as a case-insensitive regex anchored at the start, `location ~* "^<path>"`,
// the paths of plain Ingresses on the host included:
// - an Exact path `/foo` becomes `^/foo`: it also matches `/foo/bar`, `/FOO`, `/foobar`;
// - a Prefix path `/foo` becomes two blocks, `^/foo/` and `^/foo` (its `/` form and its exact
//   copy; the copy is left out when an Exact `/foo` exists), so it matches `/foobar` too;
//   a Prefix path of an Ingress that itself sets use-regex or rewrite-target stays one block;
// - literal characters keep their regex meaning: `/v1.0` also matches `/v1x0`;
// - NGINX tries regex locations in the order they appear and takes the first that matches:
//   longer paths first, and among paths of one length the one greater by byte comparison
//   first (ingress-nginx's two stable sorts). Two locations printed as the same regex: the first
//   in the model's order (exact, regex, prefix) serves, as NGINX would.
// A location whose every regex another location of the host already prints is never used:
// its Ingress gets a warning (shadowedOnRegexHosts); ingress-nginx says nothing.
// Route keys, metrics labels and canary routes stay those of the model location: only how
// NGINX selects the location changes, so Lua needs nothing new.

import { describeRef, makeWarning, quoteValue } from './failure.ts';
import type { Failure, GlobalSettings, Location, Server } from './types.ts';

/** One rendered location header: modifier and path (for regex: the pattern). */
export interface Matcher {
  readonly modifier: '=' | '' | '~*';
  readonly path: string;
  /** The exact half of a Prefix path: left out when an Exact location has the same path. */
  readonly exactHalf?: boolean;
}

/** ingress-nginx's needsRewrite: a rewrite-target other than the path itself (equal to it, nothing is rewritten). */
export function needsRewrite(target: string | null, path: string): boolean {
  return target !== null && target !== path;
}

/** The location's own Ingress makes its paths regexes: use-regex or a rewrite-target that rewrites. */
export function ownsRegex(location: Location, settings: Partial<GlobalSettings>): boolean {
  const rewrite = location.policy.rewrite ?? settings.rewrite;
  return rewrite !== undefined && (rewrite.useRegex || needsRewrite(rewrite.target, location.path));
}

/** Whether every location of a server with these locations is printed as a regex. */
export function isRegexHost(locations: readonly Location[], settings: Partial<GlobalSettings>): boolean {
  return locations.some((location) => location.match === 'regex' || ownsRegex(location, settings));
}

/** How a location of a regex host is printed (see the header comment). */
export function regexMatchersOf(location: Location, settings: Partial<GlobalSettings>): Matcher[] {
  if (location.match !== 'prefix' || ownsRegex(location, settings)) return [{ modifier: '~*', path: `^${location.path}` }];
  const base = location.path.replace(/\/+$/u, '');
  if (base === '') return [{ modifier: '~*', path: '^/' }];
  return [
    { modifier: '~*', path: `^${base}/` },
    { modifier: '~*', path: `^${base}`, exactHalf: true },
  ];
}

/** ingress-nginx's order of a regex host's locations: longer first, then greater by bytes first. */
export function compareRegexPaths(a: string, b: string): number {
  if (a.length !== b.length) return b.length - a.length;
  if (a === b) return 0;
  return a > b ? -1 : 1;
}

/** The regexes a server prints for each of its locations, in model order: repeats and suppressed exact halves left out. */
function printedRegexes(locations: readonly Location[], settings: Partial<GlobalSettings>): Map<Location, string[]> {
  const exactPaths = new Set(locations.filter((l) => l.match === 'exact').map((l) => l.path));
  const taken = new Set<string>();
  const printed = new Map<Location, string[]>();
  for (const location of locations) {
    const own: string[] = [];
    for (const matcher of regexMatchersOf(location, settings)) {
      if (matcher.exactHalf === true && exactPaths.has(location.path.replace(/\/+$/u, ''))) continue;
      if (taken.has(matcher.path)) continue;
      taken.add(matcher.path);
      own.push(matcher.path);
    }
    printed.set(location, own);
  }
  return printed;
}

/**
 * Warnings for Ingress locations of regex hosts that NGINX can never select: every regex they
 * would be printed as is printed for an earlier location of the host (same text, e.g. an Exact
 * `/a` and a use-regex `/a`). The Ingress is still served (its other paths may be reachable).
 */
export function shadowedOnRegexHosts(servers: readonly Server[], settings: Partial<GlobalSettings>): Failure[] {
  const warnings: Failure[] = [];
  for (const server of servers) {
    if (!isRegexHost(server.locations, settings)) continue;
    const printed = printedRegexes(server.locations, settings);
    for (const location of server.locations) {
      if (location.ingress === null || (printed.get(location)?.length ?? 0) > 0) continue;
      const holder = server.locations.find((other) => other !== location && printed.get(other)?.includes(`^${location.path}`));
      warnings.push(makeWarning(location.ingress, 'RegexPathShadowed', 'spec.rules',
        `${location.match} path ${quoteValue(location.path)} on host ${quoteValue(server.hostname)} is never used: use-regex or rewrite-target `
        + `on this host makes every path a regex, and ${holder?.ingress ? describeRef(holder.ingress) : 'another path'} already has ^${location.path}`));
    }
  }
  return warnings;
}
