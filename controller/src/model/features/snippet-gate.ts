// Which snippet annotations an Ingress may carry, as ingress-nginx v1.15.1
// decides it: only when the ConfigMap says allow-snippet-annotations "true"
// AND annotations-risk-level Critical (the snippets are its only Critical
// annotations). Otherwise every *-snippet annotation refuses its Ingress,
// even an empty one, with a reason that says which setting is missing. When
// allowed, the snippets this controller renders are parsed by
// features/snippets.ts; the others are refused with why they cannot be.

import { makeFailure, makeWarning } from '../failure.ts';
import type { Failure, IngressRef, SafetySettings } from '../types.ts';

/** The snippet annotations rendered when allowed (features/snippets.ts declares them). */
const RENDERED: ReadonlySet<string> = new Set(['configuration-snippet', 'server-snippet', 'auth-snippet']);

/** Why a snippet ingress-nginx has is refused even when snippets are allowed. */
const NOT_RENDERED: Readonly<Record<string, string>> = Object.freeze({
  'modsecurity-snippet': 'ModSecurity is not part of this data plane',
  'stream-snippet': 'TCP/UDP (stream) services are not supported',
});

/** Snippet annotations are read: the ConfigMap allows them and accepts Critical risk. */
export function snippetsAllowed(safety: SafetySettings): boolean {
  return safety.allowSnippets && safety.riskLevel === 'Critical';
}

/** What the gate leaves: the failures of the snippets it refuses, and the annotations without them. */
export interface GatedAnnotations {
  readonly failures: readonly Failure[];
  /** An auth-snippet without auth-url: it acts only under the ConfigMap's global auth. */
  readonly warnings: readonly Failure[];
  readonly readable: Readonly<Record<string, unknown>>;
}

/** Applies the gate to the annotations under `keyPrefix` (with its slash), sorted by name. */
export function gateSnippets(annotations: Readonly<Record<string, unknown>>, keyPrefix: string, ingress: IngressRef, safety: SafetySettings): GatedAnnotations {
  const failures: Failure[] = [];
  const warnings: Failure[] = [];
  const readable: Record<string, unknown> = {};
  const allowed = snippetsAllowed(safety);
  for (const fullKey of Object.keys(annotations).sort()) {
    const name = fullKey.startsWith(keyPrefix) ? fullKey.slice(keyPrefix.length) : null;
    if (name === null || !name.endsWith('-snippet') || (allowed && RENDERED.has(name))) {
      readable[fullKey] = annotations[fullKey];
      if (name === 'auth-snippet' && allowed && annotations[`${keyPrefix}auth-url`] === undefined) {
        warnings.push(makeWarning(ingress, 'SnippetWithoutAuth', `metadata.annotations[${fullKey}]`,
          `${fullKey} goes into the external auth location: without auth-url it acts only under the ConfigMap's global-auth-url`));
      }
      continue;
    }
    const field = `metadata.annotations[${fullKey}]`;
    if (!allowed) {
      const missing = [
        safety.allowSnippets ? null : 'allow-snippet-annotations "true" (is "false")',
        safety.riskLevel === 'Critical' ? null : `annotations-risk-level Critical (is ${safety.riskLevel})`,
      ].filter((item) => item !== null).join(' and ');
      failures.push(makeFailure(ingress, 'SnippetNotAllowed', field,
        `${fullKey}: snippets need ConfigMap ${missing}; the Ingress is skipped`));
    } else {
      const why = NOT_RENDERED[name] ?? 'ingress-nginx has no such snippet';
      failures.push(makeFailure(ingress, 'SnippetNotSupported', field, `${fullKey} is not supported: ${why}; the Ingress is skipped`));
    }
  }
  return { failures, warnings, readable };
}
