// The model: the contract between the steps of the flow.
//
// kube produces a Snapshot; model turns it into a Model (pure); diff compares two
// Models; render turns a Model into nginx.conf; nginx applies it and pushes the
// dynamic part (DynamicBackend) to Lua. Every step imports these types and
// nothing of the other steps. Every string in a Model has passed a strict
// validator: templates may trust it (they still quote it).
//
// Ordering is part of the contract: arrays are sorted so that the same cluster
// state always gives a deep-equal Model and a byte-identical nginx.conf.

import type {
  V1ConfigMap,
  V1EndpointSlice,
  V1Ingress,
  V1IngressClass,
  V1Secret,
  V1Service,
} from '@kubernetes/client-node';
import type { ReservedPort, StreamService } from './l4-types.ts';

export type { ReservedPort, StreamProtocol, StreamProxyProtocol, StreamService } from './l4-types.ts';

/** A point-in-time, read-only view of the informer caches. Never mutated. */
export interface Snapshot {
  /** Every Ingress in the watched namespaces, ours or not (the builder filters by class). */
  readonly ingresses: readonly V1Ingress[];
  /** Every IngressClass (cluster-scoped). */
  readonly ingressClasses: readonly V1IngressClass[];
  /** Services in the watched namespaces. */
  readonly services: readonly V1Service[];
  /** discovery.k8s.io/v1 EndpointSlices in the watched namespaces. */
  readonly endpointSlices: readonly V1EndpointSlice[];
  /** Secrets in the watched namespaces (TLS comes later; kept so the shape is stable). */
  readonly secrets: readonly V1Secret[];
  /** The ConfigMaps the flags name (--configmap; later the TCP/UDP ones), each read by name (kube/watch-targets.ts). */
  readonly configMaps: readonly V1ConfigMap[];
}

/** What the builder needs from the command line; no I/O, no clock. */
export interface BuildOptions {
  /** --ingress-class: value of the legacy `kubernetes.io/ingress.class` annotation we own. */
  readonly ingressClass: string;
  /** --controller-class: IngressClass `spec.controller` value we own. */
  readonly controllerClass: string;
  /** --watch-ingress-without-class: Ingresses with no class at all are ours. */
  readonly watchIngressWithoutClass: boolean;
  /** --annotations-prefix, without the trailing slash (default `nginx.ingress.kubernetes.io`). */
  readonly annotationsPrefix: string;
  /** --default-backend-service as `namespace/name`, or null for the built-in 404. */
  readonly defaultBackendService: string | null;
  /** --default-ssl-certificate as `namespace/name` of a TLS Secret, or null/absent for the self-signed one. */
  readonly defaultSslCertificate?: string | null;
  /** --configmap as `namespace/name`, or null/absent: global settings keep their defaults. */
  readonly configMap?: string | null;
  /** The time certificates are checked against (ms since the epoch); absent = expiry is not checked. Passed in so the builder stays clock-free. */
  readonly now?: number;
  /**
   * Ingress objects (of the snapshot) to build without, as if they were absent: the sync's, for
   * those NGINX refused. Compared by identity, like the snapshot's objects.
   */
  readonly exclude?: ReadonlySet<V1Ingress>;
  /** --tcp-services-configmap as `namespace/name`, or null/absent: no TCP services (model/stream-services.ts). */
  readonly tcpServicesConfigMap?: string | null;
  /** --udp-services-configmap as `namespace/name`, or null/absent: no UDP services. */
  readonly udpServicesConfigMap?: string | null;
  /** The controller's own ports, which no TCP/UDP service may listen on (absent = none checked). */
  readonly reservedPorts?: readonly ReservedPort[];
}

/**
 * The whole NGINX model, built whole on every sync and never patched. A long-lived
 * builder hands on unchanged parts of its last model (same objects, never mutated);
 * the result always equals a build from scratch.
 */
export interface Model {
  /** Servers sorted by hostname; the catch-all server `_` is always present and first. */
  readonly servers: readonly Server[];
  /** Every backend some location routes to, sorted by name. */
  readonly backends: readonly Backend[];
  /** Certificates and which host gets which. DYNAMIC: pushed to Lua, never in nginx.conf. */
  readonly tls: TlsState;
  /** Global settings from the controller's ConfigMap (validated, defaulted). Static: shapes nginx.conf. */
  readonly settings: GlobalSettings;
  /** Dynamic route policies (canary splits), sorted by key. DYNAMIC: pushed to Lua, never in nginx.conf. */
  readonly routes: readonly RoutePolicy[];
  /**
   * The proxy-ssl-secret Secrets some location uses, sorted by id (absent = none). STATIC: written
   * as files under the NGINX prefix and named in nginx.conf, so a change reloads (model/backend-tls.ts).
   */
  readonly backendTls?: readonly BackendTlsSecret[];
  /**
   * The users of each Ingress with basic/digest authentication (features/basic-auth.ts), sorted by id;
   * absent = none. DYNAMIC: pushed to Lua (POST /configuration/credentials), never in nginx.conf, so a
   * Secret's new content applies without a reload. An Ingress whose Secret is missing or unusable has
   * no set: Lua answers its requests 503.
   */
  readonly credentials?: readonly CredentialSet[];
  /**
   * The TCP/UDP services of --tcp-services-configmap / --udp-services-configmap (l4-types.ts),
   * sorted by protocol (TCP first) then port; absent = none. STATIC, endpoints included: rendered
   * into the stream {} context, so any change reloads (no stream-lua in Debian).
   */
  readonly streams?: readonly StreamService[];
}

/**
 * A proxy-ssl-secret's PEMs, checked (model/backend-tls.ts). Holds a PRIVATE KEY: never log it
 * whole. At least one of `ca` and `cert` is set; `cert` and `key` come together.
 */
export interface BackendTlsSecret {
  /** `<namespace>/<name>` as the annotation names it. */
  readonly id: string;
  /** ca.crt: the CAs the backend's certificate must chain to, or null. */
  readonly ca: string | null;
  /** tls.crt: the client certificate chain NGINX presents to the backend, or null. */
  readonly cert: string | null;
  /** tls.key: its private key, or null. */
  readonly key: string | null;
  /** 16 hex chars of sha256 over the three: part of the file names, so a rotation changes nginx.conf. */
  readonly fingerprint: string;
}

/** One Ingress's basic/digest users (model/credentials.ts), as Lua receives them. */
export interface CredentialSet {
  /** `<namespace>/<ingress>`: Lua finds the set of a request by words 4 and 5 of its `$resty_route`. */
  readonly id: string;
  readonly type: 'basic' | 'digest';
  /** auth-realm (ingress-nginx's CharsWithSpace: letters, digits, space and `-._~/:`). */
  readonly realm: string;
  /**
   * user → what checks the password: basic, an htpasswd hash ({PLAIN}, {SHA}, {SSHA}, $apr1$, or a
   * crypt(3) setting: $1$ $2a$ $2b$ $2y$ $5$ $6$ $y$ $gy$ $7$, DES); digest, the 32 hex digits of
   * MD5(user:realm:password) for this realm. "" = a user who can never sign in (ingress-nginx: 401).
   */
  readonly users: Readonly<Record<string, string>>;
}

/** The JSON Lua receives on POST /configuration/credentials: the FULL set. */
export interface DynamicCredentials {
  readonly sets: readonly CredentialSet[];
}

/** One NGINX `server {}`: one hostname. */
export interface Server {
  /** Lowercased host from the Ingress rule; `_` is the catch-all (rule host "" and unknown hosts). */
  readonly hostname: string;
  /** Locations in the order NGINX should see them (see LocationMatch), sorted deterministically. */
  readonly locations: readonly Location[];
  /**
   * Absent: no client certificates. Present: the host checks them (auth-tls-*, the oldest Ingress
   * of the host decides: model/client-auth.ts); the mode and CA are dynamic (TlsState.clientAuth).
   * passCertificate: ssl-client-cert goes upstream.
   */
  readonly clientAuth?: { readonly passCertificate: boolean };
  /**
   * server-alias (model/server-aliases.ts): more names NGINX serves with this server, sorted; absent = none.
   * Their locations' route flags carry `h` (the redirect check reads $host, not the server name).
   */
  readonly aliases?: readonly string[];
  /**
   * from-to-www-redirect (model/www-redirects.ts): the twin name (`www.<host>` or the bare host) a
   * server of its own redirects to this host (http-redirect-code); absent = none.
   */
  readonly wwwRedirectFrom?: string;
  // No "has TLS" flag here: whether a host has a certificate lives only in the
  // dynamic TlsState, so adding TLS to a served host never reloads (Lua
  // decides ssl-redirect per request: lua/resty_ingress/https_redirect.lua).
}

/**
 * How a location matches, already translated from the Ingress pathType:
 * - `exact`: `location = /path` (pathType Exact);
 * - `prefix`: `/foo` matches `/foo` and `/foo/...` but not `/foobar` (pathType Prefix, and
 *   ImplementationSpecific without use-regex). Rendered as `location = /foo` plus `location /foo/`.
 * - `regex`: `location ~* ^/foo` (use-regex or rewrite-target, as ingress-nginx does).
 * On a server where any location is `regex` or its policy sets use-regex or rewrite-target, render
 * prints EVERY location of the server as `~* ^<path>` (a Prefix path as `^/foo/` and `^/foo`), in
 * ingress-nginx's order, whatever its match: ingress-nginx's host-wide rule (model/regex-hosts.ts).
 */
export type LocationMatch = 'exact' | 'prefix' | 'regex';

/**
 * Where a location sends its requests: the static half of its route. A split
 * (canary by header, cookie or weight) is the dynamic half: it lives in
 * Model.routes under `key` and is applied by Lua, so adding, changing or
 * removing it never reloads.
 */
export type Route =
  /** Proxy to a backend by name (Backend.name); 503 from Lua when it has no endpoints. */
  | {
    readonly kind: 'backend';
    readonly backend: string;
    /**
     * The route's identity, rendered as the location's `$resty_route` and the key Lua finds
     * its dynamic policy by: "<flags> <backend> <host> <namespace> <ingress> <service> <path>"
     * (model/route-key.ts). flags: `-`, or letters: `r` = ssl-redirect by certificate, `e` = the
     * same for a location with rewrite-target or upstream-vhost (answered through its error page). Every field is
     * a validated token without whitespace; `$` in a regex path is written as a backtick.
     */
    readonly key: string;
  }
  /** The built-in default backend: 404 answered by NGINX itself. */
  | { readonly kind: 'not-found' };

/** The Ingress an element came from: for Events, logs and per-request metrics. */
export interface IngressRef {
  readonly namespace: string;
  readonly name: string;
}

/** One NGINX `location {}` inside a Server. */
export interface Location {
  /** The path as written in the Ingress (validated: starts with `/`, no whitespace, quotes, backslash, `;{}#`; `$` only in regex paths, as an anchor). */
  readonly path: string;
  /** How `path` matches; see LocationMatch. */
  readonly match: LocationMatch;
  /** Where requests go (static half; the dynamic half is Model.routes). */
  readonly route: Route;
  /** The Ingress that owns this host+path (oldest wins), or null for generated locations. */
  readonly ingress: IngressRef | null;
  /**
   * The static feature configs the Ingress's annotations set, by feature name (sparse: a feature
   * absent here uses Model.settings). One frozen object shared by the paths of one Ingress.
   */
  readonly policy: Policy;
}

/** Feature configs set per Ingress; absent = the global config (GlobalSettings of the same name). */
export type Policy = Readonly<Partial<Pick<FeatureConfigs, LocationFeature>>>;

/** Features whose config a Location's policy may carry (static, rendered per location). */
export type LocationFeature = 'proxy' | 'backendProtocol' | 'rewrite' | 'sslRedirect' | 'customErrors' | 'mirror'
  | 'upstreamHeaders' | 'nextUpstream' | 'accessControl' | 'cors' | 'fastcgi' | 'proxySsl' | 'clientCerts'
  | 'rateLimit' | 'satisfy' | 'externalAuth' | 'basicAuth'
  | 'proxyBuffers' | 'proxyRewrites' | 'connectionHeader'
  | 'snippets' | 'redirect' | 'serverAlias';

/**
 * Every feature's config, by feature name (controller/src/model/features: one module each).
 * The ConfigMap gives the global value of each (GlobalSettings); annotations override the
 * location features per Ingress (Location.policy); canary is parsed per Ingress into Model.routes.
 */
export interface FeatureConfigs {
  readonly proxy: ProxyConfig;
  readonly backendProtocol: BackendProtocolConfig;
  readonly rewrite: RewriteConfig;
  readonly sslRedirect: SslRedirectConfig;
  readonly loadBalance: LoadBalanceConfig;
  readonly upstreamHash: UpstreamHashConfig;
  readonly canary: CanaryConfig;
  readonly affinity: AffinityConfig;
  readonly tls: TlsSettings;
  readonly accessLog: AccessLogSettings;
  readonly safety: SafetySettings;
  readonly accessControl: AccessControlConfig;
  readonly cors: CorsConfig;
  readonly mirror: MirrorConfig;
  readonly customErrors: CustomErrorsConfig;
  readonly fastcgi: FastcgiConfig;
  readonly proxySsl: ProxySslConfig;
  readonly crossNamespace: CrossNamespaceSettings;
  readonly upstreamHeaders: UpstreamHeadersConfig;
  readonly nextUpstream: NextUpstreamConfig;
  readonly serviceUpstream: ServiceUpstreamConfig;
  readonly clientCerts: ClientCertsConfig;
  readonly rateLimit: RateLimitConfig;
  readonly satisfy: SatisfyConfig;
  readonly gzip: GzipSettings;
  readonly http2: Http2Settings;
  readonly workers: WorkerSettings;
  readonly hashSizes: HashSizeSettings;
  readonly tlsSession: TlsSessionSettings;
  readonly externalAuth: ExternalAuthConfig;
  readonly basicAuth: BasicAuthConfig;
  readonly proxyBuffers: ProxyBuffersConfig;
  readonly proxyRewrites: ProxyRewritesConfig;
  readonly clientConnections: ClientConnectionsSettings;
  readonly connectionHeader: ConnectionHeaderConfig;
  readonly clientAddress: ClientAddressSettings;
  readonly headerSettings: HeaderSettings;
  readonly snippets: SnippetsConfig;
  readonly redirect: RedirectConfig;
  readonly serverAlias: ServerAliasConfig;
}

/** auth-tls-verify-client: NGINX's ssl_verify_client modes. */
export type ClientVerify = 'on' | 'off' | 'optional' | 'optional_no_ca';

/** auth-tls-secret as written: namespace null = the Ingress's own. */
export interface ClientCertsSecret {
  readonly namespace: string | null;
  readonly name: string;
}

/**
 * auth-tls-* (features/client-certs.ts): client certificates. Set per Ingress, applied per host: the
 * oldest Ingress of a host with a secret decides (model/client-auth.ts); Server.clientAuth and
 * TlsState.clientAuth carry the result. No field reaches nginx.conf but passCertificate.
 */
export interface ClientCertsConfig {
  /** auth-tls-secret; null = client certificates off (every other key is then ignored, as ingress-nginx). */
  readonly secret: ClientCertsSecret | null;
  /** auth-tls-verify-client (default on). */
  readonly verify: ClientVerify;
  /** auth-tls-verify-depth, 1..100 (default 1; 0 reads as 1). */
  readonly depth: number;
  /** auth-tls-error-page: URL refused clients are redirected to (302), or null: NGINX's 400 pages. */
  readonly errorPage: string | null;
  /** auth-tls-pass-certificate-to-upstream: send ssl-client-cert upstream. */
  readonly passCertificate: boolean;
  /** auth-tls-match-cn: "CN=<regex>" matched against $ssl_client_s_dn (403 otherwise), or null. */
  readonly matchCn: string | null;
}

/** An auth-url / global-auth-url taken apart (features/external-auth-url.ts): no NGINX variable, every part a strict grammar. */
export interface AuthUrl {
  readonly scheme: 'http' | 'https';
  /** A host name, an IPv4 address or a bracketed IPv6 address (`[::1]`). */
  readonly host: string;
  readonly port: number | null;
  /** `/…` or empty; letters, digits and -._~/: only. */
  readonly path: string;
  /** The query without `?` (letters, digits and -._~/:=&,), or null. */
  readonly query: string | null;
}

/**
 * auth-* and global-auth-* (features/external-auth.ts): a subrequest to an auth service decides
 * each request (NGINX's auth_request). The ConfigMap's global-auth-* fill the global config; an
 * Ingress with auth-url replaces it whole (its unset keys take ingress-nginx's defaults), one
 * without keeps it, and enable-global-auth: "false" turns the global one off for it.
 */
export interface ExternalAuthConfig {
  /** The auth service: the Ingress's auth-url, else the ConfigMap's global-auth-url; null = no external auth. */
  readonly url: AuthUrl | null;
  /** auth-url as the Ingress wrote it (null without one): set, it replaces the global config whole. */
  readonly ownUrl: AuthUrl | null;
  /** auth-method: the subrequest's method (upper case), null = the client's. */
  readonly method: string | null;
  /** auth-signin: where a 401 redirects, with allow-listed variables only (external-auth-url.ts); null = the 401 is passed. */
  readonly signin: string | null;
  /** auth-signin-redirect-param: the query parameter carrying the original URL. */
  readonly signinRedirectParam: string;
  /** auth-response-headers: copied from the auth answer into the request sent upstream (token names). */
  readonly responseHeaders: readonly string[];
  /** auth-request-redirect: X-Auth-Request-Redirect sent to the auth service; null = the request URI. */
  readonly requestRedirect: string | null;
  /**
   * auth-cache-key: the auth answers are cached (NGINX's proxy_cache) under the server name, the auth
   * location and this key: literal letters, digits, - and _, and allow-listed variables (features/external-auth-cache.ts); null = no cache.
   */
  readonly cacheKey: string | null;
  /** auth-cache-duration: proxy_cache_valid lines, each `[code …] <time>` (codes 100-599, one NGINX time). */
  readonly cacheDuration: readonly string[];
  /** auth-always-set-cookie: pass the auth answer's Set-Cookie whatever the status. */
  readonly alwaysSetCookie: boolean;
  /**
   * auth-keepalive: idle connections to the auth service kept per worker (an `upstream` with
   * keepalive, features/external-auth-keepalive.ts); 0 = none. Only an Ingress's own auth-url has it.
   */
  readonly keepalive: number;
  /** auth-keepalive-requests (default 1000; 0 = given 0 or less, keepalive is then 0). */
  readonly keepaliveRequests: number;
  /** auth-keepalive-timeout in seconds (default 60; 0 = given 0 or less, keepalive is then 0). */
  readonly keepaliveTimeout: number;
  /** auth-keepalive-share-vars: validated; auth_request's subrequest always shares the variables. */
  readonly keepaliveShareVars: boolean;
  /** auth-proxy-set-headers: the ConfigMap (`name` or `namespace/name`) of headers sent to the auth service; null = none. */
  readonly proxySetHeadersConfigMap: string | null;
  /**
   * That ConfigMap's headers (name, literal value), sorted by name, read on every build
   * (model/auth-proxy-headers.ts); empty until read. The auth location sends each.
   */
  readonly proxySetHeaders: readonly (readonly [string, string])[];
  /** The ConfigMap is missing, of another namespace, or refused: the location answers 503 (ingress-nginx's location denied). */
  readonly proxySetHeadersDenied: boolean;
  /** True when this is the ConfigMap's global auth (no auth-url on the Ingress): enableGlobal decides. */
  readonly global: boolean;
  /** enable-global-auth (default true). */
  readonly enableGlobal: boolean;
  /** ConfigMap no-auth-locations: locations whose path starts with one of these get no external auth (ingress-nginx's prefix test). */
  readonly noAuthLocations: readonly string[];
  /** `_external-auth-<16 hex>` of what shapes the auth subrequest's location (url, method, requestRedirect, cache); null without a url. */
  readonly name: string | null;
}

/**
 * auth-type, auth-secret, auth-secret-type and auth-realm (features/basic-auth.ts; a Secret of
 * another namespace needs the ConfigMap's allow-cross-namespace-resources, features/cross-namespace.ts). The users come from the Secret at
 * build time into Model.credentials (dynamic); the location only calls Lua's access check.
 */
export interface BasicAuthConfig {
  /** auth-type; null = no authentication (ingress-nginx ignores auth-secret without it). */
  readonly type: 'basic' | 'digest' | null;
  /**
   * auth-secret (`name` or `namespace/name`; namespace null = the Ingress's), null when not set, or
   * 'invalid' for a value that names no Secret: as in ingress-nginx that denies the Ingress's
   * locations (503, model/credentials.ts), it does not refuse the Ingress. Never in nginx.conf.
   */
  readonly secret: { readonly namespace: string | null; readonly name: string } | 'invalid' | null;
  /** auth-secret-type: `auth-file` (htpasswd text under the key `auth`) or `auth-map` (key = user, value = hash). */
  readonly secretType: 'auth-file' | 'auth-map';
  /** auth-realm ("" by default, as ingress-nginx). */
  readonly realm: string;
}

/**
 * upstream-vhost and x-forwarded-prefix (features/upstream-headers.ts): headers sent upstream. A
 * location that sets either prints NGINX's whole list of proxy_set_header again
 * (rootfs/etc/nginx/template/proxy-headers.njk), as NGINX inherits none into a location with its own.
 */
export interface UpstreamHeadersConfig {
  /** upstream-vhost: the Host header sent upstream (a host name or IP literal, optional port), or null for `$host`. */
  readonly host: string | null;
  /** x-forwarded-prefix: the X-Forwarded-Prefix header (a path; `$1`..`$9` are the location regex's captures), or null: not sent. */
  readonly prefix: string | null;
}

/** proxy-next-upstream, -timeout, -tries (features/next-upstream.ts): which failed tries NGINX retries on another endpoint. */
export interface NextUpstreamConfig {
  /** proxy_next_upstream's conditions (NGINX's words, no repeats; `off` alone), as written. */
  readonly conditions: readonly string[];
  /** proxy_next_upstream_timeout in seconds; 0 = no limit. */
  readonly timeout: number;
  /** proxy_next_upstream_tries, counting the first try; 0 = no limit (each endpoint once: lua/resty_ingress/balancer.lua). */
  readonly tries: number;
}

/**
 * service-upstream (features/service-upstream.ts): the backend's one endpoint is the Service's
 * ClusterIP and port instead of its EndpointSlices. DYNAMIC: it only changes Backend.endpoints;
 * when Ingresses routing to one Service port disagree, the oldest Ingress's value wins.
 */
/**
 * limit-* (features/rate-limit.ts): NGINX's limit_req / limit_conn / limit_rate per location, keyed
 * per client address ($binary_remote_addr) per Ingress (render/rate-limit-view.ts). A limit of 0
 * is none. limitReqStatus / limitConnStatus are the ConfigMap's answer once a limit is exceeded.
 */
export interface RateLimitConfig {
  /** limit-rps: requests per second per client address and Ingress, 0..1,000,000 (0 = none). */
  readonly rps: number;
  /** limit-rpm: requests per minute per client address and Ingress, 0..60,000,000 (0 = none). */
  readonly rpm: number;
  /** limit-connections: concurrent connections per client address and Ingress, 0..65535 (0 = none). */
  readonly connections: number;
  /** limit-burst-multiplier: burst = rps (rpm) × this, 0..1000 (default 5). */
  readonly burstMultiplier: number;
  /** limit-rate: response bandwidth per request in KiB/s (`limit_rate <n>k`, as ingress-nginx prints it), 0 = none. */
  readonly rate: number;
  /** limit-rate-after: KiB sent at full speed before limit-rate applies (`limit_rate_after <n>k`), 0 = none. */
  readonly rateAfter: number;
  /** limit-allowlist (alias limit-whitelist): canonical IPv4/IPv6 addresses and ranges exempt from rps/rpm/connections, sorted. */
  readonly allowlist: readonly string[];
  /** ConfigMap limit-req-status-code: 400..599 (default 503). */
  readonly reqStatus: number;
  /** ConfigMap limit-conn-status-code: 400..599 (default 503). */
  readonly connStatus: number;
}

/**
 * satisfy (features/satisfy.ts): how NGINX combines the access-phase checks of a location (allow /
 * deny lists, basic auth, external auth): `any` admits a request one of them admits, `all` needs
 * every one. null = not set (NGINX's default, all), as ingress-nginx prints nothing then.
 */
export interface SatisfyConfig {
  readonly mode: 'any' | 'all' | null;
}

/**
 * A redirect target parsed into its parts (features/redirect-url.ts): an http(s) URL
 * (scheme and host set) or a path on the request's own host (scheme and host null).
 * Render prints the parts (redirectTargetText), never the annotation as written.
 */
export interface RedirectTarget {
  readonly scheme: 'http' | 'https' | null;
  readonly host: string | null;
  readonly port: number | null;
  /** "" (absolute URL without a path) or starting with `/`. */
  readonly path: string;
  /** After `?`, without it; null = no query. */
  readonly query: string | null;
}

/**
 * Redirects (features/redirect.ts), as ingress-nginx v1.15.1's redirect, rewrite (app-root,
 * preserve-trailing-slash) and portinredirect parsers read them.
 */
export interface RedirectConfig {
  /** permanent-redirect: every request of the location answers `return <permanentCode> <target>`. */
  readonly permanent: RedirectTarget | null;
  /** permanent-redirect-code: 300..308 (a number outside is 301, as ingress-nginx). */
  readonly permanentCode: number;
  /** temporal-redirect: as permanent, and wins over it when both are set. */
  readonly temporal: RedirectTarget | null;
  /** temporal-redirect-code: 300..307 (a number outside is 302). */
  readonly temporalCode: number;
  /** relative-redirects: `absolute_redirect off` (the ConfigMap's at http level, an annotation's in its locations). */
  readonly relative: boolean;
  /** use-port-in-redirects: NGINX's port_in_redirect, and the HTTPS redirect names the HTTPS port. */
  readonly usePort: boolean;
  /** preserve-trailing-slash: the HTTPS redirect keeps a trailing `/` of the URI (ingress-nginx drops it). */
  readonly preserveTrailingSlash: boolean;
  /** app-root: a request for `/` on the host answers 302 to `<scheme>://<Host header><appRoot>`. */
  readonly appRoot: string | null;
  /** from-to-www-redirect: the host's www. / bare twin redirects to it (308, the http-redirect-code). */
  readonly fromToWww: boolean;
}

/** server-alias (features/server-alias.ts): extra server names, lowercased, sorted, unique. */
export interface ServerAliasConfig {
  readonly names: readonly string[];
}

export interface ServiceUpstreamConfig {
  readonly enabled: boolean;
}

/**
 * custom-http-errors, disable-proxy-intercept-errors and default-backend (features/custom-errors.ts).
 * An Ingress's config does not inherit the ConfigMap's: as in ingress-nginx, its locations
 * inherit the ConfigMap's error pages (server-level, to the global default backend) unless they
 * set their own.
 */
export interface CustomErrorsConfig {
  /** custom-http-errors: statuses answered by the error backend instead, sorted, unique; [] = none. */
  readonly codes: readonly number[];
  /** disable-proxy-intercept-errors: a backend's own error responses pass through (`proxy_intercept_errors off`). */
  readonly interceptDisabled: boolean;
  /** default-backend (annotation only): a Service in the Ingress's namespace, or null. */
  readonly defaultService: string | null;
  /**
   * Filled in by the builder (model/custom-error-backends.ts), never parsed: Backend.name of the
   * error backend. In a policy, defaultService's first port (also where Lua sends the requests
   * of a route whose backend has no endpoints); in Model.settings, --default-backend-service's
   * when some location has error pages. null = none (errors then go to the global one, else
   * NGINX answers 404 as ingress-nginx's built-in default backend does).
   */
  readonly backend: string | null;
}

/** allow-cross-namespace-resources (ConfigMap only, features/cross-namespace.ts). */
export interface CrossNamespaceSettings {
  /** Annotations may name Secrets and ConfigMaps of other namespaces (default false). */
  readonly allow: boolean;
}

/**
 * The *-snippet keys (features/snippets.ts): NGINX directives, each as the lines that reach
 * nginx.conf, rebuilt from the tokens NGINX reads (snippet-rules.ts checked them); [] = none.
 * An Ingress's are read only when the ConfigMap allows snippets (allow-snippet-annotations and
 * annotations-risk-level Critical); the ConfigMap's are the operator's, as in ingress-nginx.
 */
export interface SnippetsConfig {
  /** configuration-snippet (annotation): in each location of the Ingress. */
  readonly configuration: readonly string[];
  /** server-snippet (annotation): in the server of each host of the Ingress. */
  readonly server: readonly string[];
  /** auth-snippet (annotation): in the external auth location of the Ingress's locations (none without auth-url or global auth). */
  readonly auth: readonly string[];
  /** main-snippet (ConfigMap): in the main context. */
  readonly main: readonly string[];
  /** http-snippet (ConfigMap): in http {}. */
  readonly http: readonly string[];
  /** server-snippet (ConfigMap): in every server. */
  readonly everyServer: readonly string[];
  /** location-snippet (ConfigMap): in every location. */
  readonly everyLocation: readonly string[];
}

/** ingress-nginx's safeguards (ConfigMap only), always on here: only their safe values are accepted. */
export interface SafetySettings {
  /** allow-snippet-annotations (default false): with riskLevel Critical, the snippet annotations are read (features/snippets.ts). */
  readonly allowSnippets: boolean;
  /** annotations-risk-level: the highest annotation risk served (default High). */
  readonly riskLevel: 'Critical' | 'High' | 'Medium' | 'Low';
  /** annotation-value-word-blocklist: an Ingress with a prefixed annotation whose value contains one of these is not served (features/word-blocklist.ts). */
  readonly wordBlocklist: readonly string[];
  /** strict-validate-path-type: always true. */
  readonly strictPathType: true;
}

/** proxy-body-size and the proxy timeouts. Every field is a validated NGINX token. */
export interface ProxyConfig {
  /** proxy-body-size → `client_max_body_size` (e.g. `1m`, `0` = unlimited). */
  readonly bodySize: string;
  /** proxy-connect-timeout → `proxy_connect_timeout`, in seconds. */
  readonly connectTimeout: number;
  /** proxy-read-timeout → `proxy_read_timeout`, in seconds. */
  readonly readTimeout: number;
  /** proxy-send-timeout → `proxy_send_timeout`, in seconds. */
  readonly sendTimeout: number;
}

/**
 * proxy-buffering, proxy-buffer-size, proxy-buffers-number, proxy-busy-buffers-size,
 * proxy-max-temp-file-size, proxy-request-buffering, proxy-http-version, client-body-buffer-size
 * (features/proxy-buffers.ts). Sizes are validated NGINX size tokens (digits and k/m, or an
 * offset with g for the temp file); the combination is one `nginx -t` accepts.
 */
export interface ProxyBuffersConfig {
  /** proxy-buffering → `proxy_buffering` (limit-rate turns it on where it applies). */
  readonly buffering: 'on' | 'off';
  /** proxy-buffer-size → `proxy_buffer_size` and the size of each of `proxy_buffers`. */
  readonly bufferSize: string;
  /** proxy-buffers-number → `proxy_buffers <n> <bufferSize>` (2 or more). */
  readonly buffersNumber: number;
  /** proxy-busy-buffers-size → `proxy_busy_buffers_size`; null = NGINX's (twice a buffer). */
  readonly busyBuffersSize: string | null;
  /** proxy-max-temp-file-size → `proxy_max_temp_file_size` (`0` = no temp files). */
  readonly maxTempFileSize: string;
  /** proxy-request-buffering → `proxy_request_buffering`. */
  readonly requestBuffering: 'on' | 'off';
  /** proxy-http-version → `proxy_http_version`. */
  readonly httpVersion: '1.0' | '1.1';
  /** client-body-buffer-size → `client_body_buffer_size`. */
  readonly bodyBufferSize: string;
}

/** A `<from> <to>` pair of proxy_cookie_domain / proxy_cookie_path, each a validated token. */
export interface CookieRewrite {
  readonly from: string;
  readonly to: string;
}

/**
 * proxy-cookie-domain, proxy-cookie-path, proxy-redirect-from, proxy-redirect-to
 * (features/proxy-rewrites.ts): rewriting of the backend's Set-Cookie and Location/Refresh.
 * Every string is one token of `[-._~A-Za-z0-9/:,?&=]` (a leading `~` is an NGINX regex).
 */
export interface ProxyRewritesConfig {
  /** proxy-cookie-domain; null = `off`. */
  readonly cookieDomain: CookieRewrite | null;
  /** proxy-cookie-path; null = `off`. */
  readonly cookiePath: CookieRewrite | null;
  /** proxy-redirect-from: `off`, `default` or the text replaced. */
  readonly redirectFrom: string;
  /** proxy-redirect-to: `off` or the replacement (only with a redirect-from text). */
  readonly redirectTo: string;
}

/** connection-proxy-header (features/connection-header.ts): the Connection header sent upstream, or null: `$connection_upgrade`. */
export interface ConnectionHeaderConfig {
  readonly header: 'close' | 'keep-alive' | null;
}

/**
 * ConfigMap-only client and upstream connection settings (features/client-connections.ts),
 * printed in http {} and the balancer upstreams. Times are in seconds unless said.
 */
export interface ClientConnectionsSettings {
  /** client-header-buffer-size → `client_header_buffer_size` (a size token). */
  readonly clientHeaderBufferSize: string;
  /** large-client-header-buffers → `large_client_header_buffers <number> <size>`. */
  readonly largeClientHeaderBuffers: { readonly number: number; readonly size: string };
  /** client-header-timeout → `client_header_timeout`. */
  readonly clientHeaderTimeout: number;
  /** client-body-timeout → `client_body_timeout`. */
  readonly clientBodyTimeout: number;
  /** keep-alive → `keepalive_timeout` (0 = no client keep-alive). */
  readonly keepAlive: number;
  /** keep-alive-requests → `keepalive_requests`. */
  readonly keepAliveRequests: number;
  /** upstream-keepalive-connections → the balancer upstreams' `keepalive` (0 = none). */
  readonly upstreamKeepaliveConnections: number;
  /** upstream-keepalive-time → `keepalive_time`, an NGINX time token (e.g. `1h`). */
  readonly upstreamKeepaliveTime: string;
  /** upstream-keepalive-timeout → the upstreams' `keepalive_timeout`. */
  readonly upstreamKeepaliveTimeout: number;
  /** upstream-keepalive-requests → the upstreams' `keepalive_requests`. */
  readonly upstreamKeepaliveRequests: number;
}

/**
 * backend-protocol (features/backend-protocol.ts): HTTP/HTTPS → `proxy_pass http(s)://`,
 * AUTO_HTTP → `proxy_pass $scheme://` (the client's scheme), GRPC/GRPCS → `grpc_pass grpc(s)://`,
 * FCGI → `fastcgi_pass` (with the fastcgi feature's index and params). Always the one balancer upstream.
 */
export interface BackendProtocolConfig {
  readonly protocol: BackendProtocol;
}

/** The protocols a location speaks to its backend (ingress-nginx's names, uppercase). */
export type BackendProtocol = 'HTTP' | 'HTTPS' | 'AUTO_HTTP' | 'GRPC' | 'GRPCS' | 'FCGI';

/** fastcgi-index and fastcgi-params-configmap (features/fastcgi.ts); used only with backend-protocol FCGI. */
export interface FastcgiConfig {
  /** fastcgi-index → `fastcgi_index "<index>"`: a file name of `[A-Za-z0-9._-]`, or null. */
  readonly index: string | null;
  /** fastcgi-params-configmap: `<name>` or `<namespace>/<name>` of a ConfigMap (the namespace must be the Ingress's), or null. */
  readonly paramsConfigMap: string | null;
  /**
   * The ConfigMap's data as `fastcgi_param` name/value pairs, sorted by name, each checked
   * (model/fastcgi-params.ts); set by the build from the snapshot, null until then or without one.
   */
  readonly params: readonly (readonly [string, string])[] | null;
}

/**
 * proxy-ssl-* (features/proxy-ssl.ts): TLS to an HTTPS/GRPCS backend. As in ingress-nginx, the
 * other keys apply only with a `secret`.
 */
export interface ProxySslConfig {
  /** proxy-ssl-secret: `<namespace>/<name>` of a Secret with ca.crt and/or tls.crt + tls.key, or null. */
  readonly secret: string | null;
  /** proxy-ssl-verify: check the backend's certificate against ca.crt. */
  readonly verify: boolean;
  /** proxy-ssl-verify-depth (default 1). */
  readonly verifyDepth: number;
  /** proxy-ssl-name: the name checked and sent as SNI (an RFC 1123 host name or an NGINX variable), or null = the request host. */
  readonly name: string | null;
  /** proxy-ssl-server-name: send SNI; null = not set (on, as for every HTTPS backend here). */
  readonly serverName: boolean | null;
  /** proxy-ssl-protocols: sorted, each TLSv1.2 or TLSv1.3 (default TLSv1.2). */
  readonly protocols: readonly string[];
  /** proxy-ssl-ciphers: an OpenSSL cipher list of `[A-Za-z0-9+:_!-]` (default DEFAULT). */
  readonly ciphers: string;
}

/** rewrite-target and use-regex: both make ImplementationSpecific paths regex locations. */
export interface RewriteConfig {
  /** rewrite-target: the replacement for `rewrite "(?i)<path>" <target> break;`, or null. */
  readonly target: string | null;
  /** use-regex: ImplementationSpecific paths are regular expressions. */
  readonly useRegex: boolean;
}

/** ssl-redirect and force-ssl-redirect (annotation, else ConfigMap). */
export interface SslRedirectConfig {
  /**
   * ssl-redirect (default true): plain HTTP is redirected when the request host has a
   * certificate in TlsState.hosts (decided in Lua per request, so adding or removing a
   * certificate is dynamic).
   */
  readonly redirect: boolean;
  /** force-ssl-redirect (default false): plain HTTP is always redirected (a static `return`). */
  readonly force: boolean;
}

/** load-balance: lives on the Backend (DYNAMIC); when Ingresses disagree, the oldest Ingress's value wins. */
export interface LoadBalanceConfig {
  readonly algorithm: LoadBalance;
}

/**
 * upstream-hash-by, -subset, -subset-size (annotations only: ingress-nginx reads the ConfigMap keys
 * of these names but never uses them). Lives on the Backend as Backend.hash (DYNAMIC).
 */
export interface UpstreamHashConfig {
  /** upstream-hash-by: the key template (`$name`, `${name}` and text of [A-Za-z0-9_-]), or null = no hashing. */
  readonly by: string | null;
  /** upstream-hash-by-subset: the key picks a subset of `subsetSize` endpoints, then a random one of it. */
  readonly subset: boolean;
  /** upstream-hash-by-subset-size (default 3). */
  readonly subsetSize: number;
}

/** Consistent hashing of a backend, as Lua receives it. */
export interface BackendHash {
  /** The key template, validated (UpstreamHashConfig.by). */
  readonly by: string;
  /** Endpoints per subset (subset mode), or null: the key picks one endpoint. */
  readonly subsetSize: number | null;
}

/** The canary-* annotations of one Ingress, read together (features/canary.ts). */
export interface CanaryConfig {
  /** canary: "true" makes the Ingress a canary of the main Ingress with the same host and path. */
  readonly enabled: boolean;
  /** canary-weight: requests sent to the canary out of weightTotal (0 = none by weight). */
  readonly weight: number;
  /** canary-weight-total (default 100). */
  readonly weightTotal: number;
  /** canary-by-header: the request header that decides first, or null. */
  readonly header: string | null;
  /** canary-by-header-value: the header value that routes to the canary, or null. */
  readonly headerValue: string | null;
  /** canary-by-header-pattern: a PCRE the header value must match, or null (ignored when headerValue is set). */
  readonly headerPattern: string | null;
  /** canary-by-cookie: the cookie whose value "always"/"never" decides after the header, or null. */
  readonly cookie: string | null;
}

/**
 * Allow/deny lists by client address ($remote_addr) and the ConfigMap's block lists
 * (features/access-control.ts). Addresses and ranges are canonical (features/ip-ranges.ts).
 */
export interface AccessControlConfig {
  /** allowlist-source-range (alias whitelist-source-range; ConfigMap whitelist-source-range): `allow` each, then `deny all`; empty = no allow list. */
  readonly allow: readonly string[];
  /** denylist-source-range (annotation and ConfigMap): `deny` each, before the allow list. */
  readonly deny: readonly string[];
  /** An allow-list annotation was set empty: ingress-nginx denies the location (503), it is never served open. */
  readonly denied: boolean;
  /** ConfigMap block-cidrs: refused (403) in every server, before any list of a location. */
  readonly blockCidrs: readonly string[];
  /** ConfigMap block-user-agents: a User-Agent matching one is refused (403) in every server. */
  readonly blockUserAgents: readonly BlockPattern[];
  /** ConfigMap block-referers: a Referer matching one is refused (403) in every server. */
  readonly blockReferers: readonly BlockPattern[];
}

/** One key of an NGINX map on a request header: a whole string (case-insensitive) or a regex (`~`, `~*`), validated (features/block-patterns.ts). */
export interface BlockPattern {
  readonly kind: 'exact' | 'regex' | 'regex-caseless';
  /** The string or the regex source, printable ASCII, printed only through the `qpattern` filter. */
  readonly value: string;
}

/** enable-cors and cors-* of one Ingress (features/cors.ts); every value is a validated token. */
export interface CorsConfig {
  readonly enabled: boolean;
  /** cors-allow-origin: `["*"]` (any origin: `*` is sent), else `scheme://host[:port]`, `scheme://*.host[:port]` or `null` items, lower case; empty = no origin matches. */
  readonly allowOrigin: readonly string[];
  /** cors-allow-methods as written (letters, commas, spaces). */
  readonly allowMethods: string;
  /** cors-allow-headers as written (letters, digits, `-_`, commas, spaces). */
  readonly allowHeaders: string;
  /** cors-expose-headers as written, or "" (not sent). */
  readonly exposeHeaders: string;
  readonly allowCredentials: boolean;
  /** cors-max-age in seconds (any integer ingress-nginx reads; printed as decimal). */
  readonly maxAge: number;
}

/**
 * affinity and session-cookie-* of one Ingress, read together (features/affinity.ts). Annotations
 * only (ingress-nginx has no ConfigMap keys for them). Applied per Backend (Backend.affinity).
 */
export interface AffinityConfig {
  /** affinity: "cookie" turns session affinity on (the only type); absent or invalid = off. */
  readonly enabled: boolean;
  /** affinity-mode (default balanced). */
  readonly mode: AffinityMode;
  /** affinity-canary-behavior, read on the CANARY Ingress: sticky (default) or legacy. */
  readonly canaryBehavior: 'sticky' | 'legacy';
  /** session-cookie-name (default INGRESSCOOKIE): an RFC 6265 cookie name. */
  readonly cookieName: string;
  /** session-cookie-path, or null: the location's path. */
  readonly cookiePath: string | null;
  /** session-cookie-domain, or null: no Domain attribute. */
  readonly cookieDomain: string | null;
  /** session-cookie-expires in seconds (Expires = now + this), or null: no Expires attribute. */
  readonly cookieExpires: number | null;
  /** session-cookie-max-age in seconds, or null: no Max-Age attribute. */
  readonly cookieMaxAge: number | null;
  /** session-cookie-secure: Secure on every response (false: Secure only over HTTPS). */
  readonly cookieSecure: boolean;
  /** session-cookie-samesite as written (None, Lax, Strict in any case), or null: no SameSite. */
  readonly cookieSameSite: string | null;
  /** session-cookie-conditional-samesite-none: leave out SameSite=None for user agents that reject it. */
  readonly cookieConditionalSameSiteNone: boolean;
  /** session-cookie-change-on-failure: a retry after a failed try picks another endpoint and a new cookie. */
  readonly cookieChangeOnFailure: boolean;
}

/**
 * How sticky a session is: `balanced` maps the cookie to an endpoint by consistent hashing (a
 * scale-up moves some sessions to the new endpoints), `persistent` names the endpoint (a session
 * moves only when its endpoint goes).
 */
export type AffinityMode = 'balanced' | 'persistent';

/**
 * Session affinity by cookie as Lua applies it to one backend (lua/resty_ingress/sticky.lua).
 * DYNAMIC: pushed with the endpoints (DynamicBackend.affinity), a change never reloads.
 */
export interface BackendAffinity {
  /** AffinityConfig.mode of the Ingress that decides (the oldest routing here with affinity: cookie). */
  readonly mode: AffinityMode;
  /** The cookie's name. */
  readonly cookie: string;
  /** The Path attribute, or null: the path of the location the request came through (its Route.key's last word). */
  readonly path: string | null;
  /** The Domain attribute, or null: none. */
  readonly domain: string | null;
  /** Seconds from now for the Expires attribute, or null: none. */
  readonly expires: number | null;
  /** The Max-Age attribute, or null: none. */
  readonly maxAge: number | null;
  /** Secure on every response; false: Secure only on HTTPS requests. */
  readonly secure: boolean;
  /** The SameSite attribute as written, or null: none. */
  readonly sameSite: string | null;
  /** Leave out SameSite=None for user agents known to reject it. */
  readonly conditionalSameSiteNone: boolean;
  /** A retry after a failed try picks another endpoint and sets a new cookie (else it stays on the cookie's endpoint). */
  readonly changeOnFailure: boolean;
  /**
   * The Ingresses (`namespace/name`, sorted) whose locations SET the cookie: those with affinity:
   * cookie that route here (and, for a canary's backend, its main Ingress). A location of another
   * Ingress routing here balances by the cookie a client brings but sets none (as ingress-nginx).
   */
  readonly ingresses: readonly string[];
}

/**
 * mirror-target, mirror-request-body and mirror-host of one Ingress (features/mirror.ts). Each
 * request of its paths is copied to the target (NGINX `mirror`); the client gets the main
 * backend's answer whatever the copy does.
 */
export interface MirrorConfig {
  /** mirror-target, validated and taken apart; null = no mirror. */
  readonly target: MirrorTarget | null;
  /** mirror-request-body (default on): the copy carries the request body. */
  readonly requestBody: boolean;
  /** mirror-host: the Host header of the copy (a host name or IPv4 address, optional `:port`); null = the target's host. */
  readonly host: string | null;
  /**
   * With a target: `_mirror-<16 hex>`, a hash of the three fields above. It names the server's
   * internal `location = /<name>` the copy goes through and the `upstream <name>` that holds the
   * target's address (render/mirror-view.ts): Ingresses mirroring alike share them. Null without one.
   */
  readonly name: string | null;
}

/** A mirror-target URL as NGINX is given it: every field matched a strict grammar. */
export interface MirrorTarget {
  readonly scheme: 'http' | 'https';
  /** A DNS name (lowercase letters, digits, `-`, dots between labels) or an IPv4 address. */
  readonly host: string;
  /** The port written in the URL, or null (80 for http, 443 for https). */
  readonly port: number | null;
  /**
   * What follows the host and port: `""`, or a path of `[A-Za-z0-9/._~:-]` starting with `/`,
   * with `$request_uri` at most once anywhere in it (the client's URI and query, as NGINX has it).
   */
  readonly path: string;
}

/** Load-balancing algorithms Lua implements (load-balance annotation). */
export type LoadBalance = 'round_robin' | 'ewma';

/** One upstream endpoint: an IP address (never a name) and a port. */
export interface Endpoint {
  readonly address: string;
  readonly port: number;
}

/**
 * One backend: a Service port. Static part: name/service/port (they shape
 * nginx.conf only through the locations that name the backend). Dynamic part:
 * endpoints, loadBalance, hash and affinity, applied by Lua without a reload.
 */
export interface Backend {
  /** `<namespace>-<service>-<port>` where port is the Service port number or name as referenced. */
  readonly name: string;
  /** Namespace of the Service. */
  readonly namespace: string;
  /** Service name. */
  readonly service: string;
  /** The Service port as the Ingress referenced it: number or name. */
  readonly port: number | string;
  /** Ready endpoints, sorted by address then port; empty = 503 (missing Service, none ready). DYNAMIC. */
  readonly endpoints: readonly Endpoint[];
  /**
   * Balancing algorithm; when Ingresses disagree, the oldest Ingress's value wins. DYNAMIC
   * (pushed with the endpoints, never a reload). EWMA learns response times from a Lua log
   * phase, which only the locations of backends that used EWMA when nginx.conf was last
   * rendered carry (render/location-blocks.ts says why).
   */
  readonly loadBalance: LoadBalance;
  /**
   * Consistent hashing (upstream-hash-by), or null. When set (and no affinity), Lua picks by the
   * hash, not by loadBalance. When Ingresses disagree, the oldest Ingress's value wins. DYNAMIC.
   */
  readonly hash: BackendHash | null;
  /**
   * Session affinity by cookie, or null. When Ingresses disagree, the oldest Ingress with
   * affinity: cookie decides (ingress-nginx takes the first it sees with a type); a canary's
   * backend without its own takes its main backend's unless the canary Ingress says
   * affinity-canary-behavior: legacy. DYNAMIC: Lua picks by it first (before load-balance).
   */
  readonly affinity: BackendAffinity | null;
  /**
   * Some location routes to it. False for a backend only a canary split sends traffic to: such a
   * backend exists for Lua alone (its endpoints), so it never shapes nginx.conf.
   */
  readonly routed: boolean;
}

/** The JSON Lua receives per backend on POST /configuration/backends (an array of these). */
export interface DynamicBackend {
  readonly name: string;
  readonly endpoints: readonly Endpoint[];
  readonly loadBalance: LoadBalance;
  /** Backend.hash when not null (absent = none: Lua's canonical form leaves it out too). */
  readonly hash?: BackendHash;
  /** Backend.affinity; absent = null. */
  readonly affinity?: BackendAffinity | null;
}

/**
 * The body of PATCH /configuration/backends: only what changed since the
 * state Lua holds (the sync falls back to the full POST when that state is
 * unknown, e.g. after an NGINX restart).
 */
export interface BackendPatch {
  /** Backends added or whose endpoints or algorithm changed, in model order. */
  readonly set: readonly DynamicBackend[];
  /** Names of backends to drop, sorted. */
  readonly remove: readonly string[];
}

/** Something the builder refused; becomes a log line and a Warning Event on `ingress`. */
export interface Failure {
  /** The Ingress at fault, or null for cluster-wide problems (e.g. bad --default-backend-service). */
  readonly ingress: IngressRef | null;
  /** Stable machine-readable reason, e.g. `InvalidAnnotation`, `Conflict`, `InvalidPath`, `ServiceNotFound`. */
  readonly reason: string;
  /** The field at fault, e.g. `metadata.annotations[nginx.ingress.kubernetes.io/proxy-body-size]`. */
  readonly field: string;
  /** Human-readable message naming the value (sanitised: never more than 200 chars, no newlines). */
  readonly message: string;
  /**
   * True for a warning: nothing the Ingress asked for that protects anything was refused (an
   * unsupported or misspelt annotation it is served without). Admission warns instead of denying.
   */
  readonly warning?: true;
  /**
   * `namespace/name` of the ConfigMap at fault when it is not the controller's own (a TCP/UDP
   * services ConfigMap entry): the Warning Event goes on that ConfigMap. Absent otherwise.
   */
  readonly configMap?: string;
}

/** What buildModel returns: one bad Ingress is a failure, never a crash. */
export interface BuildResult {
  readonly model: Model;
  readonly failures: readonly Failure[];
}

/** The Secret a certificate came from. */
export interface SecretRef {
  readonly namespace: string;
  readonly name: string;
}

/**
 * A certificate from a valid `kubernetes.io/tls` Secret. Holds the PRIVATE KEY:
 * never log a Certificate or a Model whole; only Lua receives `key`.
 */
export interface Certificate {
  /** `<namespace>/<secret name>`: stable across rotations, so a new PEM under the same id is a dynamic change. */
  readonly id: string;
  readonly secret: SecretRef;
  /** `tls.crt` as found: the PEM chain, leaf first. */
  readonly cert: string;
  /** `tls.key`: the PEM private key matching the leaf. */
  readonly key: string;
  /** DNS names the leaf is valid for (SAN DNS entries, else the CN), lowercased, sorted. */
  readonly names: readonly string[];
  /** Leaf serial number, uppercase hex (for logs and tests). */
  readonly serial: string;
  /** Leaf validity end, ISO 8601; an expired certificate is still served (clients decide) but flagged. */
  readonly notAfter: string;
}

/** One entry of the host → certificate map Lua consults by SNI. */
export interface CertificateHost {
  /** Lowercased host or one-label wildcard (`*.example.com`) as named in `spec.tls[].hosts` or a rule host the certificate covers. */
  readonly host: string;
  /** Certificate.id. */
  readonly certificate: string;
}

/** The dynamic TLS state (blanked by diff's staticPart: changing it never reloads). */
export interface TlsState {
  /** Valid certificates some host uses, sorted by id. */
  readonly certificates: readonly Certificate[];
  /** Host → certificate, sorted by host; a host absent here gets the default certificate. */
  readonly hosts: readonly CertificateHost[];
  /** Certificate.id of --default-ssl-certificate when valid, else null (the self-signed placeholder of nginx.conf). */
  readonly defaultCertificate: string | null;
  /** Client certificates per host (absent = none): pushed to Lua with the certificates (POST /configuration/client-auth). */
  readonly clientAuth?: ClientAuthState;
}

/** The CA bundles and each host's client-certificate settings (model/client-auth.ts). */
export interface ClientAuthState {
  /** CA bundles by id (`namespace/name` of the Secret), sorted by id; `pem` is re-encoded certificate by certificate. */
  readonly cas: readonly { readonly id: string; readonly pem: string }[];
  /** Sorted by host. */
  readonly hosts: readonly ClientAuthHost[];
}

/** One host's client-certificate settings as Lua receives them (lua/resty_ingress/client_auth_api.lua). */
export interface ClientAuthHost {
  readonly host: string;
  /** The CA bundle's id, or null: its Secret is missing or unusable, the host answers 403. */
  readonly ca: string | null;
  readonly verify: ClientVerify;
  readonly depth: number;
  readonly matchCn: string | null;
  readonly errorPage: string | null;
}

/** The JSON Lua receives on POST /configuration/certificates: the FULL set (private keys included, loopback only). */
export interface DynamicCertificates {
  /** Every certificate by id. */
  readonly certificates: readonly { readonly id: string; readonly cert: string; readonly key: string }[];
  /** host → certificate id. */
  readonly hosts: Readonly<Record<string, string>>;
  /** Certificate id for unknown SNI, or null (NGINX's placeholder certificate). */
  readonly defaultCertificate: string | null;
  /** Client certificates (absent = none), POSTed whole to /configuration/client-auth after the certificates. */
  readonly clientAuth?: ClientAuthState;
}

/** HSTS as sent on HTTPS responses. */
export interface HstsSettings {
  /** hsts: send Strict-Transport-Security on HTTPS responses (default true). */
  readonly enabled: boolean;
  /** hsts-max-age in seconds (default 31536000). */
  readonly maxAge: number;
  /** hsts-include-subdomains (default true). */
  readonly includeSubdomains: boolean;
  /** hsts-preload (default false). */
  readonly preload: boolean;
}

/** The TLS listener's settings (ConfigMap only). */
export interface TlsSettings {
  /** ssl-protocols: `TLSv1.2 TLSv1.3` by default; each word one of TLSv1, TLSv1.1, TLSv1.2, TLSv1.3. */
  readonly protocols: readonly string[];
  /** ssl-ciphers: an OpenSSL cipher list (letters, digits, `-_:+!@.=`), for TLS ≤ 1.2. */
  readonly ciphers: string;
  readonly hsts: HstsSettings;
  /** http-redirect-code: 301, 302, 307 or 308 (default 308). */
  readonly redirectCode: 301 | 302 | 307 | 308;
}

/**
 * Global settings from the ConfigMap (--configmap): the global config of every feature, by
 * feature name, each key validated (a bad value keeps the default, with a failure). A location
 * feature's value here is what a location gets when its Ingress does not set it; the renderer
 * prints it once at http level where NGINX allows.
 */
export type GlobalSettings = FeatureConfigs;

/** The access log of proxied traffic (the status server never logs). Static: shapes nginx.conf. */
export interface AccessLogSettings {
  /** false when the ConfigMap says `disable-access-log: "true"` (ingress-nginx's key); default true. */
  readonly enabled: boolean;
  /**
   * log-format-upstream: the `log_format upstreaminfo` text, default ingress-nginx's. Validated by
   * model/log-format.ts: printable ASCII without `'`, `\`, `;`; every `$variable` allow-listed.
   * Render prints it single-quoted; it may contain `"`, `{`, `}` (JSON formats).
   */
  readonly format: string;
  /** log-format-escape-json: `escape=json` on the log_format (default false: NGINX's default escaping). */
  readonly escapeJson: boolean;
  /** log-format-escape-none: `escape=none` (wins over escapeJson, as in ingress-nginx); absent = false. */
  readonly escapeNone?: boolean;
  /** skip-access-log-urls: request URIs (`$request_uri`, exact, each starting with `/`) never logged; absent = none. */
  readonly skipUrls?: readonly string[];
  /** access-log-path: `prefix` = `<prefix>/access.log` (ingress-nginx's default path), or `/dev/stdout` / `/dev/stderr`; absent = prefix. */
  readonly path?: 'prefix' | '/dev/stdout' | '/dev/stderr';
  /** error-log-level: the `error_log` level (default notice); absent = the render option's. */
  readonly errorLogLevel?: 'debug' | 'info' | 'notice' | 'warn' | 'error' | 'crit' | 'alert' | 'emerg';
}

/** use-gzip and its gzip-* keys (features/gzip.ts): http-level response compression. */
export interface GzipSettings {
  /** use-gzip (default false). */
  readonly enabled: boolean;
  /** gzip-level: gzip_comp_level 1..9 (default 1). */
  readonly level: number;
  /** gzip-min-length: gzip_min_length in bytes (default 256). */
  readonly minLength: number;
  /** gzip-types: MIME types (`type/subtype` or `*`), default ingress-nginx's list. */
  readonly types: readonly string[];
  /** gzip-disable: `msie6` (NGINX's own mask) or null = none. */
  readonly disable: 'msie6' | null;
}

/** use-http2 and http2-max-* (features/http2.ts). */
export interface Http2Settings {
  /** use-http2 (default true): `http2 on` on the public listeners. */
  readonly enabled: boolean;
  /** http2-max-concurrent-streams (default 128). */
  readonly maxConcurrentStreams: number;
}

/** worker-processes, max-worker-connections, worker-shutdown-timeout (features/workers.ts). */
export interface WorkerSettings {
  /** worker_processes: a count, or `auto` (default) = the command line's --worker-processes (itself `auto` by default). */
  readonly processes: 'auto' | number;
  /** worker_connections (default 16384). */
  readonly connections: number;
  /** worker_shutdown_timeout in seconds (default 240). */
  readonly shutdownTimeout: number;
}

/** The NGINX hash tables' sizes (features/hash-sizes.ts); render never prints less than it needs. */
export interface HashSizeSettings {
  readonly variablesBucketSize: number;
  readonly variablesMaxSize: number;
  /** server-name-hash-bucket-size: 0 = computed from the host names (default). */
  readonly serverNamesBucketSize: number;
  readonly serverNamesMaxSize: number;
  readonly mapBucketSize: number;
}

/** The TLS session and handshake keys (features/tls-session.ts). */
export interface TlsSessionSettings {
  /** ssl-session-cache (default true): `ssl_session_cache shared:SSL:<cacheSize>`. */
  readonly cache: boolean;
  /** ssl-session-cache-size: an NGINX size (default 10m). */
  readonly cacheSize: string;
  /** ssl-session-timeout: an NGINX time (default 10m). */
  readonly timeout: string;
  /** ssl-session-tickets (default false). */
  readonly tickets: boolean;
  /** ssl-buffer-size: an NGINX size (default 4k). */
  readonly bufferSize: string;
  /** ssl-ecdh-curve: `auto` or curve names joined by `:` (default auto). */
  readonly ecdhCurve: string;
  /** ssl-early-data: TLS 1.3 0-RTT (default false). */
  readonly earlyData: boolean;
  /** ssl-reject-handshake: refuse TLS handshakes whose SNI (or its absence) selects the catch-all server (default false). */
  readonly rejectHandshake: boolean;
}

/**
 * The client's address and the forwarded headers (ConfigMap only; features/client-address.ts):
 * what NGINX's realip module takes as $remote_addr (allow/deny lists, rate limits, the access
 * log and X-Real-IP / X-Forwarded-For see it) and what the X-Forwarded-* headers a backend
 * receives say. Static: shapes http {} and the listeners.
 */
export interface ClientAddressSettings {
  /** use-forwarded-headers: trust the client's X-Forwarded-For/-Proto/-Port/-Host (default false). */
  readonly useForwardedHeaders: boolean;
  /** forwarded-for-header: the header realip reads the client address from (letters, digits, `-`; default X-Forwarded-For). */
  readonly forwardedForHeader: string;
  /** forwarded-host-header: the header sent on as X-Original-Forwarded-Host (same grammar; default X-Forwarded-Host). */
  readonly forwardedHostHeader: string;
  /** compute-full-forwarded-for: X-Forwarded-For is the client's chain plus the peer (with useForwardedHeaders only). */
  readonly computeFullForwardedFor: boolean;
  /** enable-real-ip: realip on without use-forwarded-headers (default false). */
  readonly enableRealIp: boolean;
  /** proxy-real-ip-cidr: the peers trusted to name the client (canonical addresses and ranges; default 0.0.0.0/0). */
  readonly realIpFrom: readonly string[];
  /** use-proxy-protocol: every public listener expects a PROXY protocol header (default false). */
  readonly useProxyProtocol: boolean;
  /** proxy-protocol-header-timeout in milliseconds (default 5000); ingress-nginx reads it only in its SSL-passthrough proxy. */
  readonly proxyProtocolHeaderTimeoutMs: number;
  /** proxy-add-original-uri-header: send X-Original-URI (the request URI as received; default false). */
  readonly addOriginalUri: boolean;
  /** generate-request-id: $req_id is the client's X-Request-ID, else NGINX's $request_id (default true); false: only the client's. */
  readonly generateRequestId: boolean;
}

/**
 * Headers added to every proxied request and every response, hidden response headers, and how
 * request header names are parsed (ConfigMap only; features/header-settings.ts). Static: shapes
 * http {} (features/header-settings-http.njk).
 */
export interface HeaderSettings {
  /** proxy-set-headers: the ConfigMap (`namespace/name`) whose data are headers sent to every backend; null = none. */
  readonly proxySetHeadersConfigMap: string | null;
  /** add-headers: the ConfigMap (`namespace/name`) whose data are headers added to every response; null = none. */
  readonly addHeadersConfigMap: string | null;
  /**
   * The validated entries of the proxy-set-headers ConfigMap, sorted by name; filled by the builder
   * (model/header-configmaps.ts), empty while the ConfigMap is missing. Values may name NGINX variables.
   */
  readonly proxySetHeaders: readonly (readonly [string, string])[];
  /** The same for add-headers. */
  readonly addHeaders: readonly (readonly [string, string])[];
  /** hide-headers: response headers of the backend not passed to the client (header names). */
  readonly hideHeaders: readonly string[];
  /** enable-underscores-in-headers: NGINX's underscores_in_headers (default false). */
  readonly underscoresInHeaders: boolean;
  /** ignore-invalid-headers: NGINX's ignore_invalid_headers (default true). */
  readonly ignoreInvalidHeaders: boolean;
  /** server-tokens: NGINX's server_tokens, the version in the Server header and error pages (default false). */
  readonly serverTokens: boolean;
}

/**
 * The dynamic policy of one route (a canary split today; each dynamic feature adds a field).
 * Lua finds it by the `$resty_route` value of the location, which is `key`.
 */
export interface RoutePolicy {
  /** Route.key of the main location. */
  readonly key: string;
  readonly canary: CanarySplit;
}

/** Where a canary Ingress takes requests of its main location, and by which rule. */
export interface CanarySplit {
  /** Backend.name of the canary's Service port. */
  readonly backend: string;
  readonly weight: number;
  readonly weightTotal: number;
  readonly header: string | null;
  readonly headerValue: string | null;
  readonly headerPattern: string | null;
  readonly cookie: string | null;
}

/** The JSON Lua receives on POST /configuration/routes: the FULL set. */
export interface DynamicRoutes {
  readonly routes: readonly RoutePolicy[];
}
