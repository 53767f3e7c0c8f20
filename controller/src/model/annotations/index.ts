// The annotation framework: reads an Ingress's annotations under the
// configured prefix, runs each known one through its strict parser, and
// either returns the defaulted AnnotationValues or the failures that make the
// whole Ingress skipped (as ingress-nginx drops an Ingress whose annotation
// fails validation). Snippet annotations are always refused. Unknown keys
// under the prefix are ignored so manifests written for ingress-nginx apply.
// May import: ../checked, ../failure, ../types and its own specs.

import { makeFailure, quoteValue } from '../failure.ts';
import type { Failure, IngressRef, ProxySettings } from '../types.ts';
import {
  backendProtocolAnnotation,
  loadBalanceAnnotation,
  proxyBodySizeAnnotation,
  proxyConnectTimeoutAnnotation,
  proxyReadTimeoutAnnotation,
  proxySendTimeoutAnnotation,
} from './proxy.ts';
import { rewriteTargetAnnotation, useRegexAnnotation } from './rewrite.ts';
import { forceSslRedirectAnnotation, sslRedirectAnnotation } from './tls.ts';
import type { AnnotationSpec, AnnotationValues, AnyAnnotationSpec } from './types.ts';

export type { AnnotationScope, AnnotationSpec, AnnotationValues, AnyAnnotationSpec } from './types.ts';

/** Defaults when an annotation is absent (ingress-nginx's ConfigMap defaults, COMPAT.md). */
export const DEFAULT_ANNOTATION_VALUES: AnnotationValues = Object.freeze({
  rewriteTarget: null,
  useRegex: false,
  bodySize: '1m',
  connectTimeout: 5,
  readTimeout: 60,
  sendTimeout: 60,
  protocol: 'HTTP',
  loadBalance: 'round_robin',
  sslRedirect: true,
  forceSslRedirect: false,
});

/** Every annotation this controller understands. */
export const ANNOTATION_SPECS: readonly AnyAnnotationSpec[] = Object.freeze([
  rewriteTargetAnnotation,
  useRegexAnnotation,
  proxyBodySizeAnnotation,
  proxyConnectTimeoutAnnotation,
  proxyReadTimeoutAnnotation,
  proxySendTimeoutAnnotation,
  backendProtocolAnnotation,
  loadBalanceAnnotation,
  sslRedirectAnnotation,
  forceSslRedirectAnnotation,
]);

/** The per-location proxy settings carried by a set of annotation values. */
export function proxySettingsFrom(values: AnnotationValues): ProxySettings {
  return {
    bodySize: values.bodySize,
    connectTimeout: values.connectTimeout,
    readTimeout: values.readTimeout,
    sendTimeout: values.sendTimeout,
    protocol: values.protocol,
  };
}

/** The redirect settings a Location carries. */
export function redirectSettingsFrom(values: AnnotationValues): { sslRedirect: boolean; forceSslRedirect: boolean } {
  return { sslRedirect: values.sslRedirect, forceSslRedirect: values.forceSslRedirect };
}

/** Outcome for one Ingress: its settings, or why it must be skipped. */
export type IngressAnnotations =
  | { readonly ok: true; readonly values: AnnotationValues }
  | { readonly ok: false; readonly failures: readonly Failure[] };

function annotationField(fullKey: string): string {
  return `metadata.annotations[${fullKey}]`;
}

function applySpec<F extends keyof AnnotationValues>(
  spec: AnnotationSpec<F>,
  raw: unknown,
  into: { -readonly [K in keyof AnnotationValues]: AnnotationValues[K] },
): string | null {
  if (typeof raw !== 'string') return 'value must be a string';
  const parsed = spec.parse(raw);
  if (!parsed.ok) return parsed.reason;
  into[spec.field] = parsed.value;
  return null;
}

/** Parses the prefixed annotations of one Ingress. `prefix` has no trailing slash. */
export function parseIngressAnnotations(
  annotations: Readonly<Record<string, unknown>> | undefined,
  prefix: string,
  ingress: IngressRef,
  specs: readonly AnyAnnotationSpec[] = ANNOTATION_SPECS,
  defaults: AnnotationValues = DEFAULT_ANNOTATION_VALUES,
): IngressAnnotations {
  // defaults: DEFAULT_ANNOTATION_VALUES overlaid with the ConfigMap's keys. Copied only
  // when an annotation sets a value: most Ingresses share the defaults object (a long-lived
  // builder keeps each Ingress's values, model/ingress-translation.ts).
  let values: Parameters<typeof applySpec>[2] | null = null;
  const failures: Failure[] = [];
  const source = annotations ?? {};
  const keyPrefix = `${prefix}/`;
  // Sorted keys: failures come out in the same order whatever the object's key order.
  for (const fullKey of Object.keys(source).sort()) {
    if (!fullKey.startsWith(keyPrefix)) continue;
    const key = fullKey.slice(keyPrefix.length);
    if (key.endsWith('-snippet')) {
      failures.push(makeFailure(ingress, 'SnippetNotAllowed', annotationField(fullKey),
        `snippet annotation ${quoteValue(fullKey)} is not allowed; the Ingress is skipped`));
      continue;
    }
    const spec = specs.find((candidate) => candidate.key === key);
    if (!spec) continue;
    const raw = source[fullKey];
    values ??= { ...defaults };
    const reason = applySpec(spec, raw, values);
    if (reason !== null) {
      failures.push(makeFailure(ingress, 'InvalidAnnotation', annotationField(fullKey),
        `invalid value ${quoteValue(raw)} for ${fullKey}: ${reason}; the Ingress is skipped`));
    }
  }
  return failures.length > 0 ? { ok: false, failures } : { ok: true, values: values ?? defaults };
}
