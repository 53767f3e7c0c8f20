// Model locations → the NGINX `location` blocks of one server. A model
// location can need two blocks (pathType Prefix), and every server needs a
// `location /` so that no request ever falls through to NGINX's static file
// handler: those decisions live here, the templates only print. What each
// feature prints is its own partial (rootfs/etc/nginx/template/features/),
// listed by the feature registry; a location includes the partial of a
// feature only when there is something to print (its Ingress set the feature,
// or the ConfigMap moved the feature's global value off its default).

import deepEqual from 'fast-deep-equal';
import type { FeatureName } from '../model/features/feature.ts';
import { LOCATION_FEATURES } from '../model/features/registry.ts';
import type { Backend, GlobalSettings, Location } from '../model/types.ts';
import { externalAuthPartialView } from './external-auth-view.ts';
import { RenderError } from './nginx-values.ts';
import { backendPassOf, backendTlsOf, sniOf, tlsUpstreamOf, type BackendPass, type BackendTlsFiles, type SniView } from './backend-pass.ts';
import { rateLimitLocationView, type RateLimitLocationView } from './rate-limit-view.ts';
import { compareRegexPaths, isRegexHost, regexMatchersOf, type Matcher } from '../model/regex-hosts.ts';
import { httpsRedirectStyle, type HttpsRedirectStyle } from './https-redirect-view.ts';
import { redirectFeature } from '../model/features/redirect.ts';

/** NGINX location modifier: exact, plain prefix, case-insensitive regex. */
export type LocationModifier = '=' | '' | '~*';

/** What a proxied location does; null on a block that answers 404 itself. */
export interface ProxyView {
  /** Backend.name, for `set $proxy_upstream_name`: the access log's name of the backend (Lua reads it only off the hot path, in unbalanced.lua). */
  readonly upstreamName: string;
  /** Route.key, for `set $resty_route`: the one per-location variable of the request path (model/route-key.ts). */
  readonly route: string;
  /**
   * The backend balances with EWMA, which learns response times: the location gets a Lua log
   * phase (others pay none). Backend.loadBalance is dynamic (a change is a push, not a reload),
   * so this follows it only when nginx.conf is rendered: a backend switched to EWMA since picks
   * by EWMA at once and learns response times from the next reload on (failed tries before).
   * Measured with callgrind (bench/tools/instructions-per-request.ts, probe-log-phase): a log
   * phase in every location costs the plain round-robin route +1,480 to +1,662 instructions per
   * request in two runs (43,031 → 44,693; 42,825 → 44,305: +3.5 to +3.9 %), against a budget of
   * +1 % for the plain route.
   */
  readonly feedback: boolean;
  /** The module that speaks to the backend and its pass directive (render/backend-pass.ts). */
  readonly pass: BackendPass;
  /** The proxy-ssl-secret files of the location (HTTPS/GRPCS), `denied` when its Secret cannot be used (503), else null. */
  readonly backendTls: BackendTlsFiles | 'denied' | null;
  /** SNI for a pass that can speak TLS, else null. */
  readonly sni: SniView | null;
}

/** One feature's partial in a block: the template, the location's config and the global one. */
export interface FeaturePartial {
  /** Path under the template folder, e.g. `features/proxy.njk`. */
  readonly template: string;
  /** The location's config of the feature (its Ingress's, else the global one). */
  readonly config: unknown;
  /** The global config (ConfigMap), which http {} may already print. */
  readonly global: unknown;
}

/** One `location <modifier> "<path>" { ... }` block as the templates print it. */
export interface LocationBlock {
  readonly modifier: LocationModifier;
  readonly path: string;
  /** The model location's path (the regex of rewrite-target). */
  readonly source: string;
  readonly proxy: ProxyView | null;
  /** The partials of the location features with something to print, in registry order. */
  readonly features: readonly FeaturePartial[];
  /**
   * ssl-redirect (without force) on a block that answers 404 itself: Lua redirects plain HTTP
   * when the request host has a certificate (lua/resty_ingress/https_redirect.lua), so adding
   * TLS to a host is no reload. (A proxied location's route carries the same as a flag.)
   */
  readonly certificateRedirect: boolean;
  /** limit-* (features/rate-limit.njk), or null: the location's limits and its key (render/rate-limit-view.ts). */
  readonly rateLimit?: RateLimitLocationView | null;
  /** How its HTTP → HTTPS redirect is shaped (render/https-redirect-view.ts); null without the HTTPS listener. */
  readonly httpsRedirect?: HttpsRedirectStyle | null;
}

/** What the blocks of every server depend on besides their own locations. */
export interface LocationContext {
  /** The HTTPS listener is on (redirects by certificate exist only then). */
  readonly https: boolean;
  /** Its port (--https-port), named by redirects with use-port-in-redirects; absent = 443. */
  readonly httpsPort?: number | null;
  /** The global config of every feature (Model.settings). */
  readonly settings: GlobalSettings;
  /** The proxy-ssl-secret files by Secret id (render/backend-pass.ts); absent = none. */
  readonly backendTls?: ReadonlyMap<string, BackendTlsFiles>;
}

/** Whether two contexts give the same blocks. */
export function sameLocationContext(a: LocationContext, b: LocationContext): boolean {
  return a.https === b.https && a.httpsPort === b.httpsPort && (a.settings === b.settings || deepEqual(a.settings, b.settings))
    && deepEqual([...a.backendTls ?? []], [...b.backendTls ?? []]);
}

/** What a location's block needs of its backend: the algorithm. */
export type BackendLabels = Pick<Backend, 'loadBalance'>;

/** Every partial a location may include (`{% include feature.template %}` in location.njk): compiled into it ahead. */
export const LOCATION_PARTIALS: readonly string[] = LOCATION_FEATURES.flatMap((feature) =>
  feature.output.kind === 'location' && feature.output.template !== null ? [feature.output.template] : []);

/** The location features whose global config is off its default: every location prints their partial. */
export function globallySetFeatures(settings: GlobalSettings): ReadonlySet<FeatureName> {
  // A feature a model's settings do not name (a model from before the feature) is at its defaults.
  return new Set(LOCATION_FEATURES.filter((feature) => settings[feature.name] !== undefined && !deepEqual(settings[feature.name], feature.defaults)).map((feature) => feature.name));
}

/**
 * Features whose partial reads a view made for the location (what protects it, names of the
 * server's blocks it refers to) instead of the raw config; a null view prints nothing.
 */
const PARTIAL_VIEWS: Partial<Record<FeatureName, (location: Location, settings: GlobalSettings) => unknown>> = {
  externalAuth: externalAuthPartialView,
};

function partialsOf(location: Location, context: LocationContext, globallySet: ReadonlySet<FeatureName>): FeaturePartial[] {
  const partials: FeaturePartial[] = [];
  for (const feature of LOCATION_FEATURES) {
    if (feature.output.kind !== 'location' || feature.output.template === null) continue;
    const own = (location.policy as Readonly<Record<string, unknown>>)[feature.name];
    if (own === undefined && !globallySet.has(feature.name)) continue;
    const global = context.settings[feature.name] ?? feature.defaults;
    const view = PARTIAL_VIEWS[feature.name];
    const config = view === undefined ? own ?? global : view(location, context.settings);
    if (config === null) continue;
    partials.push({ template: feature.output.template, config, global });
  }
  return partials;
}

function proxyViewOf(location: Location, backends: ReadonlyMap<string, BackendLabels>, context: LocationContext): ProxyView | null {
  if (location.route.kind !== 'backend') return null;
  const protocol = (location.policy.backendProtocol ?? context.settings.backendProtocol).protocol;
  const backendTls = backendTlsOf(location, context.backendTls, context.settings.crossNamespace?.allow === true);
  return {
    upstreamName: location.route.backend,
    route: location.route.key,
    feedback: backends.get(location.route.backend)?.loadBalance === 'ewma',
    pass: backendPassOf(protocol, tlsUpstreamOf(location, backendTls, protocol) ?? undefined),
    backendTls,
    sni: sniOf(backendPassOf(protocol), location.policy.proxySsl),
  };
}

/** The (modifier, path) pairs a model location is rendered as; see LocationMatch in types.ts. */
export function matchersOf(location: Location): { modifier: LocationModifier; path: string }[] {
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

/** The matchers of a location on its server: on a regex host (model/regex-hosts.ts) every one is a `~*` regex. */
export function serverMatchersOf(location: Location, regexHost: boolean, settings: Partial<GlobalSettings>): readonly Matcher[] {
  return regexHost ? regexMatchersOf(location, settings) : matchersOf(location);
}

const NOT_FOUND_ROOT: LocationBlock = { modifier: '', path: '/', source: '/', proxy: null, features: [], certificateRedirect: false, httpsRedirect: null };

/**
 * The location blocks of server `hostname`, in model order. Exact paths win
 * over the exact half of a Prefix path of the same text (Kubernetes: on equal
 * length, Exact has precedence); any other repeat is a model bug and throws.
 * On a regex host (model/regex-hosts.ts) every block is a `~*` regex, in
 * ingress-nginx's order, and of two locations printed as the same regex the
 * first in model order serves (NGINX would never reach the second).
 * Backends must be listed in `knownBackends` (the Model's backends, by name).
 */
export function buildLocationBlocks(
  hostname: string,
  locations: readonly Location[],
  knownBackends: ReadonlyMap<string, BackendLabels>,
  context: LocationContext,
  globallySet: ReadonlySet<FeatureName> = globallySetFeatures(context.settings),
): LocationBlock[] {
  const exactPaths = new Set(locations.filter((l) => l.match === 'exact').map((l) => l.path));
  const regexHost = isRegexHost(locations, context.settings);
  const seen = new Set<string>();
  const blocks: LocationBlock[] = [];
  for (const location of locations) {
    if (typeof location.path !== 'string' || !location.path.startsWith('/')) {
      throw new RenderError('UnsafeValue', `server ${hostname}: location path must start with "/"`);
    }
    if (location.route.kind === 'backend' && !knownBackends.has(location.route.backend)) {
      throw new RenderError(
        'UnknownBackend',
        `server ${hostname}, location ${location.path}: backend ${JSON.stringify(location.route.backend)} is not in the model`,
      );
    }
    const redirect = location.policy.sslRedirect ?? context.settings.sslRedirect;
    const proxy = proxyViewOf(location, knownBackends, context);
    const features = partialsOf(location, context, globallySet);
    const certificateRedirect = proxy === null && redirect.redirect && !redirect.force;
    const rateLimit = rateLimitLocationView(location, location.policy.rateLimit ?? context.settings.rateLimit);
    // A model from before the redirect feature has no settings.redirect: ingress-nginx's defaults.
    const httpsRedirect = context.https
      ? httpsRedirectStyle(location.policy.redirect ?? context.settings.redirect ?? redirectFeature.defaults, context.httpsPort ?? 443)
      : null;
    for (const matcher of serverMatchersOf(location, regexHost, context.settings)) {
      const key = `${matcher.modifier} ${matcher.path}`;
      if (location.match === 'prefix' && matcher.modifier === '=' && exactPaths.has(matcher.path)) continue;
      if (matcher.exactHalf === true && exactPaths.has(location.path.replace(/\/+$/u, ''))) continue;
      if (seen.has(key)) {
        if (regexHost) continue;
        throw new RenderError(
          'DuplicateLocation',
          `server ${hostname}: location ${key.trim()} is rendered twice (path ${location.path}, match ${location.match})`,
        );
      }
      seen.add(key);
      blocks.push({ modifier: matcher.modifier, path: matcher.path, source: location.path, proxy, features, certificateRedirect, rateLimit, httpsRedirect });
    }
  }
  // Array.prototype.sort is stable: equal paths keep model order.
  if (regexHost) blocks.sort((a, b) => compareRegexPaths(a.path, b.path));
  if (!seen.has(' /') && !seen.has('~* ^/')) blocks.push(NOT_FOUND_ROOT);
  return blocks;
}
