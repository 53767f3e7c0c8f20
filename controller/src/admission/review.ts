// The admission decision: a candidate Ingress is put into the current
// snapshot (replacing its stored version) and the pure model builder runs;
// every Failure the builder reports against the candidate is a reason to
// deny it, so the webhook refuses exactly what the controller would refuse.
// Nothing is executed on user input (no `nginx -t`: CVE-2025-1974).
// Failures about OTHER objects (a Service not created yet, a canary's main
// Ingress) only warn: charts often apply the Ingress before its Service. So
// do the builder's warnings (Failure.warning: an unsupported or misspelt
// annotation the Ingress is served without). A canary never conflicts with
// its main Ingress: it places no location of its own (model/canaries.ts).

import type { V1Ingress } from '@kubernetes/client-node';
import { buildModel, type ModelBuilder } from '../model/build.ts';
import { indexIngressClasses, isOurIngress } from '../model/ingress-class.ts';
import type { BuildOptions, Failure, IngressRef, Snapshot } from '../model/types.ts';

/** Builds a model: buildModel, or a long-lived builder's build (the controller's, which reuses every unchanged Ingress's translation). */
export type BuildFunction = ModelBuilder['build'];

/** Reasons that depend on objects other than the Ingress: warnings, never denials. */
const DEPENDENCY_REASONS: ReadonlySet<string> = new Set(['ServiceNotFound', 'ServicePortNotFound', 'UnsupportedServiceType', 'CanaryWithoutMain']);

/** The outcome for one candidate Ingress. */
export interface AdmissionDecision {
  readonly allowed: boolean;
  /** Why it was denied (one line per failure), empty when allowed. */
  readonly message: string;
  /** Shown by kubectl as `Warning: …` (allowed or not). */
  readonly warnings: readonly string[];
  /** The failures that caused the denial. */
  readonly failures: readonly Failure[];
  /** The Ingress that was checked (ours), or null when it passed through unchecked (another class, DELETE). */
  readonly ingress: IngressRef | null;
}

const describe = (failure: Failure): string => `${failure.field}: ${failure.message}`;

/** The same Ingress (namespace/name) as stored: the candidate replaces it. */
function sameObject(a: V1Ingress, namespace: string, name: string): boolean {
  return a.metadata?.namespace === namespace && a.metadata?.name === name;
}

/**
 * Decides on a CREATE or UPDATE of `candidate`. `candidate.metadata.namespace`
 * and `.name` must be set (the HTTP layer fills them from the request).
 */
export function decideIngressAdmission(candidate: V1Ingress, snapshot: Snapshot, options: BuildOptions, build: BuildFunction = buildModel): AdmissionDecision {
  const namespace = candidate.metadata?.namespace ?? '';
  const name = candidate.metadata?.name ?? '';
  const classes = indexIngressClasses(snapshot.ingressClasses, options);
  if (!isOurIngress(candidate, classes, options)) {
    return { allowed: true, message: '', warnings: [], failures: [], ingress: null };
  }
  const ingresses = [...snapshot.ingresses.filter((ingress) => !sameObject(ingress, namespace, name)), candidate];
  const { failures } = build({ ...snapshot, ingresses }, options);
  const own = failures.filter((f) => f.ingress?.namespace === namespace && f.ingress?.name === name);
  const warnsOnly = (f: Failure): boolean => f.warning === true || DEPENDENCY_REASONS.has(f.reason);
  const denying = own.filter((f) => !warnsOnly(f));
  const warnings = own.filter(warnsOnly).map(describe);
  const ingress = { namespace, name };
  if (denying.length === 0) return { allowed: true, message: '', warnings, failures: [], ingress };
  const message = `Ingress ${namespace}/${name} is refused by resty-ingress: ${denying.map(describe).join('; ')}`;
  return { allowed: false, message, warnings, failures: denying, ingress };
}
