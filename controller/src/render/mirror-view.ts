// What mirror-target needs outside the mirrored locations (the feature:
// model/features/mirror.ts): per server, the internal location the copy goes
// through (`location = /<name>`, as ingress-nginx's buildMirrorLocations),
// and per target, an `upstream <name>` at http level holding its address.
// The location proxies to the upstream by name: with $request_uri in the URL
// NGINX looks a variable proxy_pass's host up among the upstreams first, so it
// never needs a resolver, and the target's host is resolved when NGINX loads
// the configuration. When `nginx -t` refuses that (a host that does not
// resolve), the line is in one of these blocks: mirrorOwners() names the
// Ingresses that asked for it, so the sync leaves them out, not everyone
// (or, for a duplicate location, the Ingress whose path took the name).

import type { IngressRef, Location, MirrorConfig, Model } from '../model/types.ts';
import { serverMatchersOf } from './location-blocks.ts';
import { isRegexHost } from '../model/regex-hosts.ts';
import { RenderError } from './nginx-values.ts';

/** The internal location of one mirror in a server (server.njk → features/mirror-location.njk). */
export interface MirrorLocationView {
  /** `_mirror-<16 hex>`: the location is `= /<name>`, the upstream `<name>`. */
  readonly name: string;
  /** The Host header of the copy: mirror-host, else the target's host (without its port, as ingress-nginx). */
  readonly hostHeader: string;
  /** `<scheme>://<name><path>`: the upstream by name, then the target's path (with $request_uri when it has it). */
  readonly proxyPass: string;
  /** https targets: the TLS server name sent (the target's host), else null. */
  readonly sslName: string | null;
  /** mirror-request-body: off drops the body and its length headers from the copy. */
  readonly requestBody: boolean;
}

/** The upstream of one mirror target (http.njk → features/mirror-upstreams.njk). */
export interface MirrorUpstreamView {
  readonly name: string;
  /** `host:port`, the port the scheme's when the URL has none. */
  readonly server: string;
}

const NAME = /^_mirror-[0-9a-f]{16}$/u;
/** The model's grammar again (model/features/mirror-url.ts): render is the second wall. */
const HOST = /^[A-Za-z0-9](?:[-A-Za-z0-9]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*$/u;
const HOST_HEADER = /^[A-Za-z0-9.-]{1,253}(?::[0-9]{1,5})?$/u;
const PATH = /^(?:\/[-A-Za-z0-9/._~:]*)?(?:\$request_uri)?$/u;

/** The mirror of a proxied location, checked again; null when it mirrors nothing. */
function mirrorOf(location: Location): (MirrorConfig & { readonly name: string; readonly target: NonNullable<MirrorConfig['target']> }) | null {
  const mirror = location.policy.mirror;
  if (location.route.kind !== 'backend' || mirror === undefined || mirror.target === null || mirror.name === null) return null;
  const { target, name, host } = mirror;
  const port = target.port;
  if (!NAME.test(name) || (target.scheme !== 'http' && target.scheme !== 'https') || !HOST.test(target.host) || !PATH.test(target.path)
    || (port !== null && !(Number.isInteger(port) && port >= 1 && port <= 65535)) || (host !== null && !HOST_HEADER.test(host))) {
    throw new RenderError('UnsafeValue', `location ${location.path}: mirror ${JSON.stringify(name)} breaks the mirror grammar`);
  }
  return { ...mirror, name, target };
}

/** The internal mirror locations of one server's locations: one per name, in location order. */
export function mirrorLocationsOf(locations: readonly Location[]): MirrorLocationView[] {
  const views = new Map<string, MirrorLocationView>();
  for (const location of locations) {
    const mirror = mirrorOf(location);
    if (mirror === null || views.has(mirror.name)) continue;
    const { scheme, host, path } = mirror.target;
    views.set(mirror.name, {
      name: mirror.name,
      hostHeader: mirror.host ?? host,
      proxyPass: `${scheme}://${mirror.name}${path}`,
      sslName: scheme === 'https' ? host : null,
      requestBody: mirror.requestBody,
    });
  }
  return [...views.values()];
}

/** Every mirror target's upstream in the model, one per name, sorted by name. */
export function mirrorUpstreamsOf(model: Model): MirrorUpstreamView[] {
  const upstreams = new Map<string, MirrorUpstreamView>();
  for (const server of model.servers) {
    for (const location of server.locations) {
      const mirror = mirrorOf(location);
      if (mirror === null || upstreams.has(mirror.name)) continue;
      const { scheme, host, port } = mirror.target;
      upstreams.set(mirror.name, { name: mirror.name, server: `${host}:${port ?? (scheme === 'https' ? 443 : 80)}` });
    }
  }
  return [...upstreams.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** One open block of nginx.conf as conf-owners.ts reads it. */
export interface OpenBlock {
  readonly words: readonly string[];
  readonly serverName?: string;
}

/**
 * The Ingresses behind a mirror block open at a line (the innermost `upstream _mirror-…` or
 * `location = /_mirror-…`, the latter only on the server that has it), or null when the line
 * is in no mirror block.
 */
export function mirrorOwners(model: Model, stack: readonly OpenBlock[]): IngressRef[] | null {
  const top = stack.at(-1);
  if (top === undefined) return null;
  let name: string | undefined;
  let hostname: string | undefined;
  if (top.words[0] === 'upstream') name = top.words[1];
  else if (top.words[0] === 'location' && top.words[1] === '=' && top.words[2]?.startsWith('/')) {
    name = top.words[2].slice(1);
    hostname = stack.findLast((frame) => frame.words[0] === 'server')?.serverName;
    if (hostname === undefined) return null;
  }
  if (name === undefined || !NAME.test(name)) return null;
  // An Ingress path rendered as the same `= /<name>` makes NGINX refuse the second block, the
  // mirror's: the path's Ingress is at fault, not the one mirroring.
  const squatted = model.servers.find((server) => server.hostname === hostname)?.locations ?? [];
  const regexHost = isRegexHost(squatted, model.settings);
  const squatter = squatted
    .find((location) => location.ingress !== null && serverMatchersOf(location, regexHost, model.settings).some((m) => m.modifier === '=' && m.path === `/${name}`));
  if (squatter?.ingress) return [squatter.ingress];
  const owners = new Map<string, IngressRef>();
  for (const server of model.servers) {
    if (hostname !== undefined && server.hostname !== hostname) continue;
    for (const location of server.locations) {
      if (location.ingress !== null && location.route.kind === 'backend' && location.policy.mirror?.name === name) {
        owners.set(`${location.ingress.namespace}/${location.ingress.name}`, location.ingress);
      }
    }
  }
  return owners.size === 0 ? null : [...owners.values()];
}
