// Model locations → the NGINX `location` blocks of one server. A model
// location can need two blocks (pathType Prefix), and every server needs a
// `location /` so that no request ever falls through to NGINX's static file
// handler: those decisions live here, the template only prints.

import type { Backend, Location, ProxySettings } from '../model/types.ts';
import { RenderError } from './nginx-values.ts';

/** NGINX location modifier: exact, plain prefix, case-insensitive regex. */
export type LocationModifier = '=' | '' | '~*';

/** What a proxied location does; null on a block that answers 404 itself. */
export interface ProxyView {
  /** Backend.name, for `set $proxy_upstream_name`: the access log's name of the backend (Lua reads it only off the hot path, in unbalanced.lua). */
  readonly upstreamName: string;
  /**
   * `set $resty_route`: "<backend> <host> <namespace> <ingress> <service> <path>", the one
   * per-location variable of the request path. The balancer reads the first two fields: the
   * backend (Backend.name) and the server's name, which is the request's $host unless it is
   * the catch-all `_` (NGINX's default server) or a wildcard (lua/resty_ingress/balancer.lua).
   * The metrics log writes it whole (http.njk; read by controller/src/metrics/metrics-log-lines.ts):
   * the last five fields are the location's labels. "-" = none; every field is a validated
   * name or path without whitespace; `$` in a regex path is written as a backtick (never valid
   * in a path) so NGINX does not read a variable.
   */
  readonly route: string;
  /** The backend balances with EWMA, which learns response times: the location gets a Lua log phase (others pay none). */
  readonly feedback: boolean;
  /** `proxy_pass <scheme>://upstream_balancer`. */
  readonly scheme: 'http' | 'https';
  /** The location's proxy settings; null where it has the http-level default (LocationContext.proxyDefaults). */
  readonly bodySize: string | null;
  readonly connectTimeout: number | null;
  readonly readTimeout: number | null;
  readonly sendTimeout: number | null;
  /** `rewrite "(?i)<regex>" <target> break;`, as ingress-nginx renders rewrite-target. */
  readonly rewrite: { readonly regex: string; readonly target: string } | null;
  /**
   * The location proxies to `upstream_balancer<balancer>`. `_https` when the HTTPS listener is
   * on and the location redirects plain HTTP by certificate (ssl-redirect without force): its
   * balancer sends such a request to the redirect fallback server, which answers with the URI
   * it received. `_https_rewrite` for such a location with rewrite-target, whose upstream URI
   * is not the client's: its balancer ends the try with an error and `error_page 500` sends the
   * request to `@resty_unbalanced_https`, which redirects with $request_uri. Else "".
   */
  readonly balancer: BalancerSuffix;
}

/** See ProxyView.balancer. */
export type BalancerSuffix = '' | '_https' | '_https_rewrite';

/** The balancer of a location (see ProxyView.balancer). */
function balancerOf(location: Location, certificateRedirect: boolean, https: boolean): BalancerSuffix {
  if (!https || !certificateRedirect) return '';
  return location.rewriteTarget === null ? '_https' : '_https_rewrite';
}

/** One `location <modifier> "<path>" { ... }` block as the template prints it. */
export interface LocationBlock {
  readonly modifier: LocationModifier;
  readonly path: string;
  readonly proxy: ProxyView | null;
  /** force-ssl-redirect: plain-HTTP requests always get the redirect to HTTPS (a static `return`). */
  readonly httpsRedirect: boolean;
  /**
   * ssl-redirect (without force): Lua redirects plain HTTP when the request host has a
   * certificate (lua/resty_ingress/https_redirect.lua), so adding TLS to a host is no reload.
   */
  readonly certificateRedirect: boolean;
}

/** What the blocks of every server depend on besides their own locations. */
export interface LocationContext {
  /** The HTTPS listener is on (redirects by certificate exist only then). */
  readonly https: boolean;
  /** What http {} sets (GlobalSettings.proxyDefaults): a location renders only the values that differ. */
  readonly proxyDefaults: ProxyDefaults;
}

/** The proxy settings rendered in http {}. */
export type ProxyDefaults = Pick<ProxySettings, 'bodySize' | 'connectTimeout' | 'readTimeout' | 'sendTimeout'>;

/** Whether two contexts give the same blocks. */
export function sameLocationContext(a: LocationContext, b: LocationContext): boolean {
  const [x, y] = [a.proxyDefaults, b.proxyDefaults];
  return a.https === b.https && x.bodySize === y.bodySize && x.connectTimeout === y.connectTimeout
    && x.readTimeout === y.readTimeout && x.sendTimeout === y.sendTimeout;
}

/** `value`, or null when it is the default (the location inherits it). */
function unlessDefault<T>(value: T, fallback: T): T | null {
  return value === fallback ? null : value;
}

/** What a location's block needs of its backend: the labels of its route and the algorithm. */
export type BackendLabels = Pick<Backend, 'namespace' | 'service' | 'loadBalance'>;

/** ProxyView.route of `location`, proxied to `backendName`. */
function routeOf(hostname: string, location: Location, backendName: string, backend: BackendLabels): string {
  const namespace = location.ingress?.namespace ?? backend.namespace;
  const path = location.path.replaceAll('$', '`');
  return [backendName, hostname, namespace || '-', location.ingress?.name ?? '-', backend.service || '-', path].join(' ');
}

function proxyViewOf(
  hostname: string,
  location: Location,
  backends: ReadonlyMap<string, BackendLabels>,
  balancer: BalancerSuffix,
  defaults: ProxyDefaults,
): ProxyView | null {
  if (location.target.kind === 'not-found') return null;
  const settings = location.proxy;
  const backend = backends.get(location.target.backend) ?? { namespace: '', service: '', loadBalance: 'round_robin' };
  return {
    upstreamName: location.target.backend,
    route: routeOf(hostname, location, location.target.backend, backend),
    feedback: backend.loadBalance === 'ewma',
    scheme: settings.protocol === 'HTTPS' ? 'https' : 'http',
    bodySize: unlessDefault(settings.bodySize, defaults.bodySize),
    connectTimeout: unlessDefault(settings.connectTimeout, defaults.connectTimeout),
    readTimeout: unlessDefault(settings.readTimeout, defaults.readTimeout),
    sendTimeout: unlessDefault(settings.sendTimeout, defaults.sendTimeout),
    rewrite: location.rewriteTarget === null ? null : { regex: location.path, target: location.rewriteTarget },
    balancer,
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

const NOT_FOUND_ROOT: LocationBlock = { modifier: '', path: '/', proxy: null, httpsRedirect: false, certificateRedirect: false };

/**
 * The location blocks of server `hostname`, in model order. Exact paths win
 * over the exact half of a Prefix path of the same text (Kubernetes: on equal
 * length, Exact has precedence); any other repeat is a model bug and throws.
 * Backends must be listed in `knownBackends` (the Model's backends, by name).
 */
export function buildLocationBlocks(
  hostname: string,
  locations: readonly Location[],
  knownBackends: ReadonlyMap<string, BackendLabels>,
  context: LocationContext,
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
    // ingress-nginx's rule: force always redirects; ssl-redirect only where the host has a
    // certificate, which only Lua knows (certificates are dynamic).
    const httpsRedirect = location.forceSslRedirect === true;
    const certificateRedirect = !httpsRedirect && location.sslRedirect === true;
    const proxy = proxyViewOf(hostname, location, knownBackends, balancerOf(location, certificateRedirect, context.https), context.proxyDefaults);
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
      blocks.push({ ...matcher, proxy, httpsRedirect, certificateRedirect });
    }
  }
  if (!seen.has(' /')) blocks.push(NOT_FOUND_ROOT);
  return blocks;
}
