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

import { BackendRegistry, withEndpoints, type ResolvedBackend } from './backends.ts';
import { indexServices, indexSlices } from './cluster-index.ts';
import { withGlobalErrorBackend } from './custom-error-backends.ts';
import { EndpointCache } from './endpoints.ts';
import {
  placeGlobalDefaults,
  placeIngressDefaultBackends,
  resolveGlobalDefault,
} from './default-backends.ts';
import { ingressRefOf, makeFailure, quoteValue } from './failure.ts';
import { TranslationCache } from './ingress-translation.ts';
import { indexIngressClasses, isOurIngress } from './ingress-class.ts';
import { sortIngressesOldestFirst } from './order.ts';
import { readSettings } from './features/parse.ts';
import { DYNAMIC_FEATURES } from './features/registry.ts';
import { placeCanaries } from './canaries.ts';
import { resolveTls } from './tls-hosts.ts';
import { claimClientAuth, markClientAuthServers, resolveClientAuth } from './client-auth.ts';
import { resolveBackendTls, type ResolvedBackendTls } from './backend-tls.ts';
import { withHeaderConfigMaps } from './header-settings-build.ts';
import { resolveCredentials, type ResolvedCredentials } from './credentials.ts';
import { ServerTable } from './server-table.ts';
import { addIngress, type BuildState, type Routing } from './routing-state.ts';
import { deltaRouting, hasTies } from './routing-delta.ts';
import { reachesAcross } from './routing-reach.ts';
import { indexIngress, type RoutingRecord } from './routing-record.ts';
import { shadowedOnRegexHosts } from './regex-hosts.ts';
import { applyServerAliases } from './server-aliases.ts';
import { applyWwwRedirects } from './www-redirects.ts';
import { buildStreamServices, type StreamBuild } from './stream-services.ts';
import { PassthroughClaims, passthroughClientAddress, resolvePassthroughTargets, withPassthroughBackendProtocol, withPassthroughEndpoints } from './ssl-passthrough.ts';
import type { V1Ingress } from '@kubernetes/client-node';
import type { IngressTls } from './tls-hosts.ts';
import type { BuildOptions, BuildResult, Failure, GlobalSettings, Snapshot } from './types.ts';

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Builds models one after another, reusing what an unchanged Ingress translated to (ingress-translation.ts). */
export interface ModelBuilder {
  /** The same result buildModel() gives for this snapshot and these options. */
  build(snapshot: Snapshot, options: BuildOptions): BuildResult;
  /** How the last build got its routing: the last one's, updated for the changed Ingresses, or built in full. */
  lastRouting(): RoutingSource;
}

export type RoutingSource = 'reused' | 'incremental' | 'full';

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
interface BuildCaches {
  readonly translations: TranslationCache;
  readonly endpoints: EndpointCache;
  /** The last build's routing and what it was made from. */
  routing: { readonly inputs: RoutingInputs; readonly routing: Routing } | null;
  /** A long-lived builder keeps what the next build needs to update the routing in place of a full build (routing-delta.ts). */
  readonly incremental: boolean;
  /** What the last routing build left for that, or null. */
  record: RoutingRecord | null;
  /** How the last build got its routing. */
  source: RoutingSource;
  /** The last build's slice index (slicesOf). */
  slices?: SlicesSeen;
  /** The last proxy-ssl resolution and its inputs (by identity): an endpoint sync walks no location for it. */
  backendTls: { readonly servers: unknown; readonly secrets: unknown; readonly allow: boolean; readonly prefix: string; readonly result: ResolvedBackendTls } | null;
  /** The last build's basic/digest users and the routing and Secrets they were read from. */
  credentials?: { readonly routing: Routing; readonly secrets: unknown; readonly result: ResolvedCredentials };
}

function newCaches(incremental: boolean): BuildCaches {
  return { translations: new TranslationCache(), endpoints: new EndpointCache(), routing: null, incremental, record: null, source: 'full', backendTls: null };
}

/** Builds the NGINX model from a snapshot. Pure: no I/O, no clock; never mutates the snapshot. */
export function buildModel(snapshot: Snapshot, options: BuildOptions): BuildResult {
  return buildWith(newCaches(false), snapshot, options);
}

/** What a Routing depends on: compared by identity (the store hands on unchanged kinds' frozen arrays), options by value. */
interface RoutingInputs {
  readonly ingresses: unknown;
  readonly ingressClasses: unknown;
  readonly services: unknown;
  readonly configMaps: unknown;
  readonly options: BuildOptions;
}

function routingInputs(snapshot: Snapshot, options: BuildOptions): RoutingInputs {
  return { ingresses: snapshot?.ingresses, ingressClasses: snapshot?.ingressClasses, services: snapshot?.services, configMaps: snapshot?.configMaps, options };
}

/** Same inputs: every snapshot field a Routing reads is the same object, and the options agree on all but the clock (TLS only). */
function sameRoutingInputs(a: RoutingInputs, b: RoutingInputs): boolean {
  if (a.ingresses !== b.ingresses || a.ingressClasses !== b.ingressClasses || a.services !== b.services || a.configMaps !== b.configMaps) return false;
  const optionsA = a.options as unknown as Record<string, unknown>;
  const optionsB = b.options as unknown as Record<string, unknown>;
  const keys = new Set([...Object.keys(optionsA), ...Object.keys(optionsB)]);
  keys.delete('now');
  for (const key of keys) if (optionsA[key] !== optionsB[key]) return false;
  return true;
}

/** A routing, and what the next build needs to update it incrementally (null unless asked for). */
interface BuiltRouting {
  readonly routing: Routing;
  readonly record: RoutingRecord | null;
}

function buildRouting(translations: TranslationCache, snapshot: Snapshot, options: BuildOptions, keep: boolean): BuiltRouting {
  const services = indexServices(snapshot);
  const classes = indexIngressClasses(snapshot?.ingressClasses ?? [], options);
  const read = readSettings(snapshot?.configMaps ?? [], options.configMap);
  // proxy-set-headers / add-headers: the data of the ConfigMaps they name, read on every build.
  const config = withHeaderConfigMaps(read, snapshot?.configMaps ?? []);
  // A ConfigMap asking for a protection we do not give serves nothing (fail closed; its failure says why).
  const exclude = options.exclude;
  const ours = config.closed ? [] : sortIngressesOldestFirst((snapshot?.ingresses ?? [])
    .filter((ingress) => isOurIngress(ingress, classes, options) && exclude?.has(ingress) !== true));
  translations.useContext(options.annotationsPrefix, config.settings);
  const state: BuildState = {
    table: new ServerTable(), registry: new BackendRegistry(), failures: [...config.failures], accepted: [], tls: [],
    canaries: [], settings: config.settings, translations, services, prefix: options.annotationsPrefix, globalErrorPages: false,
    clientCerts: [],
    configMaps: snapshot?.configMaps ?? [],
    serverAliases: [],
    passthrough: new PassthroughClaims(options.enableSslPassthrough === true),
  };
  // What a later delta (routing-delta.ts) needs: per-Ingress failures and TLS, the name indices.
  const kept = keep ? { byIngress: new Map<V1Ingress, readonly Failure[]>(), tlsByIngress: new Map<V1Ingress, IngressTls>(), hosts: new Map(), backends: new Map() } : null;
  let blocked = config.closed || (keep && hasTies(ours));
  const head = state.failures.length;

  ours.forEach((ingress, rank) => {
    const before = state.failures.length;
    const tlsBefore = state.tls.length;
    try {
      const translation = addIngress(ingress, rank, state);
      if (kept !== null) {
        indexIngress(kept, ingress, translation);
        if (reachesAcross(translation)) blocked = true;
      }
    } catch (error) {
      // A builder bug on strange data must cost one Ingress, not every route in the cluster.
      state.failures.push(makeFailure(ingressRefOf(ingress), 'InternalError', 'metadata',
        `the builder could not process this Ingress: ${quoteValue(describeError(error))}`));
      blocked = true;
    }
    if (kept === null) return;
    if (state.failures.length > before) kept.byIngress.set(ingress, state.failures.slice(before));
    const tls = state.tls[tlsBefore];
    if (tls !== undefined) kept.tlsByIngress.set(ingress, tls);
  });

  const middle = state.failures.length;
  state.failures.push(...placeIngressDefaultBackends(state.accepted, state.table, state.registry, state.settings));
  const global = resolveGlobalDefault(options, services);
  state.failures.push(...global.failures);
  state.failures.push(...placeGlobalDefaults(state.table, state.registry, global, state.settings));
  const errorPages = withGlobalErrorBackend(config.settings, global, state.globalErrorPages, state.registry);
  state.failures.push(...errorPages.failures);
  const canaries = placeCanaries(state.canaries, state.table, state.registry);
  state.failures.push(...canaries.failures);

  const middleEnd = state.failures.length;
  const byBackend = kept === null ? undefined : new Map<string, readonly Failure[]>();
  const resolved = state.registry.resolve(services, byBackend);
  state.failures.push(...resolved.failures);
  const afterBackends = state.failures.length;
  const clientAuth = claimClientAuth(state.clientCerts);
  state.failures.push(...clientAuth.failures);
  const aliased = applyServerAliases(state.table.toServers(), canaries.routes, state.serverAliases);
  state.failures.push(...aliased.failures);
  const redirecting = applyWwwRedirects(aliased.servers);
  state.failures.push(...redirecting.failures);
  const servers = markClientAuthServers(redirecting.servers, clientAuth.winners);
  const afterBackendsEnd = state.failures.length;
  const byServer = new Map<string, readonly Failure[]>();
  if (kept === null) state.failures.push(...shadowedOnRegexHosts(servers, state.settings));
  else {
    // The same warnings, kept per server (a delta replaces those of the hosts it places).
    for (const server of servers) {
      const shadowed = shadowedOnRegexHosts([server], state.settings);
      if (shadowed.length > 0) byServer.set(server.hostname, shadowed);
      state.failures.push(...shadowed);
    }
  }
  const tail = state.failures.length;
  const passthrough = resolvePassthroughTargets(state.passthrough, servers, new Map(resolved.backends.map(({ current }) => [current.name, current])));
  state.failures.push(...passthrough.failures);
  const clientAddress = passthroughClientAddress(errorPages.settings, options.enableSslPassthrough === true, options.configMap);
  state.failures.push(...clientAddress.failures);
  const routing: Routing = {
    clientAuth: clientAuth.winners, passthrough: passthrough.targets,
    // Plain HTTP to a passthrough backend's TLS port speaks TLS too (ssl-passthrough.ts).
    servers: withPassthroughBackendProtocol(servers, passthrough.targets, state.settings), settings: staticSettings(clientAddress.settings), routes: aliased.routes, backends: resolved.backends, tls: state.tls, failures: state.failures,
  };
  if (kept === null || byBackend === undefined) return { routing, record: null };
  const failures = state.failures;
  blocked ||= failures.some((failure) => failure.reason === 'BackendNameConflict');
  return {
    routing,
    record: {
      blocked, classes, services, global, settings: config.settings, passthroughEnabled: options.enableSslPassthrough === true,
      ours, ourSet: new Set(ours), hosts: kept.hosts, backends: kept.backends, inheritSources: state.registry.inheritSources(),
      head: failures.slice(0, head), byIngress: kept.byIngress, middle: failures.slice(middle, middleEnd), byBackend,
      afterBackends: failures.slice(afterBackends, afterBackendsEnd), byServer, tail: failures.slice(tail), tlsByIngress: kept.tlsByIngress,
    },
  };
}

/**
 * The settings as Model.settings holds them: a dynamic feature's global value (the ConfigMap's
 * service-upstream) is applied above, to endpoints or routes, and left at its default here, so
 * changing it in the ConfigMap is a push to Lua, not a reload (Model.settings is static).
 */
function staticSettings(settings: GlobalSettings): GlobalSettings {
  if (DYNAMIC_FEATURES.every((feature) => settings[feature.name] === feature.defaults)) return settings;
  const blanked: Record<string, unknown> = { ...settings };
  for (const feature of DYNAMIC_FEATURES) blanked[feature.name] = feature.defaults;
  return Object.freeze(blanked) as unknown as GlobalSettings;
}

/**
 * The last build's routing when its inputs are the same objects; when only the Ingresses changed,
 * that routing updated for the Ingresses the change reaches (routing-delta.ts); else a full build.
 */
function routingOf(caches: BuildCaches, inputs: RoutingInputs, snapshot: Snapshot, options: BuildOptions): Routing {
  const last = caches.routing;
  if (last !== null && sameRoutingInputs(last.inputs, inputs)) {
    caches.source = 'reused';
    return last.routing;
  }
  const record = caches.record;
  const delta = last !== null && record !== null && sameRoutingInputs(last.inputs, { ...inputs, ingresses: last.inputs.ingresses })
    ? deltaRouting(record, last.routing, caches.translations, snapshot, options)
    : null;
  if (delta !== null) {
    caches.source = 'incremental';
    caches.routing = { inputs, routing: delta };
    return delta;
  }
  caches.source = 'full';
  const built = buildRouting(caches.translations, snapshot, options, caches.incremental);
  caches.routing = { inputs, routing: built.routing };
  caches.record = built.record;
  return built.routing;
}

/**
 * The routing comes from the last build when its inputs are the same objects:
 * an endpoint change (most syncs) then costs indexing the slices and
 * re-reading the endpoints of each backend, not a walk over every Ingress
 * (at 5,000 Ingresses 22 ms per sync before, 2.6 ms after:
 * bench/tools/endpoint-change-cost.ts).
 */
function buildWith(caches: BuildCaches, snapshot: Snapshot, options: BuildOptions): BuildResult {
  const inputs = routingInputs(snapshot, options);
  const routing = routingOf(caches, inputs, snapshot, options);
  const slices = slicesOf(caches, snapshot);
  const backends = withEndpoints(routing.backends, slices.index, caches.endpoints, slices.done);
  const streams = streamsOf(snapshot, options, slices.index);
  const passthrough = withPassthroughEndpoints(routing.passthrough, backends);
  const tls = resolveTls(routing.tls, snapshot?.secrets ?? [], options);
  const clientAuth = resolveClientAuth(routing.clientAuth, snapshot?.secrets ?? []);
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
  return {
    model: {
      servers: routing.servers, backends, tls: tlsState, settings: routing.settings, routes: routing.routes,
      ...(backendTls.secrets.length > 0 ? { backendTls: backendTls.secrets } : {}),
      // Only a model with users carries the field: every other model stays as it was.
      ...(credentials.sets.length > 0 ? { credentials: credentials.sets } : {}),
      ...(streams.services.length > 0 ? { streams: streams.services } : {}),
      ...(passthrough.length > 0 ? { sslPassthrough: passthrough } : {}),
    },
    failures: [...routing.failures, ...tls.failures, ...clientAuth.failures, ...backendTls.failures, ...credentials.failures, ...streams.failures],
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
