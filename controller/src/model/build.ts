// buildModel: the whole cluster state → the NGINX model, as a pure function.
// Phases, each deterministic:
// 1. pick our Ingresses (ingress-class.ts), sort them oldest first (order.ts);
//    per Ingress: names, annotations (a bad one skips the Ingress), rules
//    (ingress-translation.ts; createModelBuilder reuses them while the
//    Ingress object is unchanged) → locations placed oldest-wins. Each
//    Ingress is wrapped so that one that breaks the builder becomes a
//    failure, not a crash;
// 2. spec.defaultBackend locations; 3. the global default on every server
//    still without `/`; 4. resolve the claimed backends against their
//    Services; 5. their endpoints from the EndpointSlices (a builder reuses
//    phases 1–4 while their inputs are the same objects: buildWith);
// 6. spec.tls → certificates (tls-hosts.ts). The ConfigMap (features/parse.ts)
//    gives every feature its global config, which annotations override.
// Canary Ingresses place nothing of their own: after phase 3 each attaches
// to its main locations (canaries.ts) as a dynamic route policy.
// Phases 1–4 and what depends on them only are the routing
// (routing-build.ts), which a builder reuses or updates for the changed
// Ingresses (routing-source.ts); this file adds the rest (endpoints, TLS,
// proxy-ssl Secrets, credentials, streams) to it.

import { withEndpoints, type ResolvedBackend } from './backends.ts';
import { indexServices, indexSlices } from './cluster-index.ts';
import { EndpointCache } from './endpoints.ts';
import { TranslationCache } from './ingress-translation.ts';
import { resolveTls } from './tls-hosts.ts';
import { resolveClientAuth } from './client-auth.ts';
import { resolveBackendTls, type ResolvedBackendTls } from './backend-tls.ts';
import { resolveCredentials, type ResolvedCredentials } from './credentials.ts';
import { withDhParams } from './dh-params.ts';
import { routingOf, type RoutingCache, type RoutingSource } from './routing-source.ts';
import type { Routing } from './routing-state.ts';
import { buildStreamServices, type StreamBuild } from './stream-services.ts';
import { withPassthroughEndpoints } from './ssl-passthrough.ts';
import type { BuildOptions, BuildResult, GlobalSettings, Snapshot } from './types.ts';

export type { RoutingSource } from './routing-source.ts';

/** Builds models one after another, reusing what an unchanged Ingress translated to (ingress-translation.ts). */
export interface ModelBuilder {
  /** The same result buildModel() gives for this snapshot and these options. */
  build(snapshot: Snapshot, options: BuildOptions): BuildResult;
  /** How the last build got its routing: the last one's, updated for the changed Ingresses, or built in full. */
  lastRouting(): RoutingSource;
}

/**
 * A builder for a long-lived caller (the sync loop). Its cache is keyed by
 * object identity, so it relies on what the informer store guarantees:
 * snapshot objects are never mutated (deep-frozen); a changed object is a
 * new object.
 */
export function createModelBuilder(): ModelBuilder {
  const caches = newCaches(true);
  return { build: (snapshot, options) => buildWith(caches, snapshot, options), lastRouting: () => caches.source };
}

/** An index of one EndpointSlices array, and the resolved backends given their endpoints from it. */
interface SlicesSeen {
  readonly source: unknown;
  readonly index: ReturnType<typeof indexSlices>;
  readonly done: WeakSet<ResolvedBackend>;
}

/** What a builder keeps between builds, each keyed by the (frozen) objects it was made from. */
interface BuildCaches extends RoutingCache {
  readonly endpoints: EndpointCache;
  /** The last build's slice index (slicesOf). */
  slices?: SlicesSeen;
  /** The last proxy-ssl resolution and its inputs (by identity): an endpoint sync walks no location for it. */
  backendTls: { readonly servers: unknown; readonly secrets: unknown; readonly allow: boolean; readonly prefix: string; readonly result: ResolvedBackendTls } | null;
  /** The last build's basic/digest users and the routing and Secrets they were read from. */
  credentials?: { readonly routing: Routing; readonly secrets: unknown; readonly result: ResolvedCredentials };
  /** The last ssl-dh-param resolution and the settings and Secrets it was read from. */
  dhParams?: { readonly settings: GlobalSettings; readonly secrets: unknown; readonly result: ReturnType<typeof withDhParams> };
}

function newCaches(incremental: boolean): BuildCaches {
  return { translations: new TranslationCache(), endpoints: new EndpointCache(), routing: null, incremental, record: null, source: 'full', backendTls: null };
}

/** Builds the NGINX model from a snapshot. Pure: no I/O, no clock; never mutates the snapshot. */
export function buildModel(snapshot: Snapshot, options: BuildOptions): BuildResult {
  return buildWith(newCaches(false), snapshot, options);
}

/**
 * The routing comes from the last build when its inputs are the same objects:
 * an endpoint change (most syncs) then costs indexing the slices and
 * re-reading the endpoints of each backend, not a walk over every Ingress
 * (at 5,000 Ingresses 22 ms per sync before, 2.6 ms after:
 * bench/tools/endpoint-change-cost.ts).
 */
function buildWith(caches: BuildCaches, snapshot: Snapshot, options: BuildOptions): BuildResult {
  const routing = routingOf(caches, snapshot, options);
  const slices = slicesOf(caches, snapshot);
  const backends = withEndpoints(routing.backends, slices.index, caches.endpoints, slices.done);
  const streams = streamsOf(snapshot, options, slices.index);
  const passthrough = withPassthroughEndpoints(routing.passthrough, backends);
  const tls = resolveTls(routing.tls, snapshot?.secrets ?? [], options);
  const clientAuth = resolveClientAuth(routing.clientAuth, snapshot?.secrets ?? [], routing.settings.crossNamespace.allow);
  const tlsState = clientAuth.state === undefined ? tls.state : { ...tls.state, clientAuth: clientAuth.state };
  // proxy-ssl-secret: read whenever the routing or the Secrets changed, like spec.tls (absent from the model when no location uses one).
  const secrets = snapshot?.secrets ?? [];
  const allow = routing.settings.crossNamespace.allow;
  const held = caches.backendTls;
  const backendTls = held !== null && held.servers === routing.servers && held.secrets === secrets && held.allow === allow && held.prefix === options.annotationsPrefix
    ? held.result
    : resolveBackendTls(routing.servers, secrets, options.annotationsPrefix, allow);
  caches.backendTls = { servers: routing.servers, secrets, allow, prefix: options.annotationsPrefix, result: backendTls };
  const credentials = credentialsOf(caches, routing, snapshot, options);
  // ssl-dh-param: the Secret's parameters, read again only when the settings or the Secrets changed.
  const heldDh = caches.dhParams;
  const dhParams = heldDh !== undefined && heldDh.settings === routing.settings && heldDh.secrets === secrets
    ? heldDh.result : withDhParams(routing.settings, secrets, options.configMap ?? '');
  caches.dhParams = { settings: routing.settings, secrets, result: dhParams };
  return {
    model: {
      servers: routing.servers, backends, tls: tlsState, settings: dhParams.settings, routes: routing.routes,
      ...(backendTls.secrets.length > 0 ? { backendTls: backendTls.secrets } : {}),
      // Only a model with users carries the field: every other model stays as it was.
      ...(credentials.sets.length > 0 ? { credentials: credentials.sets } : {}),
      ...(streams.services.length > 0 ? { streams: streams.services } : {}),
      ...(passthrough.length > 0 ? { sslPassthrough: passthrough } : {}),
    },
    failures: [...routing.failures, ...tls.failures, ...clientAuth.failures, ...backendTls.failures, ...credentials.failures, ...streams.failures, ...dhParams.failures],
  };
}

/**
 * The EndpointSlices by Service, indexed again only when the slices changed (a route change at
 * 50,000 Ingresses spent a fifth of its time indexing the same slices and looking up every
 * backend's), with the backends already given their endpoints from them.
 */
function slicesOf(caches: BuildCaches, snapshot: Snapshot): SlicesSeen {
  const source = snapshot?.endpointSlices;
  if (caches.slices?.source !== source || source === undefined) caches.slices = { source, index: indexSlices(snapshot), done: new WeakSet() };
  return caches.slices;
}

/** Model.streams: read on every build (their endpoints are static: a change reloads), only when a flag names a ConfigMap. */
function streamsOf(snapshot: Snapshot, options: BuildOptions, slices: ReturnType<typeof indexSlices>): StreamBuild {
  if (!options.tcpServicesConfigMap && !options.udpServicesConfigMap) return { services: [], failures: [] };
  const sources = { tcpConfigMap: options.tcpServicesConfigMap, udpConfigMap: options.udpServicesConfigMap, reservedPorts: options.reservedPorts };
  return buildStreamServices(sources, snapshot?.configMaps ?? [], { services: indexServices(snapshot), slices });
}

/** Model.credentials, read again only when the routing or the Secrets changed. */
function credentialsOf(caches: BuildCaches, routing: Routing, snapshot: Snapshot, options: BuildOptions): ResolvedCredentials {
  const secrets = snapshot?.secrets ?? [];
  const last = caches.credentials;
  if (last !== undefined && last.routing === routing && last.secrets === secrets) return last.result;
  const result = resolveCredentials(routing.servers, secrets, routing.settings.crossNamespace.allow, options.annotationsPrefix);
  caches.credentials = { routing, secrets, result };
  return result;
}
