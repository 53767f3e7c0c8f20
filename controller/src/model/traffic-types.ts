// The traffic features' configs (backends, balancing, canaries, affinity, mirroring, error
// pages, upstream protocols), field by field. Part of the model's contract: types.ts re-exports
// every type here.

import type { LoadBalance } from './types.ts';

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

