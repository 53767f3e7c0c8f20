// One build's routing state and the placement of one Ingress into it (phase 1
// of build.ts), shared by the full routing build (build.ts) and the
// incremental one (routing-delta.ts), which replays the same placement over
// the few Ingresses a change touches.

import type { V1Ingress } from '@kubernetes/client-node';
import type { BackendRegistry, ResolvedBackend } from './backends.ts';
import { balancingOf } from './backend-balancing.ts';
import type { ServiceIndex } from './cluster-index.ts';
import { resolveIngressErrorBackend } from './custom-error-backends.ts';
import { deniedPaths, placeDeniedPaths } from './denied-paths.ts';
import type { AcceptedIngress } from './default-backends.ts';
import { makeFailure } from './failure.ts';
import type { IngressTranslation, TranslationCache } from './ingress-translation.ts';
import type { CanaryIngress } from './canaries.ts';
import { affinityWarnings } from './affinity-warnings.ts';
import { placeBackendLocation } from './placement.ts';
import type { IngressTls } from './tls-hosts.ts';
import type { claimClientAuth, ClientCertClaim } from './client-auth.ts';
import { CATCH_ALL_HOST } from './names.ts';
import { resolveFastcgiParams } from './fastcgi-params.ts';
import { resolveAuthProxyHeaders } from './auth-proxy-headers.ts';
import { externalAuthName } from './features/external-auth.ts';
import type { ServerTable } from './server-table.ts';
import type { ServerAliasClaim } from './server-aliases.ts';
import { twinHosts } from './www-redirects.ts';
import type { PassthroughClaims, PassthroughTarget } from './ssl-passthrough.ts';
import type { Failure, GlobalSettings, RoutePolicy, Server, Snapshot } from './types.ts';

/** Everything a build makes from Ingresses, IngressClasses, Services and ConfigMaps: all but endpoints and TLS. */
export interface Routing {
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

export interface BuildState {
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

/**
 * Places one Ingress's rule locations (its translation may come from an earlier build) and records
 * it for the later phases; returns the translation it used (routing-delta.ts indexes it).
 */
export function addIngress(ingress: V1Ingress, rank: number, state: BuildState): IngressTranslation {
  const translation = state.translations.translate(ingress);
  state.failures.push(...translation.failures);
  let parsed = translation.features;
  if (parsed === null) {
    // Refused; when it asked for a protection its paths answer 503 (denied-paths.ts), never another Ingress's.
    placeDeniedPaths(translation, rank, state);
    return translation;
  }
  let candidates = translation.candidates;
  // fastcgi-params-configmap: the ConfigMap's data, read on every build (a ConfigMap is no part of the Ingress).
  const fastcgi = parsed.policy.fastcgi;
  if (fastcgi !== undefined && fastcgi.paramsConfigMap !== null) {
    const resolved = resolveFastcgiParams(fastcgi, translation.ref, state.configMaps, state.settings.crossNamespace.allow, state.prefix);
    if (!resolved.ok) {
      state.failures.push(resolved.failure);
      placeDeniedPaths(deniedPaths(ingress, translation.ref, state.prefix, state.settings), rank, state);
      return translation;
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
    return translation;
  }
  const clientCerts = parsed.policy.clientCerts;
  if (clientCerts?.secret != null) {
    // Client certificates bind to a host's TLS server name: the catch-all has none to bind to.
    if (translation.hosts.includes(CATCH_ALL_HOST)) {
      state.failures.push(makeFailure(translation.ref, 'ClientCertNeedsHost', 'spec.rules',
        'auth-tls-secret needs every rule to name a host; the Ingress is not served'));
      placeDeniedPaths(deniedPaths(ingress, translation.ref, state.prefix, state.settings), rank, state);
      return translation;
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
  return translation;
}
