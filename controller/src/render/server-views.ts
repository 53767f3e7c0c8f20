// One model Server → its view (what server.njk prints) and the view's JSON,
// which is both the server-block cache key (server-blocks.ts) and a part of
// the config version. A long-lived renderer keeps, per hostname, what the
// last view was made from and its JSON: when the next model hands over the
// same Location objects (a long-lived model builder reuses them for every
// unchanged Ingress) and the same algorithm of their backends, the JSON is
// known without building the view or serialising it again (at 10k servers
// a render went from ~108 to ~87 ms). Such a view is built only if something
// reads it, i.e. if its block has to be rendered after all (e.g. the shared
// context changed).
//
// Sound by construction: a view is a pure function of the hostname, whether
// it is the catch-all, its Location objects (never mutated), the algorithm of
// their backends and the LocationContext (HTTPS on, the global settings,
// compared with fast-deep-equal); a key is reused only when all of them are
// the same, so it is the JSON a fresh view would give.

import { distinctStyles, type HttpsRedirectStyle } from './https-redirect-view.ts';
import type { FeatureName } from '../model/features/feature.ts';
import type { Location, Server } from '../model/types.ts';
import { errorPagesOf, type ErrorPageView } from './error-pages.ts';
import { RenderError } from './nginx-values.ts';
import { buildLocationBlocks, globallySetFeatures, sameLocationContext, type BackendLabels, type LocationBlock, type LocationContext } from './location-blocks.ts';
import { externalAuthServerViews, type AuthLocationView, type SigninLocationView } from './external-auth-view.ts';
import { mirrorLocationsOf, type MirrorLocationView } from './mirror-view.ts';
import { serverSnippetsOf, type ServerSnippetView } from './snippet-view.ts';

/** One `server {}` as the template prints it. */
export interface ServerView {
  readonly hostname: string;
  /** Only the catch-all listens with `default_server`. */
  readonly isDefault: boolean;
  readonly locations: readonly LocationBlock[];
  /** Some location proxies: the server carries the metrics and access logs (server.njk). */
  readonly proxies: boolean;
  /**
   * Render `@resty_unbalanced_https[_port][_slash]`, one per redirect style, only when a location sends its errors there
   * (a route with the `e` flag: ssl-redirect with rewrite-target, or a style other than the ConfigMap's; HTTPS on). Each location {} costs NGINX a configuration
   * per module on every parse: one per server was a tenth of parsing 1,000 servers.
   */
  readonly namedRedirects: readonly HttpsRedirectStyle[];
  /** The named locations of custom error pages (error-pages.ts), sorted by name. */
  readonly errorPages: readonly ErrorPageView[];
  /** server-alias: more names of this server (model/server-aliases.ts), after the hostname in server_name. */
  readonly aliases: readonly string[];
  /** from-to-www-redirect: the twin name a server of its own redirects to this host (www-redirect-server.njk); null = none. */
  readonly wwwRedirectFrom: string | null;
  /** app-root of the server's first location that has one (features/redirect.ts): `/` answers 302 there; null = none. */
  readonly appRoot: string | null;
  /** The internal locations mirrored requests are copied through (mirror-target; mirror-view.ts). */
  readonly mirrors: readonly MirrorLocationView[];
  /** Client certificates (Server.clientAuth): the server asks for and checks them (features/client-certs-server.njk); null = none. */
  readonly clientAuth: { readonly passCertificate: boolean } | null;
  /** External auth: the internal locations of the auth subrequests and the sign-in named locations (external-auth-view.ts). */
  readonly externalAuth: { readonly auth: readonly AuthLocationView[]; readonly signin: readonly SigninLocationView[] };
  /** The server-snippets of its Ingresses (snippet-view.ts), each between comment lines naming its Ingress. */
  readonly snippets: readonly ServerSnippetView[];
}

/** The view's JSON, attached to views this module made (not enumerable: JSON.stringify never sees it). */
const VIEW_JSON = Symbol('resty-ingress.serverViewJson');

/** JSON.stringify(view), without serialising again a view this module made. */
export function jsonOfView(view: ServerView): string {
  return (view as ServerView & { [VIEW_JSON]?: string })[VIEW_JSON] ?? JSON.stringify(view);
}

function withJson(view: ServerView, json: string): ServerView {
  return Object.defineProperty(view, VIEW_JSON, { value: json });
}

/** Builds the view of `server`; throws RenderError on a location that breaks the model's contract. */
function buildServerView(
  server: Server, isDefault: boolean, knownBackends: ReadonlyMap<string, BackendLabels>, context: LocationContext, globallySet: ReadonlySet<FeatureName>,
): ServerView {
  const locations = buildLocationBlocks(server.hostname, server.locations, knownBackends, context, globallySet);
  return {
    hostname: server.hostname, isDefault, locations,
    aliases: aliasesOf(server),
    wwwRedirectFrom: wwwRedirectOf(server),
    proxies: locations.some((block) => block.proxy !== null),
    namedRedirects: context.https
      ? distinctStyles(locations.flatMap((block) => (block.proxy?.route.startsWith('e ') === true && block.httpsRedirect ? [block.httpsRedirect] : [])))
      : [],
    errorPages: errorPagesOf(server.locations, context.settings),
    appRoot: appRootOf(server.locations),
    mirrors: mirrorLocationsOf(server.locations),
    clientAuth: server.clientAuth ?? null,
    externalAuth: externalAuthServerViews(server.hostname, server.locations, context.settings),
    snippets: serverSnippetsOf(server.locations),
  };
}

/** The server's aliases, checked again: each is printed as a server_name (a `~` would make it a regex). */
function aliasesOf(server: Server): readonly string[] {
  const aliases = server.aliases ?? [];
  for (const alias of aliases) {
    if (typeof alias !== 'string' || !/^(?:\*\.)?[a-z0-9][-a-z0-9.]*$/u.test(alias)) {
      throw new RenderError('UnsafeValue', `server ${server.hostname}: alias ${JSON.stringify(String(alias).slice(0, 80))} is not a host name`);
    }
  }
  return aliases;
}

/** The twin of from-to-www-redirect and this host, checked again: both are printed in a string with variables. */
function wwwRedirectOf(server: Server): string | null {
  const from = server.wwwRedirectFrom ?? null;
  if (from === null) return null;
  for (const name of [from, server.hostname]) {
    if (typeof name !== 'string' || !/^[a-z0-9][-a-z0-9.]*$/u.test(name)) {
      throw new RenderError('UnsafeValue', `from-to-www-redirect: ${JSON.stringify(String(name).slice(0, 80))} is not a host name`);
    }
  }
  return from;
}

/**
 * ingress-nginx prints one server-level `if ($uri = /)` per location with app-root: the first
 * answers. Checked again here: the path is printed inside a string that also holds variables.
 */
function appRootOf(locations: readonly Location[]): string | null {
  const appRoot = locations.find((location) => location.policy.redirect?.appRoot)?.policy.redirect?.appRoot ?? null;
  if (appRoot !== null && !/^\/[-._~a-zA-Z0-9/:]*$/u.test(appRoot)) {
    throw new RenderError('UnsafeValue', `app-root: not a plain path: ${JSON.stringify(appRoot.slice(0, 80))}`);
  }
  return appRoot;
}

/**
 * A view whose locations are built on first read; JSON.stringify of it gives the built view.
 * A class, not an object literal with getters: such a literal defines eleven accessors and
 * closures per object through V8's slow path, a quarter of a 10k-server rebuild's render.
 */
class LazyServerView implements ServerView {
  readonly hostname: string;
  readonly isDefault: boolean;
  /** As withJson() attaches it (a field: JSON.stringify skips symbol keys, and a fixed shape is cheaper than defineProperty). */
  readonly [VIEW_JSON]: string;
  #build: (() => ServerView) | null;
  #built: ServerView | null = null;

  constructor(hostname: string, isDefault: boolean, build: () => ServerView, json: string) {
    this.hostname = hostname;
    this.isDefault = isDefault;
    this[VIEW_JSON] = json;
    this.#build = build;
  }

  #view(): ServerView {
    if (this.#built === null && this.#build !== null) {
      this.#built = this.#build();
      this.#build = null;
    }
    return this.#built as ServerView;
  }

  get locations(): ServerView['locations'] { return this.#view().locations; }
  get proxies(): boolean { return this.#view().proxies; }
  get namedRedirects(): ServerView['namedRedirects'] { return this.#view().namedRedirects; }
  get errorPages(): ServerView['errorPages'] { return this.#view().errorPages; }
  get appRoot(): string | null { return this.#view().appRoot; }
  get aliases(): ServerView['aliases'] { return this.#view().aliases; }
  get wwwRedirectFrom(): string | null { return this.#view().wwwRedirectFrom; }
  get mirrors(): ServerView['mirrors'] { return this.#view().mirrors; }
  get clientAuth(): ServerView['clientAuth'] { return this.#view().clientAuth; }
  get externalAuth(): ServerView['externalAuth'] { return this.#view().externalAuth; }
  get snippets(): ServerView['snippets'] { return this.#view().snippets; }
  toJSON(): ServerView { return this.#view(); }
}

/** What a server's view was made from, and its JSON. */
interface Made {
  readonly isDefault: boolean;
  readonly context: LocationContext;
  readonly locations: readonly Location[];
  /** Per location, its backend balances with EWMA (ProxyView.feedback); null when its backend is not in the model. */
  readonly feedback: readonly (boolean | null)[];
  readonly clientAuth: Server['clientAuth'];
  /** server-alias names, joined. */
  readonly aliases: string;
  readonly wwwRedirectFrom: string | null;
  readonly json: string;
}

/** What a location's block takes from its backend; null for a backend the model lacks (building the view throws). */
function feedbackOf(location: Location, knownBackends: ReadonlyMap<string, BackendLabels>): boolean | null {
  if (location.route.kind !== 'backend') return false;
  const backend = knownBackends.get(location.route.backend);
  return backend === undefined ? null : backend.loadBalance === 'ewma';
}

function madeFrom(made: Made, server: Server, knownBackends: ReadonlyMap<string, BackendLabels>, isDefault: boolean, context: LocationContext): boolean {
  const { locations } = server;
  return made.isDefault === isDefault && made.aliases === (server.aliases ?? []).join(' ') && made.wwwRedirectFrom === (server.wwwRedirectFrom ?? null) && made.clientAuth?.passCertificate === server.clientAuth?.passCertificate && sameLocationContext(made.context, context) && made.locations.length === locations.length
    && locations.every((location, i) => {
      const feedback = feedbackOf(location, knownBackends);
      return location === made.locations[i] && feedback !== null && feedback === made.feedback[i];
    });
}

/** Server views of successive renders; remembers what the last complete pass over the servers made. */
export class ServerViews {
  #last = new Map<string, Made>();
  #pass = new Map<string, Made>();
  /** globallySetFeatures() of the last settings seen: once per render, not per server. */
  #globallySet: { readonly settings: unknown; readonly set: ReadonlySet<FeatureName> } | null = null;
  /** Views whose JSON came from the last pass (for tests and profiling). */
  reused = 0;

  /** Starts a pass over the servers of one render. */
  begin(): void {
    this.#pass = new Map();
  }

  /** The view of `server` in this pass, with its JSON attached. */
  view(server: Server, isDefault: boolean, knownBackends: ReadonlyMap<string, BackendLabels>, context: LocationContext): ServerView {
    if (this.#globallySet?.settings !== context.settings) this.#globallySet = { settings: context.settings, set: globallySetFeatures(context.settings) };
    const globallySet = this.#globallySet.set;
    const build = (): ServerView => buildServerView(server, isDefault, knownBackends, context, globallySet);
    const last = this.#last.get(server.hostname);
    if (last !== undefined && madeFrom(last, server, knownBackends, isDefault, context)) {
      this.#pass.set(server.hostname, last);
      this.reused += 1;
      return new LazyServerView(server.hostname, isDefault, build, last.json);
    }
    const view = build();
    const json = JSON.stringify(view);
    const feedback = server.locations.map((location) => feedbackOf(location, knownBackends));
    this.#pass.set(server.hostname, { isDefault, context, locations: server.locations, feedback, clientAuth: server.clientAuth, aliases: (server.aliases ?? []).join(' '), wwwRedirectFrom: server.wwwRedirectFrom ?? null, json });
    return withJson(view, json);
  }

  /** Ends a complete pass: what it made is what the next one compares against (hosts gone are forgotten). */
  end(): void {
    this.#last = this.#pass;
  }
}
