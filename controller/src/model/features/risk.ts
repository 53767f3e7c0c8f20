// annotations-risk-level, as ingress-nginx v1.15.1 applies it: an Ingress
// carrying an annotation whose risk is above the level is not served (its
// annotation extractor refuses the Ingress, whatever the value, even an empty
// one). Every name ingress-nginx rates counts, supported here or not; the
// *-snippet names are left to the snippet gate (snippet-gate.ts), which
// refuses them below Critical with a reason naming both settings it needs.

import { makeFailure } from '../failure.ts';
import type { Failure, IngressRef, SafetySettings } from '../types.ts';
import type { AnnotationRisk } from './feature.ts';
import { INGRESS_NGINX_ANNOTATIONS } from './ingress-nginx-names.ts';
import { FEATURES } from './registry.ts';

const ORDER: Readonly<Record<AnnotationRisk, number>> = Object.freeze({ Low: 0, Medium: 1, High: 2, Critical: 3 });

/** Each annotation's risk: a feature's declaration first, else ingress-nginx's table. */
const RISKS: ReadonlyMap<string, AnnotationRisk> = new Map<string, AnnotationRisk>([
  ...INGRESS_NGINX_ANNOTATIONS.map((item) => [item.name, item.risk] as const),
  ...FEATURES.flatMap((feature) => feature.keys.flatMap((key) => (key.annotation ? [[key.annotation.name, key.annotation.risk] as const] : []))),
]);

/** The risk ingress-nginx gives annotation `name` (without the prefix), or undefined for a name it does not know. */
export function annotationRisk(name: string): AnnotationRisk | undefined {
  return RISKS.get(name);
}

/** The annotations under `keyPrefix` (with its slash) that `level` does not allow, one failure each, sorted by name. */
export function riskyAnnotations(
  annotations: Readonly<Record<string, unknown>>,
  keyPrefix: string,
  ingress: IngressRef,
  level: SafetySettings['riskLevel'],
): Failure[] {
  const failures: Failure[] = [];
  for (const fullKey of Object.keys(annotations).sort()) {
    if (!fullKey.startsWith(keyPrefix)) continue;
    const risk = annotationRisk(fullKey.slice(keyPrefix.length));
    if (risk === undefined || fullKey.endsWith('-snippet') || ORDER[risk] <= ORDER[level]) continue;
    failures.push(makeFailure(ingress, 'RiskyAnnotation', `metadata.annotations[${fullKey}]`,
      `${fullKey} is ${risk} risk, above the ConfigMap's annotations-risk-level ${level}; the Ingress is skipped`));
  }
  return failures;
}
