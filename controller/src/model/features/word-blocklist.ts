// annotation-value-word-blocklist, as ingress-nginx v1.15.1 applies it (its
// store skips the Ingress, its admission webhook denies it): an Ingress with
// an annotation under the prefix whose value contains one of the words
// (case-sensitive substring) is not served. The check runs in the model
// builder, so admission (which runs the builder on the candidate) denies
// exactly what the controller refuses.

import { accept, type Checked } from '../checked.ts';
import { makeFailure, quoteValue } from '../failure.ts';
import type { Failure, IngressRef } from '../types.ts';

/**
 * The list as ingress-nginx's admission reads it (split on commas, each word trimmed). An empty
 * word is dropped: ingress-nginx's controller would find it in every value and refuse every
 * Ingress carrying any annotation (`a,` would block everything).
 */
export function parseWordBlocklist(raw: string): Checked<readonly string[]> {
  return accept(Object.freeze([...new Set(raw.split(',').map((word) => word.trim()).filter((word) => word !== ''))]));
}

/** One failure per annotation under `keyPrefix` (with its slash) whose value holds a listed word, sorted by name. */
export function blockedAnnotations(
  annotations: Readonly<Record<string, unknown>>,
  keyPrefix: string,
  ingress: IngressRef,
  words: readonly string[],
): Failure[] {
  if (words.length === 0) return [];
  const failures: Failure[] = [];
  for (const fullKey of Object.keys(annotations).sort()) {
    const value = annotations[fullKey];
    if (!fullKey.startsWith(keyPrefix) || typeof value !== 'string') continue;
    const word = words.find((candidate) => value.includes(candidate));
    if (word === undefined) continue;
    failures.push(makeFailure(ingress, 'BlockedAnnotationValue', `metadata.annotations[${fullKey}]`,
      `${fullKey} annotation contains invalid word ${quoteValue(word)} (ConfigMap annotation-value-word-blocklist); the Ingress is skipped`));
  }
  return failures;
}
