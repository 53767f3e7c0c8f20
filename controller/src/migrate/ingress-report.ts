// The report of one Ingress: its annotations against the catalogue, its paths
// against the built model, the builder's failures for it, and the verdict.

import type { V1Ingress } from '@kubernetes/client-node';
import type { IngressTranslation } from '../model/ingress-translation.ts';
import type { Failure } from '../model/types.ts';
import { pathReports, type PathContext } from './ingress-paths.ts';
import { annotationReport } from './name-reports.ts';
import type { FailureReport, IngressReport, IngressVerdict, NameReport, PathReport } from './report-types.ts';

/** Failures about other objects (the Service): 503 until it exists, as in ingress-nginx; admission only warns for them too. */
const DEPENDENCY_REASONS: ReadonlySet<string> = new Set(['ServiceNotFound', 'ServicePortNotFound']);

export function failureReport(failure: Failure): FailureReport {
  const warning = failure.warning === true || DEPENDENCY_REASONS.has(failure.reason);
  return { reason: failure.reason, field: failure.field, message: failure.message, severity: warning ? 'warning' : 'error' };
}

/** Something the report should make the user look at: all but a dependency warning. */
function isDifference(failure: FailureReport): boolean {
  return failure.severity === 'error' || !DEPENDENCY_REASONS.has(failure.reason);
}

function annotationReports(ingress: V1Ingress, prefix: string): NameReport[] {
  const annotations: Readonly<Record<string, unknown>> = ingress.metadata?.annotations ?? {};
  const keyPrefix = `${prefix}/`;
  return Object.keys(annotations).filter((key) => key.startsWith(keyPrefix)).sort()
    .map((key) => annotationReport(key, key.slice(keyPrefix.length), annotations[key]));
}

function verdictOf(
  paths: readonly PathReport[], failures: readonly FailureReport[], annotations: readonly NameReport[], refused: string | null,
): { verdict: IngressVerdict; why: string | null } {
  if (refused !== null) return { verdict: 'not-served', why: refused };
  if (!paths.some((path) => path.served)) {
    return { verdict: 'not-served', why: paths.find((path) => path.why !== null)?.why ?? 'it has no rule paths and no default backend' };
  }
  const differs = paths.some((path) => !path.served) || failures.some(isDifference) || annotations.some((item) => item.status !== 'supported');
  return { verdict: differs ? 'served-with-differences' : 'served', why: null };
}

/** What one Ingress's report is made from. */
export interface IngressInputs extends Omit<PathContext, 'errors' | 'canary'> {
  readonly ingress: V1Ingress;
  readonly translation: IngressTranslation;
  /** The builder's failures for this Ingress. */
  readonly failures: readonly Failure[];
  readonly annotationsPrefix: string;
  /** Why nothing of the install is served (a fail-closed ConfigMap key, a refused flag), or null. */
  readonly installBlocked: string | null;
}

/** The report of one Ingress of the selected class. */
export function ingressReport(inputs: IngressInputs): IngressReport {
  const { ingress, translation, installBlocked } = inputs;
  const failures = inputs.failures.map(failureReport);
  const errors = inputs.failures.filter((failure, index) => failures[index]?.severity === 'error');
  const canary = translation.features?.dynamic.canary?.enabled === true;
  const computed = pathReports(ingress, { ...inputs, errors, canary });
  // A blocked install serves nothing, and every path says why; the failures and annotations
  // still show what would be left once the blocker is gone.
  const paths = installBlocked === null ? computed : computed.map((path) => ({ ...path, served: false, why: installBlocked }));
  const annotations = annotationReports(ingress, inputs.annotationsPrefix);
  const refused = installBlocked ?? (translation.features === null ? (errors[0]?.message ?? 'the Ingress is refused') : null);
  const { verdict, why } = verdictOf(paths, failures, annotations, refused);
  return { namespace: translation.ref.namespace, name: translation.ref.name, verdict, why, canary, annotations, paths, failures };
}
