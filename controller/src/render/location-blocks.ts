// Model locations → the NGINX `location` blocks of one server. A model
// location can need two blocks (pathType Prefix), and every server needs a
// `location /` so that no request ever falls through to NGINX's static file
// handler: those decisions live here, the template only prints.

import type { Location } from '../model/types.ts';
import { RenderError } from './nginx-values.ts';

/** NGINX location modifier: exact, plain prefix, case-insensitive regex. */
export type LocationModifier = '=' | '' | '~*';

/** What a proxied location does; null on a block that answers 404 itself. */
export interface ProxyView {
  /** Backend.name, for `set $proxy_upstream_name` (Lua looks the backend up by it). */
  readonly upstreamName: string;
  /** `proxy_pass <scheme>://upstream_balancer`. */
  readonly scheme: 'http' | 'https';
  readonly bodySize: string;
  readonly connectTimeout: number;
  readonly readTimeout: number;
  readonly sendTimeout: number;
  /** `rewrite "(?i)<regex>" <target> break;`, as ingress-nginx renders rewrite-target. */
  readonly rewrite: { readonly regex: string; readonly target: string } | null;
}

/** One `location <modifier> "<path>" { ... }` block as the template prints it. */
export interface LocationBlock {
  readonly modifier: LocationModifier;
  readonly path: string;
  readonly proxy: ProxyView | null;
}

function proxyViewOf(location: Location): ProxyView | null {
  if (location.target.kind === 'not-found') return null;
  const settings = location.proxy;
  return {
    upstreamName: location.target.backend,
    scheme: settings.protocol === 'HTTPS' ? 'https' : 'http',
    bodySize: settings.bodySize,
    connectTimeout: settings.connectTimeout,
    readTimeout: settings.readTimeout,
    sendTimeout: settings.sendTimeout,
    rewrite: location.rewriteTarget === null ? null : { regex: location.path, target: location.rewriteTarget },
  };
}

/** The (modifier, path) pairs a model location is rendered as; see LocationMatch in types.ts. */
function matchersOf(location: Location): { modifier: LocationModifier; path: string }[] {
  switch (location.match) {
    case 'exact':
      return [{ modifier: '=', path: location.path }];
    case 'regex':
      return [{ modifier: '~*', path: `^${location.path}` }];
    case 'prefix': {
      // `/foo` and `/foo/` mean the same Prefix path: match `/foo` exactly and
      // everything under `/foo/`, never `/foobar`.
      const base = location.path.replace(/\/+$/u, '');
      if (base === '') return [{ modifier: '', path: '/' }];
      return [
        { modifier: '=', path: base },
        { modifier: '', path: `${base}/` },
      ];
    }
    default:
      throw new RenderError('UnsafeValue', `unknown location match ${JSON.stringify(location.match)}`);
  }
}

const NOT_FOUND_ROOT: LocationBlock = { modifier: '', path: '/', proxy: null };

/**
 * The location blocks of server `hostname`, in model order. Exact paths win
 * over the exact half of a Prefix path of the same text (Kubernetes: on equal
 * length, Exact has precedence); any other repeat is a model bug and throws.
 * Backends must be listed in `knownBackends` (the Model's backends).
 */
export function buildLocationBlocks(
  hostname: string,
  locations: readonly Location[],
  knownBackends: ReadonlySet<string>,
): LocationBlock[] {
  const exactPaths = new Set(locations.filter((l) => l.match === 'exact').map((l) => l.path));
  const seen = new Set<string>();
  const blocks: LocationBlock[] = [];
  for (const location of locations) {
    if (typeof location.path !== 'string' || !location.path.startsWith('/')) {
      throw new RenderError('UnsafeValue', `server ${hostname}: location path must start with "/"`);
    }
    if (location.target.kind === 'backend' && !knownBackends.has(location.target.backend)) {
      throw new RenderError(
        'UnknownBackend',
        `server ${hostname}, location ${location.path}: backend ${JSON.stringify(location.target.backend)} is not in the model`,
      );
    }
    const proxy = proxyViewOf(location);
    for (const matcher of matchersOf(location)) {
      const key = `${matcher.modifier} ${matcher.path}`;
      if (location.match === 'prefix' && matcher.modifier === '=' && exactPaths.has(matcher.path)) continue;
      if (seen.has(key)) {
        throw new RenderError(
          'DuplicateLocation',
          `server ${hostname}: location ${key.trim()} is rendered twice (path ${location.path}, match ${location.match})`,
        );
      }
      seen.add(key);
      blocks.push({ ...matcher, proxy });
    }
  }
  if (!seen.has(' /')) blocks.push(NOT_FOUND_ROOT);
  return blocks;
}
