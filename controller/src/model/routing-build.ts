// The full routing build (build.ts phases 1–4 and what depends on them only:
// canaries, client certificates, server aliases, www redirects, regex
// shadowing, ssl-passthrough targets): every Ingress placed from its
// translation. For a long-lived builder it also keeps the RoutingRecord a
// later incremental build starts from (routing-delta.ts).

import type { V1Ingress } from '@kubernetes/client-node';
import { BackendRegistry } from './backends.ts';
import { placeCanaries } from './canaries.ts';
import { claimClientAuth, markClientAuthServers } from './client-auth.ts';
import { indexServices } from './cluster-index.ts';
import { withGlobalErrorBackend } from './custom-error-backends.ts';
import { placeGlobalDefaults, placeIngressDefaultBackends, resolveGlobalDefault } from './default-backends.ts';
import { asksForProtection, deniedPaths, placeDeniedPaths } from './denied-paths.ts';
import { ingressRefOf, makeFailure, quoteValue } from './failure.ts';
import { readSettings } from './features/parse.ts';
import { DYNAMIC_FEATURES } from './features/registry.ts';
import { withHeaderConfigMaps } from './header-settings-build.ts';
import { indexIngressClasses, isOurIngress } from './ingress-class.ts';
import type { TranslationCache } from './ingress-translation.ts';
import { sortIngressesOldestFirst } from './order.ts';
import { shadowedOnRegexHosts } from './regex-hosts.ts';
import { hasTies } from './routing-delta.ts';
import { reachesAcross } from './routing-reach.ts';
import { indexIngress, type RoutingRecord } from './routing-record.ts';
import { addIngress, type BuildState, type Routing } from './routing-state.ts';
import { applyServerAliases } from './server-aliases.ts';
import { ServerTable } from './server-table.ts';
import { LookedUpServices } from './service-lookups.ts';
import { PassthroughClaims, passthroughClientAddress, resolvePassthroughTargets, withPassthroughBackendProtocol } from './ssl-passthrough.ts';
import type { IngressTls } from './tls-hosts.ts';
import type { BuildOptions, Failure, GlobalSettings, Snapshot } from './types.ts';
import { applyWwwRedirects } from './www-redirects.ts';

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A routing, and what the next build needs to update it incrementally (null unless asked for). */
export interface BuiltRouting {
  readonly routing: Routing;
  readonly record: RoutingRecord | null;
}

/** Builds the routing of `snapshot` from every Ingress; `keep`: also the record a delta starts from. */
export function buildRouting(translations: TranslationCache, snapshot: Snapshot, options: BuildOptions, keep: boolean): BuiltRouting {
  // A record remembers the Services looked up: a later change to none of them keeps this routing (routing-source.ts).
  const index = indexServices(snapshot);
  const looked = keep ? new LookedUpServices(index) : null;
  const services = looked ?? index;
  const classes = indexIngressClasses(snapshot?.ingressClasses ?? [], options);
  const read = readSettings(snapshot?.configMaps ?? [], options.configMap);
  // proxy-set-headers / add-headers: the data of the ConfigMaps they name, read on every build.
  const config = withHeaderConfigMaps(read, snapshot?.configMaps ?? []);
  // A ConfigMap asking for a protection we do not give serves nothing (fail closed; its failure says why).
  // Ingresses NGINX refused (options.exclude) are left out, but for the 503 paths of a protection they asked for.
  const exclude = options.exclude;
  const ours = config.closed ? [] : sortIngressesOldestFirst((snapshot?.ingresses ?? [])
    .filter((ingress) => isOurIngress(ingress, classes, options)
      && (exclude?.has(ingress) !== true || asksForProtection(ingress.metadata?.annotations, `${options.annotationsPrefix}/`))));
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
      if (exclude?.has(ingress) === true) {
        // NGINX refused it: nothing of it but the 503 paths of the protection it asked for; no delta replays that.
        placeDeniedPaths(deniedPaths(ingress, ingressRefOf(ingress), state.prefix, state.settings), rank, state);
        blocked = true;
      } else {
        const translation = addIngress(ingress, rank, state);
        if (kept !== null) {
          indexIngress(kept, ingress, translation);
          if (reachesAcross(translation)) blocked = true;
        }
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
  if (kept === null || byBackend === undefined || looked === null) return { routing, record: null };
  const failures = state.failures;
  blocked ||= failures.some((failure) => failure.reason === 'BackendNameConflict');
  return {
    routing,
    record: {
      blocked, classes, services: looked, global, settings: config.settings, passthroughEnabled: options.enableSslPassthrough === true,
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
