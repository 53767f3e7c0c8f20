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
import type { PassthroughHost } from './ssl-passthrough-types.ts';

export type { DynamicPassthroughPeers, DynamicStream, DynamicStreamListener, ReservedPort, StreamProtocol, StreamProxyProtocol, StreamProxySettings, StreamService } from './l4-types.ts';
export type { PassthroughHost, SslPassthroughConfig } from './ssl-passthrough-types.ts';
import type { FeatureConfigs, GlobalSettings } from './feature-types.ts';
import type { BackendAffinity, BackendHash } from './traffic-types.ts';
import type { BackendTlsSecret, CredentialSet, TlsState } from './secret-types.ts';

// Each feature's config: FeatureConfigs (feature-types.ts) and the types of its fields, by family.
export type * from './feature-types.ts';
export type * from './access-types.ts';
export type * from './traffic-types.ts';
export type * from './edge-types.ts';
export type * from './secret-types.ts';

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
  /** --ingress-class-by-name: the IngressClass named --ingress-class is ours whatever its spec.controller (absent = false). */
  readonly ingressClassByName?: boolean;
  /** --disable-catch-all: Ingresses with a spec.defaultBackend are not ours, as if absent (absent = false). */
  readonly disableCatchAll?: boolean;
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
  /** --enable-ssl-passthrough: the ssl-passthrough annotation takes effect (model/ssl-passthrough.ts); absent = false. */
  readonly enableSslPassthrough?: boolean;
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
   * sorted by protocol (TCP first) then port; absent = none. Listeners are STATIC (rendered into
   * the stream {} context: a new port or PROXY flag reloads); their endpoints are DYNAMIC (fed to njs).
   */
  readonly streams?: readonly StreamService[];
  /**
   * --enable-ssl-passthrough: the hosts whose TLS connections go undecrypted to their backend
   * (ssl-passthrough-types.ts), sorted by hostname; absent = none (or the flag is off). As
   * streams: the hosts are STATIC, their endpoints DYNAMIC (fed to njs with the streams').
   */
  readonly sslPassthrough?: readonly PassthroughHost[];
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
  | 'snippets' | 'redirect' | 'serverAlias' | 'sslPassthrough';

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
