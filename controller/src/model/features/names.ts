// What the builder does with a name it finds under the annotation prefix or in
// the ConfigMap: parse it (a feature declares it), ignore it as harmless (it
// only tunes something this data plane does differently or not at all, and
// docs say so), or report it: an unsupported name whose purpose is protection
// fails closed, any other is a warning. Typos are names ingress-nginx never
// had. The lists of ingress-nginx's names are data (ingress-nginx-names.ts).

import type { AnyFeature } from './feature.ts';
import { INGRESS_NGINX_ANNOTATIONS, INGRESS_NGINX_CONFIG_KEYS, type IngressNginxAnnotation, type IngressNginxConfigKey } from './ingress-nginx-names.ts';
import { FEATURES } from './registry.ts';

/** Annotations ignored because they are harmless here, with why (docs and `migrate` show the reason). */
export const HARMLESS_ANNOTATIONS: Readonly<Record<string, string>> = Object.freeze({
  'enable-opentelemetry': 'tracing is not built in; requests are served the same',
  'opentelemetry-operation-name': 'tracing is not built in',
  'opentelemetry-trust-incoming-span': 'tracing is not built in; trace headers are passed to the backend unchanged',
  'enable-rewrite-log': 'a debugging aid of NGINX\'s error log; requests are served the same',
  'http2-push-preload': 'HTTP/2 server push was removed from NGINX 1.25.1; browsers dropped it too',
});

/** ConfigMap keys ignored because they are harmless here, with why. */
export const HARMLESS_CONFIG_KEYS: Readonly<Record<string, string>> = Object.freeze({
  'enable-opentelemetry': 'tracing is not built in',
  'opentelemetry-config': 'tracing is not built in',
  'opentelemetry-operation-name': 'tracing is not built in',
  'opentelemetry-trust-incoming-span': 'tracing is not built in',
  'otlp-collector-host': 'tracing is not built in',
  'otlp-collector-port': 'tracing is not built in',
  'otel-service-name': 'tracing is not built in',
  'otel-sampler': 'tracing is not built in',
  'otel-sampler-ratio': 'tracing is not built in',
  'otel-sampler-parent-based': 'tracing is not built in',
  'otel-max-queuesize': 'tracing is not built in',
  'otel-schedule-delay-millis': 'tracing is not built in',
  'otel-max-export-batch-size': 'tracing is not built in',
  'server-tokens': 'the NGINX version is never sent (server_tokens off)',
});

/**
 * ConfigMap keys that are protective but only tune a protection that is itself off: setting
 * them alone protects nothing, so they warn instead of failing closed.
 */
const TUNING_ONLY_CONFIG_KEYS: ReadonlySet<string> = new Set([
  'limit-conn-status-code', 'limit-req-status-code', 'limit-conn-zone-variable', 'nginx-status-ipv4-whitelist',
  'nginx-status-ipv6-whitelist', 'no-auth-locations', 'global-auth-signin-redirect-param', 'global-auth-cache-duration',
  'global-auth-always-set-cookie', 'global-auth-method', 'global-auth-cache-key', 'global-auth-request-redirect',
  'global-auth-response-headers', 'global-auth-signin', 'limit-rate', 'limit-rate-after',
]);

/** Protective annotations that protect nothing by themselves (global auth is itself unsupported). */
const TUNING_ONLY_ANNOTATIONS: ReadonlySet<string> = new Set(['enable-global-auth']);

/** A value that switches a protection off (or leaves it unset) asks for nothing to fail closed for. */
function switchesOff(value: string): boolean {
  return ['', 'false', '0', 'off'].includes(value.trim().toLowerCase());
}

/** What a name is, for the builder. */
export type NameStatus =
  | { readonly kind: 'feature'; readonly feature: AnyFeature }
  | { readonly kind: 'snippet' }
  | { readonly kind: 'harmless'; readonly why: string }
  | { readonly kind: 'unsupported'; readonly protective: boolean }
  | { readonly kind: 'unknown' };

function index<T extends { readonly name: string }>(items: readonly T[]): ReadonlyMap<string, T> {
  return new Map(items.map((item) => [item.name, item]));
}

const FEATURE_BY_ANNOTATION: ReadonlyMap<string, AnyFeature> = new Map(FEATURES.flatMap((feature) =>
  feature.keys.flatMap((key) => (key.annotation ? [[key.annotation.name, feature] as const] : []))));
const FEATURE_BY_CONFIG_KEY: ReadonlyMap<string, AnyFeature> = new Map(FEATURES.flatMap((feature) =>
  feature.keys.flatMap((key) => (key.configKey ? [[key.configKey, feature] as const] : []))));
const INGRESS_NGINX_ANNOTATION: ReadonlyMap<string, IngressNginxAnnotation> = index(INGRESS_NGINX_ANNOTATIONS);
const INGRESS_NGINX_CONFIG_KEY: ReadonlyMap<string, IngressNginxConfigKey> = index(INGRESS_NGINX_CONFIG_KEYS);

/** The status of annotation `name` (without the prefix) with its raw value. */
export function annotationStatus(name: string, value: unknown): NameStatus {
  const feature = FEATURE_BY_ANNOTATION.get(name);
  if (feature !== undefined) return { kind: 'feature', feature };
  if (name.endsWith('-snippet')) return { kind: 'snippet' };
  if (Object.hasOwn(HARMLESS_ANNOTATIONS, name)) return { kind: 'harmless', why: HARMLESS_ANNOTATIONS[name] as string };
  const known = INGRESS_NGINX_ANNOTATION.get(name);
  if (known === undefined) return { kind: 'unknown' };
  const protects = known.protective && !TUNING_ONLY_ANNOTATIONS.has(name) && !(typeof value === 'string' && switchesOff(value));
  return { kind: 'unsupported', protective: protects };
}

/**
 * The status of ConfigMap key `name`; `value` decides whether a protective key protects anything
 * (one that is not a string cannot be read as switched off: it protects).
 */
export function configKeyStatus(name: string, value: unknown): NameStatus {
  const feature = FEATURE_BY_CONFIG_KEY.get(name);
  if (feature !== undefined) return { kind: 'feature', feature };
  if (name.endsWith('-snippet')) return { kind: 'snippet' };
  if (Object.hasOwn(HARMLESS_CONFIG_KEYS, name)) return { kind: 'harmless', why: HARMLESS_CONFIG_KEYS[name] as string };
  const known = INGRESS_NGINX_CONFIG_KEY.get(name);
  if (known === undefined) return { kind: 'unknown' };
  const protects = known.protective && !TUNING_ONLY_CONFIG_KEYS.has(name)
    && !(typeof value === 'string' && (value === known.default || switchesOff(value)));
  return { kind: 'unsupported', protective: protects };
}
