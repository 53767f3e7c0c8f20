// Model + options → the plain object the templates print (the "view").
// It holds exactly what nginx.conf depends on and nothing dynamic: backend
// endpoints and load-balance algorithms never enter it, so an endpoint
// change cannot change nginx.conf or its version. (TCP/UDP services are the
// exception: their endpoints are in stream{}, stream-view.ts says why.)

import { httpsRedirectStyle, type HttpsRedirectStyle } from './https-redirect-view.ts';
import { redirectFeature } from '../model/features/redirect.ts';
import type { AccessLogSettings, Backend, BlockPattern, HstsSettings, Model, NextUpstreamConfig, ProxyConfig, RedirectConfig, Server } from '../model/types.ts';
import { defaultCertificatePaths, fallbackSocketPaths, metricsLogPath, type ResolvedRenderOptions } from './render-options.ts';
import { RenderError } from './nginx-values.ts';
import type { LocationContext } from './location-blocks.ts';
import { backendTlsFiles } from '../model/backend-tls.ts';
import { tlsUpstreams } from './backend-pass.ts';
import { ServerViews, type ServerView } from './server-views.ts';
import { globalErrorPagesOf, type GlobalErrorPagesView } from './error-pages.ts';
import { usesAuthCache } from './external-auth-view.ts';
import { authUpstreamsOf, type AuthUpstreamView } from './external-auth-upstream-view.ts';
import { mirrorUpstreamsOf, type MirrorUpstreamView } from './mirror-view.ts';
import { rateLimitHttpView, type RateLimitHttpView } from './rate-limit-view.ts';
import { httpTuningView, mainView, withConfiguredServerNames, type HttpTuningView, type MainView } from './http-tuning-view.ts';
import { proxyTuningView, type ProxyTuningView } from './proxy-tuning-view.ts';
import { clientAddressViewOf, type ClientAddressView } from './client-address-view.ts';
import { headerSettingsViewOf, type HeaderSettingsView } from './header-settings-view.ts';
import { globalSnippetsOf, type GlobalSnippetsView } from './snippet-view.ts';
import { streamViewOf, type StreamView } from './stream-view.ts';
import { passthroughSocketPaths, passthroughViewOf } from './ssl-passthrough-view.ts';

export type { ServerView } from './server-views.ts';

/** The catch-all server name: gets `default_server`, answers unknown hosts. */
export const CATCH_ALL_HOSTNAME = '_';

/** Files NGINX writes, all inside the prefix (NGINX runs unprivileged). */
export interface PrefixPaths {
  readonly pid: string;
  readonly errorLog: string;
  /** null = `access_log off`. */
  readonly accessLog: string | null;
  /** Per-request metrics lines, read by the controller; null = per-request metrics off (no log, no labels). */
  readonly metricsLog: string | null;
  readonly clientBodyTemp: string;
  readonly proxyTemp: string;
  readonly fastcgiTemp: string;
  readonly uwsgiTemp: string;
  readonly scgiTemp: string;
  /** The unix sockets of the fallback servers and their directory (see fallbackSocketPaths); httpsRedirect is used only with HTTPS. */
  readonly fallbacks: { readonly dir: string; readonly unavailable: string; readonly httpsRedirect: string };
}

/** `log_format upstreaminfo` (ConfigMap log-format-upstream, log-format-escape-json). */
export interface LogFormatView {
  readonly format: string;
  readonly escapeJson: boolean;
}

/** NGINX server-name hash sizing; defaults are too small for thousands of hosts or long names. */
export interface ServerNamesHash {
  readonly maxSize: number;
  readonly bucketSize: number;
}

/**
 * The HTTPS side (null without --https-port). Certificates are not here:
 * Lua serves them by SNI; nginx.conf names only the placeholder, so adding,
 * rotating or removing a certificate never changes nginx.conf.
 */
export interface TlsView {
  /** `listen <address:port> ssl`; with SSL passthrough `unix:<dir>/https.sock` behind the stream router (ssl-passthrough-view.ts). */
  readonly listen: string;
  /** `proxy_protocol` on that listener: use-proxy-protocol, or SSL passthrough (the router sends the client address). */
  readonly listenProxyProtocol: boolean;
  /** The placeholder (controller's self-signed default) certificate and key files. */
  readonly certificate: string;
  readonly certificateKey: string;
  /** ssl_protocols words (ConfigMap ssl-protocols). */
  readonly protocols: readonly string[];
  /** ssl_ciphers (ConfigMap ssl-ciphers). */
  readonly ciphers: string;
  /** Strict-Transport-Security on HTTPS responses, or null (ConfigMap hsts: false). */
  readonly hsts: HstsSettings | null;
  /** Status of the HTTP→HTTPS redirect (ConfigMap http-redirect-code). */
  readonly redirectCode: number;
  /** The fallback server's HTTPS redirect: the ConfigMap's use-port-in-redirects and preserve-trailing-slash. */
  readonly redirect: HttpsRedirectStyle;
}

/** The ConfigMap's block lists (block-cidrs, -user-agents, -referers), printed in http {} and every server. */
export interface BlocksView {
  readonly cidrs: readonly string[];
  readonly userAgents: readonly BlockPattern[];
  readonly referers: readonly BlockPattern[];
}

/** Everything the templates read except the version. */
export interface ConfigView {
  /** The options minus templateDir: where the templates sit must not change the version. */
  readonly options: Omit<ResolvedRenderOptions, 'templateDir'>;
  readonly paths: PrefixPaths;
  readonly logFormat: LogFormatView;
  /** `listen` addresses: the public one, and the status server's (always loopback). */
  readonly listen: { readonly public: string; readonly status: string };
  readonly serverNamesHash: ServerNamesHash;
  /** The ConfigMap's redirect settings (relative-redirects is http-level; features/redirect.ts). */
  readonly redirects: RedirectConfig;
  /** The ConfigMap's http-redirect-code (also without --https-port: from-to-www-redirect's servers). */
  readonly httpRedirectCode: number;
  /** `client_max_body_size` and the proxy timeouts of http {} (the proxy feature's global config); locations render only what differs. */
  readonly proxyDefaults: ProxyConfig;
  /** The upstreams of the proxy-ssl policies (render/backend-pass.ts tlsUpstreamOf), sorted; usually none. */
  readonly tlsUpstreams: readonly string[];
  /** The ConfigMap's proxy-next-upstream* (http {}); locations render only what differs. */
  readonly nextUpstreamDefaults: NextUpstreamConfig;
  /**
   * The servers in render order, made one at a time as they are iterated
   * (each iteration makes them afresh or takes their JSON from the last
   * iteration, server-views.ts): at 10k Ingresses the views of all
   * servers at once were ~15 MB that outlived young-generation collections
   * for the whole render, only to become old-space garbage.
   */
  readonly servers: Iterable<ServerView>;
  readonly tls: TlsView | null;
  readonly blocks: BlocksView;
  /** The ConfigMap's custom-http-errors (server-level in every public server), or null. */
  readonly globalErrorPages: GlobalErrorPagesView | null;
  /** One `upstream` per mirror target (mirror-target; mirror-view.ts), sorted by name. */
  readonly mirrorUpstreams: readonly MirrorUpstreamView[];
  /** limit-rps/-rpm/-connections: zones, allowlists and statuses (rate-limit-view.ts), or null when nothing is counted. */
  readonly rateLimits: RateLimitHttpView | null;
  /** gzip, HTTP/2, hash sizes, log escaping and skipped URIs, TLS sessions (http-tuning-view.ts). */
  readonly httpTuning: HttpTuningView;
  /** worker_processes, worker_connections, worker_shutdown_timeout, error_log level: the ConfigMap's over the options. */
  readonly main: MainView;
  /** The directory of the auth answers' cache (auth-cache-key; features/external-auth-http.njk), null when no location caches. */
  readonly authCachePath: string | null;
  /** One `upstream` with keepalive per auth service that asks for it (auth-keepalive; external-auth-upstream-view.ts). */
  readonly authUpstreams: readonly AuthUpstreamView[];
  /** The ConfigMap's buffers, cookie/redirect rewriting, client and upstream connection settings (proxy-tuning-view.ts). */
  readonly proxyTuning: ProxyTuningView;
  /** Real client address, request id and forwarded-header variables (client-address-view.ts). */
  readonly clientAddress: ClientAddressView;
  /** proxy-set-headers, add-headers, hide-headers, header parsing and server_tokens (header-settings-view.ts). */
  readonly headerSettings: HeaderSettingsView;
  /** The ConfigMap's main-, http- and server-snippet (snippet-view.ts). */
  readonly snippets: GlobalSnippetsView;
  /** The stream {} context of the TCP/UDP services (stream-view.ts), null when there are none. Not seen by server blocks. */
  readonly stream: StreamView | null;
}

function nextPowerOfTwo(n: number): number {
  let power = 1;
  while (power < n) power *= 2;
  return power;
}

/**
 * A bucket must hold the longest name: a pointer plus the name and 2 bytes,
 * aligned to 8, and a pointer ending the bucket (ngx_hash_init). It holds
 * three of them here: with room for only one, NGINX searches table sizes
 * until no two names share a bucket, which was 11 % of parsing 1,000
 * servers (and 9 % of 10,000) — on every `nginx -t` and every reload.
 * max_size bounds the number of buckets NGINX will try; keep it well above
 * the name count so the search always succeeds.
 */
export function sizeServerNamesHash(hostnames: readonly string[]): ServerNamesHash {
  const longest = hostnames.reduce((max, name) => Math.max(max, name.length), 0);
  const pointer = 8;
  const element = pointer + Math.ceil((longest + 2) / pointer) * pointer;
  return {
    maxSize: Math.max(1024, nextPowerOfTwo(hostnames.length) * 4),
    bucketSize: Math.max(128, nextPowerOfTwo(3 * element + pointer)),
  };
}

/** The ConfigMap's access-log settings, checked for shape (their text is checked again by the `qlogformat` filter). */
function accessLogSettings(model: Model): AccessLogSettings {
  const accessLog = model.settings?.accessLog;
  if (accessLog === undefined || typeof accessLog.format !== 'string' || typeof accessLog.enabled !== 'boolean') {
    throw new RenderError('UnsafeValue', 'model: settings.accessLog must have enabled, format and escapeJson');
  }
  return accessLog;
}

/** Access log on only when the render options (--disable-access-log style callers) and the ConfigMap both allow it. */
function prefixPaths(options: ResolvedRenderOptions, accessLog: AccessLogSettings): PrefixPaths {
  const inPrefix = (name: string): string => `${options.prefix}/${name}`;
  return {
    pid: inPrefix('nginx.pid'),
    errorLog: inPrefix('error.log'),
    accessLog: options.accessLog && accessLog.enabled ? inPrefix('access.log') : null,
    metricsLog: options.requestMetrics ? metricsLogPath(options.prefix) : null,
    clientBodyTemp: inPrefix('client_body_temp'),
    proxyTemp: inPrefix('proxy_temp'),
    fastcgiTemp: inPrefix('fastcgi_temp'),
    uwsgiTemp: inPrefix('uwsgi_temp'),
    scgiTemp: inPrefix('scgi_temp'),
    fallbacks: fallbackSocketPaths(options.prefix),
  };
}

/** The ConfigMap's proxy defaults (settings.proxy), checked for shape (their values are checked again by the filters). */
function proxyDefaultsOf(model: Model): ProxyConfig {
  const defaults = model.settings?.proxy;
  if (defaults === undefined || typeof defaults.bodySize !== 'string') {
    throw new RenderError('UnsafeValue', 'model: settings.proxy must have bodySize and the timeouts');
  }
  return defaults;
}

/** The ConfigMap's next-upstream settings, checked for shape (their values are checked again by the filters). */
function nextUpstreamDefaultsOf(model: Model): NextUpstreamConfig {
  const defaults = model.settings?.nextUpstream;
  if (defaults === undefined || !Array.isArray(defaults.conditions) || defaults.conditions.length === 0) {
    throw new RenderError('UnsafeValue', 'model: settings.nextUpstream must have conditions, timeout and tries');
  }
  return defaults;
}

/** The catch-all server of `model`, or an empty one that answers 404 when the model has none. */
function catchAllOf(model: Model): Server {
  return model.servers.find((s) => s.hostname === CATCH_ALL_HOSTNAME) ?? { hostname: CATCH_ALL_HOSTNAME, locations: [] };
}

/** Every hostname in render order: the catch-all first, then the others in model order. */
function renderedHostnames(model: Model): string[] {
  return [CATCH_ALL_HOSTNAME, ...model.servers.filter((s) => s.hostname !== CATCH_ALL_HOSTNAME).flatMap((s) => [s.hostname, ...s.aliases ?? [], ...s.wwwRedirectFrom === undefined ? [] : [s.wwwRedirectFrom]])];
}

/**
 * Servers in render order (see renderedHostnames), each view made when it is
 * reached (by `views`, which may reuse the JSON of the last pass). A
 * hostname seen twice is a model bug and throws.
 */
function* serverViews(model: Model, knownBackends: ReadonlyMap<string, Backend>, context: LocationContext, views: ServerViews): Generator<ServerView> {
  const seen = new Set<string>();
  const viewOf = (server: Server): ServerView => {
    if (seen.has(server.hostname)) {
      throw new RenderError('DuplicateServer', `server ${JSON.stringify(server.hostname)} appears twice in the model`);
    }
    seen.add(server.hostname);
    return views.view(server, server.hostname === CATCH_ALL_HOSTNAME, knownBackends, context);
  };
  views.begin();
  yield viewOf(catchAllOf(model));
  for (const server of model.servers) {
    if (server.hostname !== CATCH_ALL_HOSTNAME) yield viewOf(server);
  }
  views.end();
}

function buildTlsView(model: Model, options: ResolvedRenderOptions): TlsView | null {
  if (options.httpsPort === null) return null;
  const settings = model.settings?.tls;
  if (settings === undefined || !Array.isArray(settings.protocols) || settings.protocols.length === 0) {
    throw new RenderError('UnsafeValue', 'model: settings.tls.protocols must be a non-empty array');
  }
  const files = defaultCertificatePaths(options.prefix);
  const passthrough = options.sslPassthrough === true;
  return {
    listen: passthrough ? passthroughSocketPaths(options.prefix).https : `${options.listenAddress}:${options.httpsPort}`,
    listenProxyProtocol: passthrough || model.settings.clientAddress?.useProxyProtocol === true,
    certificate: files.certificate,
    certificateKey: files.key,
    protocols: settings.protocols,
    ciphers: settings.ciphers,
    hsts: settings.hsts.enabled ? settings.hsts : null,
    redirectCode: settings.redirectCode,
    redirect: httpsRedirectStyle(model.settings.redirect ?? redirectFeature.defaults, options.httpsPort),
  };
}

/** The block lists of settings.accessControl (none in a model from before the feature). */
function blocksOf(model: Model): BlocksView {
  const access = model.settings?.accessControl;
  if (access === undefined) return { cidrs: [], userAgents: [], referers: [] };
  return { cidrs: access.blockCidrs, userAgents: access.blockUserAgents, referers: access.blockReferers };
}

/**
 * Builds the view of `model` under `options`; throws RenderError on a model
 * that breaks the contract (a bad server or location: while `servers` is iterated).
 * `views`: a long-lived renderer's, to reuse what the last render made.
 */
/**
 * The options as the view holds them: the stream modules' and script's paths only matter with
 * TCP/UDP services, and then they are in `stream`; elsewhere they must not change the version.
 */
function withoutStreamModule(options: Omit<ResolvedRenderOptions, 'templateDir'>): Omit<ResolvedRenderOptions, 'templateDir'> {
  const { streamModule, streamJsModule, streamScript } = options.dataplane;
  if (streamModule === undefined && streamJsModule === undefined && streamScript === undefined) return options;
  const { streamModule: _module, streamJsModule: _js, streamScript: _script, ...dataplane } = options.dataplane;
  return { ...options, dataplane };
}

export function buildConfigView(model: Model, options: ResolvedRenderOptions, views = new ServerViews()): ConfigView {
  if (!Array.isArray(model.servers) || !Array.isArray(model.backends)) {
    throw new RenderError('UnsafeValue', 'model: servers and backends must be arrays');
  }
  const knownBackends = new Map(model.backends.map((backend) => [backend.name, backend]));
  const { templateDir: _templateDir, ...rendered } = options;
  const accessLog = accessLogSettings(model);
  const files = model.backendTls !== undefined && model.backendTls.length > 0 ? backendTlsFiles(options.prefix, model.backendTls) : undefined;
  const context: LocationContext = { https: options.httpsPort !== null, httpsPort: options.httpsPort, settings: model.settings, ...(files === undefined ? {} : { backendTls: files }) };
  return {
    options: withoutStreamModule(rendered),
    paths: prefixPaths(options, accessLog),
    logFormat: { format: accessLog.format, escapeJson: accessLog.escapeJson === true },
    listen: {
      public: `${options.listenAddress}:${options.httpPort}`,
      status: `127.0.0.1:${options.statusPort}`,
    },
    serverNamesHash: withConfiguredServerNames(sizeServerNamesHash(renderedHostnames(model)), model),
    redirects: model.settings.redirect ?? redirectFeature.defaults,
    httpRedirectCode: model.settings.tls?.redirectCode ?? 308,
    proxyDefaults: proxyDefaultsOf(model),
    tlsUpstreams: tlsUpstreams(model.servers, files, model.settings.crossNamespace?.allow === true, model.settings.backendProtocol.protocol),
    nextUpstreamDefaults: nextUpstreamDefaultsOf(model),
    servers: { [Symbol.iterator]: () => serverViews(model, knownBackends, context, views) },
    tls: buildTlsView(model, options),
    blocks: blocksOf(model),
    globalErrorPages: globalErrorPagesOf(model.settings),
    mirrorUpstreams: mirrorUpstreamsOf(model),
    rateLimits: rateLimitHttpView(model),
    httpTuning: httpTuningView(model, options.prefix),
    main: mainView(model, options),
    authCachePath: usesAuthCache(model) ? `${options.prefix}/auth_cache` : null,
    authUpstreams: authUpstreamsOf(model),
    proxyTuning: proxyTuningView(model),
    clientAddress: clientAddressViewOf(model, options.httpsPort, options.sslPassthrough === true),
    headerSettings: headerSettingsViewOf(model),
    snippets: globalSnippetsOf(model),
    stream: streamViewOf(model, options.listenAddress, options.dataplane, options.prefix, passthroughViewOf(model, options, sizeServerNamesHash)),
  };
}
