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
  /** ConfigMaps in the watched namespaces (the controller's own is found by --configmap). */
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
}

/** One NGINX `server {}`: one hostname. */
export interface Server {
  /** Lowercased host from the Ingress rule; `_` is the catch-all (rule host "" and unknown hosts). */
  readonly hostname: string;
  /** Locations in the order NGINX should see them (see LocationMatch), sorted deterministically. */
  readonly locations: readonly Location[];
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
 */
export type LocationMatch = 'exact' | 'prefix' | 'regex';

/** Where a location sends its requests. */
export type LocationTarget =
  /** Proxy to a backend by name (Backend.name); 503 from Lua when it has no endpoints. */
  | { readonly kind: 'backend'; readonly backend: string }
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
  /** Where requests go. */
  readonly target: LocationTarget;
  /** The Ingress that owns this host+path (oldest wins), or null for generated locations. */
  readonly ingress: IngressRef | null;
  /** Per-location proxy settings from annotations (already validated and defaulted). */
  readonly proxy: ProxySettings;
  /** rewrite-target: the replacement for `rewrite "(?i)<path>" <target> break;`, or null. */
  readonly rewriteTarget: string | null;
  /**
   * ssl-redirect (annotation, else ConfigMap; default true): plain HTTP is redirected when the
   * request host has a certificate in TlsState.hosts (decided in Lua per request, so it does not
   * depend on whether a certificate exists now: adding or removing one is dynamic).
   */
  readonly sslRedirect: boolean;
  /** force-ssl-redirect (annotation, else ConfigMap; default false): plain HTTP is always redirected (a static `return`). */
  readonly forceSslRedirect: boolean;
}

/** Per-location proxy settings. Every field is a validated NGINX token. */
export interface ProxySettings {
  /** proxy-body-size → `client_max_body_size` (e.g. `1m`, `0` = unlimited). */
  readonly bodySize: string;
  /** proxy-connect-timeout → `proxy_connect_timeout`, in seconds. */
  readonly connectTimeout: number;
  /** proxy-read-timeout → `proxy_read_timeout`, in seconds. */
  readonly readTimeout: number;
  /** proxy-send-timeout → `proxy_send_timeout`, in seconds. */
  readonly sendTimeout: number;
  /** backend-protocol → `proxy_pass http://` or `https://`. */
  readonly protocol: 'HTTP' | 'HTTPS';
}

/** Load-balancing algorithms Lua implements (load-balance annotation). */
export type LoadBalance = 'round_robin' | 'ewma';

/** One upstream endpoint: an IP address (never a name) and a port. */
export interface Endpoint {
  readonly address: string;
  readonly port: number;
}

/**
 * One backend: a Service port. Static part: name/service/port and loadBalance
 * (they shape nginx.conf only through the locations that name the backend).
 * Dynamic part: endpoints, applied by Lua without a reload.
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
   * Balancing algorithm; when Ingresses disagree, the oldest Ingress's value wins. STATIC:
   * EWMA needs a Lua log phase in the backend's locations (it learns response times), which
   * round_robin locations do not pay for; Lua also receives it with the endpoints.
   */
  readonly loadBalance: LoadBalance;
}

/** The JSON Lua receives per backend on POST /configuration/backends (an array of these). */
export interface DynamicBackend {
  readonly name: string;
  readonly endpoints: readonly Endpoint[];
  readonly loadBalance: LoadBalance;
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
}

/** The JSON Lua receives on POST /configuration/certificates: the FULL set (private keys included, loopback only). */
export interface DynamicCertificates {
  /** Every certificate by id. */
  readonly certificates: readonly { readonly id: string; readonly cert: string; readonly key: string }[];
  /** host → certificate id. */
  readonly hosts: Readonly<Record<string, string>>;
  /** Certificate id for unknown SNI, or null (NGINX's placeholder certificate). */
  readonly defaultCertificate: string | null;
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

/** Global settings from the ConfigMap (--configmap); each key validated, unknown keys ignored with a failure. */
export interface GlobalSettings {
  /** ssl-protocols: `TLSv1.2 TLSv1.3` by default; each word one of TLSv1, TLSv1.1, TLSv1.2, TLSv1.3. */
  readonly sslProtocols: readonly string[];
  /** ssl-ciphers: an OpenSSL cipher list (letters, digits, `-_:+!@.=`), for TLS ≤ 1.2. */
  readonly sslCiphers: string;
  readonly hsts: HstsSettings;
  /** http-redirect-code: 301, 302, 307 or 308 (default 308). */
  readonly httpRedirectCode: 301 | 302 | 307 | 308;
  readonly accessLog: AccessLogSettings;
  /**
   * What a location gets when its Ingress sets no proxy annotation: the ConfigMap's
   * proxy-body-size and proxy-{connect,read,send}-timeout, else the built-in defaults
   * (protocol is always HTTP: backend-protocol has no ConfigMap key). Rendered once in
   * http {}; a location renders only the values that differ.
   */
  readonly proxyDefaults: ProxySettings;
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
}
