// Which names users set that resty-ingress does not apply, from the builder's
// standing failures: `resty_ingress_unsupported_annotations` (an Ingress's
// annotation it is served without, or that keeps it from being served) and
// `resty_ingress_unsupported_config_keys` (a ConfigMap key). Reset on every
// build, so a series lives exactly as long as its failure; capped so that a
// cluster of typos cannot grow the registry without bound.

import { Gauge, type Registry } from 'prom-client';
import type { Failure } from '../model/types.ts';

/** Reasons about an Ingress's annotation that the builder does not apply (model/features/parse.ts). */
const ANNOTATION_REASONS: ReadonlySet<string> = new Set(['UnsupportedAnnotation', 'UnknownAnnotation', 'ProtectionNotSupported', 'SnippetNotAllowed', 'SnippetNotSupported']);
/** Reasons about a ConfigMap key (no Ingress). */
const CONFIG_KEY_REASONS: ReadonlySet<string> = new Set(['UnsupportedConfigMapKey', 'UnknownConfigMapKey', 'ProtectionNotSupported']);
/** More series than this are not exported (the log and Events still name every one). */
export const MAX_SERIES = 2000;

/** The name inside a failure's field: `metadata.annotations[<key>]` or `ConfigMap ns/name: data[<key>]`. */
function nameIn(field: string): string | null {
  return /\[([^\]]+)\]$/u.exec(field)?.[1] ?? null;
}

export interface UnsupportedNameMetrics {
  /** Every standing failure of the latest build. */
  update(failures: readonly Failure[]): void;
}

export function createUnsupportedNameMetrics(registry: Registry): UnsupportedNameMetrics {
  const registers = [registry];
  const annotations = new Gauge({
    name: 'resty_ingress_unsupported_annotations',
    help: 'Annotations an Ingress sets that resty-ingress does not apply (1 per Ingress and annotation); a protective one keeps the Ingress from being served',
    labelNames: ['namespace', 'ingress', 'annotation'], registers,
  });
  const configKeys = new Gauge({
    name: 'resty_ingress_unsupported_config_keys',
    help: 'ConfigMap keys resty-ingress does not apply (1 per key)',
    labelNames: ['key'], registers,
  });
  return {
    update(failures): void {
      annotations.reset();
      configKeys.reset();
      let series = 0;
      for (const failure of failures) {
        const name = nameIn(failure.field);
        if (name === null || series >= MAX_SERIES) continue;
        if (failure.ingress !== null && ANNOTATION_REASONS.has(failure.reason)) {
          annotations.set({ namespace: failure.ingress.namespace, ingress: failure.ingress.name, annotation: name }, 1);
          series += 1;
        } else if (failure.ingress === null && CONFIG_KEY_REASONS.has(failure.reason)) {
          configKeys.set({ key: name }, 1);
          series += 1;
        }
      }
    },
  };
}
