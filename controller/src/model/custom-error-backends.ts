// The backends of custom error pages and of the default-backend annotation
// (features/custom-errors.ts), resolved against the cluster on every routing
// build: the annotation names a Service of the Ingress's namespace, whose
// first port (as ingress-nginx takes it) becomes a backend; the ConfigMap's
// codes go to --default-backend-service. Both are claimed like any routed
// backend, so Lua gets their endpoints and the error locations reach them
// through the one balancer upstream: their endpoints stay dynamic. As in
// ingress-nginx, a default-backend Service that cannot be used (missing,
// ExternalName, no port) is a warning and the Ingress is served without it.

import type { V1Service } from '@kubernetes/client-node';
import { backendName, type ServiceRef } from './backend-ref.ts';
import type { BackendRegistry } from './backends.ts';
import type { ServiceIndex } from './cluster-index.ts';
import type { GlobalDefault } from './default-backends.ts';
import { makeWarning } from './failure.ts';
import type { IngressFeatures } from './features/parse.ts';
import type { LocationCandidate } from './ingress-rules.ts';
import { checkServicePort } from './names.ts';
import type { CustomErrorsConfig, Failure, GlobalSettings, IngressRef, LoadBalance } from './types.ts';

/** An Ingress's features and candidates with its default-backend resolved. */
export interface ResolvedErrorBackend {
  readonly features: IngressFeatures;
  readonly candidates: readonly LocationCandidate[];
  readonly failures: readonly Failure[];
  /** Some location of it has error pages of its own: they go to the global default backend (while its own has no endpoints). */
  readonly usesGlobal: boolean;
}

/** What resolveIngressErrorBackend needs of the build. */
export interface ErrorBackendContext {
  readonly services: ServiceIndex;
  readonly registry: BackendRegistry;
  /** --annotations-prefix, for the failures' field. */
  readonly prefix: string;
  readonly rank: number;
  readonly loadBalance: LoadBalance;
}

function firstPortNumber(service: V1Service): number | null {
  const port = Array.isArray(service.spec?.ports) ? service.spec.ports[0]?.port : undefined;
  const checked = checkServicePort(port);
  return checked.ok && typeof checked.value === 'number' ? checked.value : null;
}

/** The Service port of `name` in `namespace`, or why it cannot be a default backend. */
function lookUp(services: ServiceIndex, namespace: string, name: string): { ref: ServiceRef } | { problem: string } {
  const service = services.service(namespace, name);
  if (!service) return { problem: `default backend Service ${namespace}/${name} not found` };
  if (service.spec?.type === 'ExternalName') return { problem: `default backend Service ${namespace}/${name} is of type ExternalName` };
  const port = firstPortNumber(service);
  if (port === null) return { problem: `default backend Service ${namespace}/${name} has no usable port` };
  return { ref: { namespace, service: name, port } };
}

/**
 * Resolves the default-backend annotation of one accepted Ingress (ref) and claims its backend.
 * The same features and candidates come back when it has none (no new objects).
 */
export function resolveIngressErrorBackend(
  ref: IngressRef, features: IngressFeatures, candidates: readonly LocationCandidate[], context: ErrorBackendContext,
): ResolvedErrorBackend {
  const own = features.policy.customErrors;
  if (own === undefined) return { features, candidates, failures: [], usesGlobal: false };
  if (own.defaultService === null) return { features, candidates, failures: [], usesGlobal: own.codes.length > 0 };
  const field = `metadata.annotations[${context.prefix}/default-backend]`;
  const found = lookUp(context.services, ref.namespace, own.defaultService);
  const refused = (message: string): ResolvedErrorBackend => ({
    features, candidates, failures: [makeWarning(ref, 'DefaultBackendUnusable', field, `${message}; the Ingress is served without it`)],
    usesGlobal: own.codes.length > 0,
  });
  if ('problem' in found) return refused(found.problem);
  const collision = context.registry.collision(found.ref);
  if (collision !== null) return refused(collision);
  context.registry.add({
    ref: found.ref, loadBalance: context.loadBalance, rank: context.rank, routed: true, ingress: ref, field, serviceField: '',
  });
  const customErrors: CustomErrorsConfig = Object.freeze({ ...own, backend: backendName(found.ref) });
  const policy = Object.freeze({ ...features.policy, customErrors });
  return {
    features: Object.freeze({ ...features, policy }),
    candidates: candidates.map((candidate) => ({ ...candidate, location: { ...candidate.location, policy } })),
    failures: [],
    // Its pages go to the global default backend while the Service has no endpoints.
    usesGlobal: own.codes.length > 0,
  };
}

/**
 * The settings with the global error backend filled in (customErrors.backend) and claimed, when
 * some location's error pages go to it (the ConfigMap's codes, or an Ingress's without its own
 * default-backend); else the same settings. Without --default-backend-service NGINX answers 404.
 */
export function withGlobalErrorBackend(
  settings: GlobalSettings, global: GlobalDefault, usedByIngresses: boolean, registry: BackendRegistry,
): { settings: GlobalSettings; failures: Failure[] } {
  if (global.backend === null || (!usedByIngresses && settings.customErrors.codes.length === 0)) return { settings, failures: [] };
  const collision = registry.collision(global.backend);
  if (collision !== null) {
    return { settings, failures: [makeWarning(null, 'DefaultBackendUnusable', '--default-backend-service', `${collision}; error pages answer 404`)] };
  }
  registry.add({
    ref: global.backend, loadBalance: settings.loadBalance.algorithm, rank: Number.POSITIVE_INFINITY, routed: true,
    ingress: null, field: '--default-backend-service', serviceField: '',
  });
  const customErrors: CustomErrorsConfig = Object.freeze({ ...settings.customErrors, backend: backendName(global.backend) });
  return { settings: Object.freeze({ ...settings, customErrors }), failures: [] };
}
