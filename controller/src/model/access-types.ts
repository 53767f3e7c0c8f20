// The access-control features' configs (authentication, client certificates, allow/deny
// lists, CORS, rate limits, satisfy, snippets and their gates), field by field. Part of the
// model's contract: types.ts re-exports every type here.

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

