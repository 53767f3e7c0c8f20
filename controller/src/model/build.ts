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

import type { V1Ingress } from '@kubernetes/client-node';
import { BackendRegistry, withEndpoints, type ResolvedBackend } from './backends.ts';
import { balancingOf } from './backend-balancing.ts';
import { indexServices, indexSlices, type ServiceIndex } from './cluster-index.ts';
import { resolveIngressErrorBackend, withGlobalErrorBackend } from './custom-error-backends.ts';
import { EndpointCache } from './endpoints.ts';
import {
  placeGlobalDefaults,
  placeIngressDefaultBackends,
  resolveGlobalDefault,
  type AcceptedIngress,
} from './default-backends.ts';
import { ingressRefOf, makeFailure, quoteValue } from './failure.ts';
import { TranslationCache } from './ingress-translation.ts';
import { deniedPaths, placeDeniedPaths } from './denied-paths.ts';
import { indexIngressClasses, isOurIngress } from './ingress-class.ts';
import { sortIngressesOldestFirst } from './order.ts';
import { readSettings } from './features/parse.ts';
import { DYNAMIC_FEATURES } from './features/registry.ts';
import { placeCanaries, type CanaryIngress } from './canaries.ts';
import { affinityWarnings } from './affinity-warnings.ts';
import { placeBackendLocation } from './placement.ts';
import { resolveTls, type IngressTls } from './tls-hosts.ts';
import { claimClientAuth, markClientAuthServers, resolveClientAuth, type ClientCertClaim } from './client-auth.ts';
import { CATCH_ALL_HOST } from './names.ts';
import { resolveBackendTls, type ResolvedBackendTls } from './backend-tls.ts';
import { resolveFastcgiParams } from './fastcgi-params.ts';
import { withHeaderConfigMaps } from './header-settings-build.ts';
import { resolveAuthProxyHeaders } from './auth-proxy-headers.ts';
import { externalAuthName } from './features/external-auth.ts';
import { resolveCredentials, type ResolvedCredentials } from './credentials.ts';
import { ServerTable } from './server-table.ts';
import { shadowedOnRegexHosts } from './regex-hosts.ts';
import { applyServerAliases, type ServerAliasClaim } from './server-aliases.ts';
import { applyWwwRedirects, twinHosts } from './www-redirects.ts';
import { buildStreamServices, type StreamBuild } from './stream-services.ts';
import { PassthroughClaims, passthroughClientAddress, resolvePassthroughTargets, withPassthroughBackendProtocol, withPassthroughEndpoints, type PassthroughTarget } from './ssl-passthrough.ts';
import type { BuildOptions, BuildResult, Failure, GlobalSettings, RoutePolicy, Server, Snapshot } from './types.ts';

interface BuildState {
  readonly table: ServerTable;
  readonly registry: BackendRegistry;
  readonly failures: Failure[];
  /** Accepted Ingresses with a spec.defaultBackend (the only ones phase 2 uses). */
  readonly accepted: AcceptedIngress[];
  /** Accepted Ingresses with spec.tls entries (the only ones resolveTls uses). */
  readonly tls: IngressTls[];
  /** Accepted canary Ingresses, attached after the main locations are placed. */
  readonly canaries: CanaryIngress[];
  /** The ConfigMap's settings. */
  readonly settings: GlobalSettings;
  /** Per-Ingress translations, possibly from earlier builds. */
  readonly translations: TranslationCache;
  /** The Services, and the annotation prefix: default-backend annotations are resolved per build (custom-error-backends.ts). */
  readonly services: ServiceIndex;
  readonly prefix: string;
  /** Some Ingress's error pages go to --default-backend-service. */
  globalErrorPages: boolean;
  /** Accepted Ingresses asking for client certificates, oldest first (client-auth.ts). */
  readonly clientCerts: ClientCertClaim[];
  /** The snapshot's ConfigMaps (fastcgi-params-configmap). */
  readonly configMaps: Snapshot['configMaps'];
  /** Accepted Ingresses with server-alias, oldest first (server-aliases.ts). */
  readonly serverAliases: ServerAliasClaim[];
  /** Which Ingress decides each host's ssl-passthrough (ssl-passthrough.ts). */
  readonly passthrough: PassthroughClaims;
}

/** Places one Ingress's rule locations (its translation may come from an earlier build) and records it for the later phases. */
function addIngress(ingress: V1Ingress, rank: number, state: BuildState): void {
  const translation = state.translations.translate(ingress);
  state.failures.push(...translation.failures);
  let parsed = translation.features;
  if (parsed === null) {
    placeDeniedPaths(translation, rank, state);
    return;
  }
  let candidates = translation.candidates;
  // fastcgi-params-configmap: the ConfigMap's data, read on every build (a ConfigMap is no part of the Ingress).
  const fastcgi = parsed.policy.fastcgi;
  if (fastcgi !== undefined && fastcgi.paramsConfigMap !== null) {
    const resolved = resolveFastcgiParams(fastcgi, translation.ref, state.configMaps, state.settings.crossNamespace.allow, state.prefix);
    if (!resolved.ok) {
      state.failures.push(resolved.failure);
      placeDeniedPaths(deniedPaths(ingress, translation.ref, state.prefix, state.settings), rank, state);
      return;
    }
    const policy = Object.freeze({ ...parsed.policy, fastcgi: resolved.config });
    parsed = { ...parsed, policy };
    candidates = candidates.map((candidate) => ({ ...candidate, location: { ...candidate.location, policy } }));
  }
  // auth-proxy-set-headers: the ConfigMap's headers, read on every build; unusable → the paths answer 503 (Warning).
  const externalAuth = parsed.policy.externalAuth;
  if (externalAuth !== undefined && externalAuth.proxySetHeadersConfigMap !== null) {
    const resolved = resolveAuthProxyHeaders(externalAuth, translation.ref, state.configMaps, state.settings.crossNamespace.allow, state.prefix, externalAuthName);
    if (resolved.failure !== null) state.failures.push(resolved.failure);
    const policy = Object.freeze({ ...parsed.policy, externalAuth: resolved.config });
    parsed = { ...parsed, policy };
    candidates = candidates.map((candidate) => ({ ...candidate, location: { ...candidate.location, policy } }));
  }
  const canary = parsed.dynamic.canary;
  const affinity = parsed.dynamic.affinity ?? null;
  const serviceUpstream = (parsed.dynamic.serviceUpstream ?? state.settings.serviceUpstream).enabled;
  if (canary?.enabled === true) {
    state.canaries.push({
      ref: translation.ref, rank, canary, candidates: translation.candidates, defaultBackend: translation.defaultBackend, stickyAffinity: affinity?.canaryBehavior !== 'legacy', serviceUpstream,
    });
    // A refused spec.defaultBackend or spec.tls entry is the canary's own error to report; its valid
    // spec.tls is not used (ingress-nginx ignores a canary's TLS too: the main Ingress's serves the host).
    state.failures.push(...translation.lateFailures);
    return;
  }
  const clientCerts = parsed.policy.clientCerts;
  if (clientCerts?.secret != null) {
    // Client certificates bind to a host's TLS server name: the catch-all has none to bind to.
    if (translation.hosts.includes(CATCH_ALL_HOST)) {
      state.failures.push(makeFailure(translation.ref, 'ClientCertNeedsHost', 'spec.rules',
        'auth-tls-secret needs every rule to name a host; the Ingress is not served'));
      placeDeniedPaths(deniedPaths(ingress, translation.ref, state.prefix, state.settings), rank, state);
      return;
    }
    state.clientCerts.push({ ref: translation.ref, hosts: translation.hosts, config: clientCerts });
  }
  for (const host of translation.hosts) state.table.ensure(host);
  state.passthrough.add(translation.ref, translation.hosts, parsed.policy.sslPassthrough?.enabled === true);
  const aliases = parsed.policy.serverAlias?.names ?? [];
  if (aliases.length > 0) state.serverAliases.push({ ref: translation.ref, hosts: translation.hosts, names: aliases });
  const balancing = balancingOf(parsed.dynamic, state.settings);
  state.failures.push(...affinityWarnings(translation.ref, affinity, parsed.policy.rewrite ?? state.settings.rewrite));
  const errors = resolveIngressErrorBackend(translation.ref, parsed, candidates, {
    services: state.services, registry: state.registry, prefix: state.prefix, rank, loadBalance: balancing.loadBalance,
  });
  const features = errors.features;
  state.failures.push(...errors.failures);
  if (errors.usesGlobal) state.globalErrorPages = true;
  for (const candidate of errors.candidates) {
    const failure = placeBackendLocation(state.table, state.registry, {
      ...candidate, ...balancing, affinity, serviceUpstream, rank, serviceField: '.backend.service.name',
    });
    if (failure) state.failures.push(failure);
  }
  state.failures.push(...translation.lateFailures);
  // Kept only where a later phase has work: the default-backend phase skips
  // Ingresses without one, resolveTls those without spec.tls entries. At 10k
  // Ingresses keeping every one was ~4 MB that outlived young-generation
  // collections during the build, only to become old-space garbage.
  const { ref, hosts, defaultBackend, tls } = translation;
  if (defaultBackend !== null) state.accepted.push({ ref, rank, features, hosts, defaultBackend });
  // from-to-www-redirect: the twin's HTTPS side is served by this Ingress's certificate when it names the twin.
  if (tls !== null) state.tls.push(parsed.policy.redirect?.fromToWww === true ? { ...tls, ruleHosts: twinHosts(tls.ruleHosts) } : tls);
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Builds models one after another, reusing what an unchanged Ingress translated to (ingress-translation.ts). */
export interface ModelBuilder {
  /** The same result buildModel() gives for this snapshot and these options. */
  build(snapshot: Snapshot, options: BuildOptions): BuildResult;
}

/**
 * A builder for a long-lived caller (the sync loop). Its cache is keyed by
 * object identity, so it relies on what the informer store guarantees:
 * snapshot objects are never mutated (deep-frozen); a changed object is a
 * new object.
 */
export function createModelBuilder(): ModelBuilder {
  const caches = newCaches();
  return { build: (snapshot, options) => buildWith(caches, snapshot, options) };
}

/** What a builder keeps between builds, each keyed by the (frozen) objects it was made from. */
interface BuildCaches {
  readonly translations: TranslationCache;
  readonly endpoints: EndpointCache;
  /** The last build's routing and what it was made from. */
  routing: { readonly inputs: RoutingInputs; readonly routing: Routing } | null;
  /** The last proxy-ssl resolution and its inputs (by identity): an endpoint sync walks no location for it. */
  backendTls: { readonly servers: unknown; readonly secrets: unknown; readonly allow: boolean; readonly prefix: string; readonly result: ResolvedBackendTls } | null;
  /** The last build's basic/digest users and the routing and Secrets they were read from. */
  credentials?: { readonly routing: Routing; readonly secrets: unknown; readonly result: ResolvedCredentials };
}

function newCaches(): BuildCaches {
  return { translations: new TranslationCache(), endpoints: new EndpointCache(), routing: null, backendTls: null };
}

/** Builds the NGINX model from a snapshot. Pure: no I/O, no clock; never mutates the snapshot. */
export function buildModel(snapshot: Snapshot, options: BuildOptions): BuildResult {
  return buildWith(newCaches(), snapshot, options);
}

/** Everything a build makes from Ingresses, IngressClasses, Services and ConfigMaps: all but endpoints and TLS. */
interface Routing {
  readonly servers: readonly Server[];
  readonly settings: GlobalSettings;
  /** Canary splits, sorted by key. */
  readonly routes: readonly RoutePolicy[];
  /** Sorted by name; their endpoints come from withEndpoints(). */
  readonly backends: readonly ResolvedBackend[];
  /** Accepted Ingresses with spec.tls entries, for resolveTls. */
  readonly tls: readonly IngressTls[];
  /** The Ingress deciding each host's client certificates, for resolveClientAuth. */
  readonly clientAuth: ReturnType<typeof claimClientAuth>['winners'];
  /** ssl-passthrough hosts and their backends, sorted by hostname; endpoints come from withPassthroughEndpoints(). */
  readonly passthrough: readonly PassthroughTarget[];
  readonly failures: readonly Failure[];
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

function buildRouting(translations: TranslationCache, snapshot: Snapshot, options: BuildOptions): Routing {
  const services = indexServices(snapshot);
  const classes = indexIngressClasses(snapshot?.ingressClasses ?? [], options);
  const read = readSettings(snapshot?.configMaps ?? [], options.configMap);
  // proxy-set-headers / add-headers: the data of the ConfigMaps they name, read on every build.
  const config = withHeaderConfigMaps(read, snapshot?.configMaps ?? []);
  // A ConfigMap asking for a protection we do not give serves nothing (fail closed; its failure says why).
  // Ingresses NGINX refused (options.exclude) keep only the 503 paths of a protection they asked for.
  const exclude = options.exclude;
  const ours = config.closed ? [] : sortIngressesOldestFirst((snapshot?.ingresses ?? [])
    .filter((ingress) => isOurIngress(ingress, classes, options)));
  translations.useContext(options.annotationsPrefix, config.settings);
  const state: BuildState = {
    table: new ServerTable(), registry: new BackendRegistry(), failures: [...config.failures], accepted: [], tls: [],
    canaries: [], settings: config.settings, translations, services, prefix: options.annotationsPrefix, globalErrorPages: false,
    clientCerts: [],
    configMaps: snapshot?.configMaps ?? [],
    serverAliases: [],
    passthrough: new PassthroughClaims(options.enableSslPassthrough === true),
  };

  ours.forEach((ingress, rank) => {
    try {
      if (exclude?.has(ingress) === true) placeDeniedPaths(deniedPaths(ingress, ingressRefOf(ingress), state.prefix, state.settings), rank, state);
      else addIngress(ingress, rank, state);
    } catch (error) {
      // A builder bug on strange data must cost one Ingress, not every route in the cluster.
      state.failures.push(makeFailure(ingressRefOf(ingress), 'InternalError', 'metadata',
        `the builder could not process this Ingress: ${quoteValue(describeError(error))}`));
    }
  });

  state.failures.push(...placeIngressDefaultBackends(state.accepted, state.table, state.registry, state.settings));
  const global = resolveGlobalDefault(options, services);
  state.failures.push(...global.failures);
  state.failures.push(...placeGlobalDefaults(state.table, state.registry, global, state.settings));
  const errorPages = withGlobalErrorBackend(config.settings, global, state.globalErrorPages, state.registry);
  state.failures.push(...errorPages.failures);
  const canaries = placeCanaries(state.canaries, state.table, state.registry);
  state.failures.push(...canaries.failures);

  const resolved = state.registry.resolve(services);
  state.failures.push(...resolved.failures);
  const clientAuth = claimClientAuth(state.clientCerts);
  state.failures.push(...clientAuth.failures);
  const aliased = applyServerAliases(state.table.toServers(), canaries.routes, state.serverAliases);
  state.failures.push(...aliased.failures);
  const redirecting = applyWwwRedirects(aliased.servers);
  state.failures.push(...redirecting.failures);
  const servers = markClientAuthServers(redirecting.servers, clientAuth.winners);
  state.failures.push(...shadowedOnRegexHosts(servers, state.settings));
  const passthrough = resolvePassthroughTargets(state.passthrough, servers, new Map(resolved.backends.map(({ current }) => [current.name, current])));
  state.failures.push(...passthrough.failures);
  const clientAddress = passthroughClientAddress(errorPages.settings, options.enableSslPassthrough === true, options.configMap);
  state.failures.push(...clientAddress.failures);
  return {
    clientAuth: clientAuth.winners, passthrough: passthrough.targets,
    // Plain HTTP to a passthrough backend's TLS port speaks TLS too (ssl-passthrough.ts).
    servers: withPassthroughBackendProtocol(servers, passthrough.targets, state.settings), settings: staticSettings(clientAddress.settings), routes: aliased.routes, backends: resolved.backends, tls: state.tls, failures: state.failures,
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
 * The routing comes from the last build when its inputs are the same objects:
 * an endpoint change (most syncs) then costs indexing the slices and
 * re-reading the endpoints of each backend, not a walk over every Ingress
 * (at 5,000 Ingresses 22 ms per sync before, 2.6 ms after:
 * bench/tools/endpoint-change-cost.ts).
 */
function buildWith(caches: BuildCaches, snapshot: Snapshot, options: BuildOptions): BuildResult {
  const inputs = routingInputs(snapshot, options);
  const last = caches.routing;
  const routing = last !== null && sameRoutingInputs(last.inputs, inputs) ? last.routing : buildRouting(caches.translations, snapshot, options);
  caches.routing = { inputs, routing };
  const slices = indexSlices(snapshot);
  const backends = withEndpoints(routing.backends, slices, caches.endpoints);
  const streams = streamsOf(snapshot, options, slices);
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
