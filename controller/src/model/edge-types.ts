// The edge features' configs (proxy tuning, redirects, TLS, HTTP-level settings, logs, the
// client address and headers), field by field. Part of the model's contract: types.ts
// re-exports every type here.

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
  /**
   * ssl-session-ticket-key: the ticket keys as the ConfigMap holds them, base64 of 48 or 80 bytes
   * (validated), or null (default: keys NGINX makes at each start). Key material: written to a 0600
   * file under the prefix (model/tls-session-files.ts names it) and never quoted in a message.
   */
  readonly ticketKey?: string | null;
  /** ssl-dh-param: the `namespace/name` of a Secret with dhparam.pem, or null (default: none, no DHE ciphers). */
  readonly dhParamSecret?: string | null;
  /**
   * The DH parameters read from that Secret by the build (model/dh-params.ts), as a PEM rebuilt
   * from the validated numbers, or null (no Secret named, or it cannot be used: a failure says why).
   * Written to a file under the prefix (model/tls-session-files.ts) that `ssl_dhparam` names.
   */
  readonly dhParam?: string | null;
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
