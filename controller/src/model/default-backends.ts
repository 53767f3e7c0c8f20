// What answers when no rule matches. In order of precedence for a server's
// `/` prefix location:
// 1. a rule path `/` (Prefix, or ImplementationSpecific without regex);
// 2. spec.defaultBackend of an Ingress: the oldest such Ingress takes the
//    catch-all server's `/`, and each Ingress's own hosts' `/` (oldest first);
//    these locations carry the Ingress's proxy settings but no rewrite;
// 3. --default-backend-service (its first port), else NGINX's own 404.

import type { V1Service } from '@kubernetes/client-node';
import { backendName, parseServiceKey, type ServiceRef } from './backend-ref.ts';
import { balancingOf } from './backend-balancing.ts';
import type { BackendRegistry } from './backends.ts';
import type { ServiceIndex } from './cluster-index.ts';
import { makeFailure, quoteValue } from './failure.ts';
import type { IngressFeatures } from './features/parse.ts';
import { CATCH_ALL_HOST, checkServicePort } from './names.ts';
import { placeBackendLocation } from './placement.ts';
import { routeFlags, routeKey } from './route-key.ts';
import type { ServerTable } from './server-table.ts';
import type { BuildOptions, Failure, GlobalSettings, IngressRef, Location, Policy } from './types.ts';

/** An Ingress that passed validation, as the default-backend phase needs it. */
export interface AcceptedIngress {
  readonly ref: IngressRef;
  readonly rank: number;
  readonly features: IngressFeatures;
  /** Its valid rule hosts (may include `_`). */
  readonly hosts: readonly string[];
  /** Its validated spec.defaultBackend, or null. */
  readonly defaultBackend: ServiceRef | null;
}

/** Phase 2: spec.defaultBackend of each Ingress, oldest first. */
export function placeIngressDefaultBackends(
  accepted: readonly AcceptedIngress[],
  table: ServerTable,
  registry: BackendRegistry,
  settings: GlobalSettings,
): Failure[] {
  const failures: Failure[] = [];
  for (const ingress of accepted) {
    if (ingress.defaultBackend === null) continue;
    const policy = withoutRewrite(ingress.features.policy);
    const name = backendName(ingress.defaultBackend);
    const flags = routeFlags(policy, settings);
    const hosts = [CATCH_ALL_HOST, ...ingress.hosts.filter((host) => host !== CATCH_ALL_HOST)];
    for (const host of hosts) {
      if (table.hasRootPrefix(host)) continue;
      const location: Location = {
        path: '/',
        match: 'prefix',
        route: { kind: 'backend', backend: name, key: routeKey(flags, name, host, ingress.ref, ingress.defaultBackend, '/') },
        ingress: ingress.ref,
        policy,
      };
      const failure = placeBackendLocation(table, registry, {
        host, location, backend: ingress.defaultBackend, ...balancingOf(ingress.features.dynamic, settings),
        serviceUpstream: (ingress.features.dynamic.serviceUpstream ?? settings.serviceUpstream).enabled,
        rank: ingress.rank, field: 'spec.defaultBackend', serviceField: '.service.name',
      });
      if (failure) failures.push(failure);
    }
  }
  return failures;
}

/** The policy of an Ingress's spec.defaultBackend locations: its own, but no rewrite (the path is not the rule's). */
function withoutRewrite(policy: Policy): Policy {
  if (policy.rewrite === undefined) return policy;
  const { rewrite: _rewrite, ...rest } = policy;
  return Object.freeze(rest);
}

/** The global default: a Service port, or null for NGINX's 404; with the failures that explain a fallback. */
export interface GlobalDefault {
  readonly backend: ServiceRef | null;
  readonly failures: readonly Failure[];
}

const FLAG = '--default-backend-service';

function firstPort(service: V1Service): number | null {
  const port = Array.isArray(service.spec?.ports) ? service.spec.ports[0]?.port : undefined;
  const checked = checkServicePort(port);
  return checked.ok && typeof checked.value === 'number' ? checked.value : null;
}

/** Resolves --default-backend-service against the cluster. */
export function resolveGlobalDefault(options: BuildOptions, cluster: ServiceIndex): GlobalDefault {
  const value = options.defaultBackendService;
  if (value === null || value === undefined || value === '') return { backend: null, failures: [] };
  const fail = (reason: string, message: string): GlobalDefault => ({
    backend: null,
    failures: [makeFailure(null, reason, FLAG, `${message}; unmatched requests get 404`)],
  });
  const key = typeof value === 'string' ? parseServiceKey(value) : null;
  if (!key?.ok) return fail('InvalidDefaultBackend', `${FLAG} ${quoteValue(value)} refused: ${key?.reason ?? 'not a string'}`);
  const service = cluster.service(key.value.namespace, key.value.name);
  if (!service) return fail('ServiceNotFound', `default backend Service ${value} not found`);
  if (service.spec?.type === 'ExternalName') {
    return fail('UnsupportedServiceType', `default backend Service ${value} is of type ExternalName`);
  }
  const port = firstPort(service);
  if (port === null) return fail('ServicePortNotFound', `default backend Service ${value} has no usable port`);
  return { backend: { namespace: key.value.namespace, service: key.value.name, port }, failures: [] };
}

/** Phase 3: every server still without a `/` prefix gets one to the global default. */
export function placeGlobalDefaults(
  table: ServerTable,
  registry: BackendRegistry,
  global: GlobalDefault,
  settings: GlobalSettings,
): Failure[] {
  const failures: Failure[] = [];
  const notFound: Location = { path: '/', match: 'prefix', route: { kind: 'not-found' }, ingress: null, policy: NO_POLICY };
  const flags = routeFlags(NO_POLICY, settings);
  for (const host of table.hostnames()) {
    if (table.hasRootPrefix(host)) continue;
    if (global.backend !== null) {
      const name = backendName(global.backend);
      const location: Location = { ...notFound, route: { kind: 'backend', backend: name, key: routeKey(flags, name, host, null, global.backend, '/') } };
      const failure = placeBackendLocation(table, registry, {
        host, location, backend: global.backend, ...balancingOf(null, settings),
        rank: Number.POSITIVE_INFINITY, field: FLAG, serviceField: '',
      });
      if (failure === null) continue;
      failures.push(failure);
    }
    table.place(host, notFound);
  }
  return failures;
}

/** Generated locations follow the global settings. */
const NO_POLICY: Policy = Object.freeze({});
