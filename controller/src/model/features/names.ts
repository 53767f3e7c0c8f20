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
  'http2-max-field-size': 'obsolete since NGINX 1.19.7, which ignores it: large-client-header-buffers bounds HTTP/2 headers too',
  'http2-max-header-size': 'obsolete since NGINX 1.19.7, which ignores it: large-client-header-buffers bounds HTTP/2 headers too',
  'http2-max-requests': 'obsolete since NGINX 1.19.7, which ignores it: keep-alive-requests bounds HTTP/2 connections too',
});

/** Why the proxy-stream-next-upstream* keys do nothing here. */
const NO_STREAM_RETRY = 'each TCP/UDP or passthrough connection has the one peer njs picks, so NGINX has no other endpoint to retry on; a peer whose connect failed is skipped for 10 s instead, see docs/tcp-udp-services.md';

/** ConfigMap keys not supported for a reason users should read in the catalogue (why, not just "not yet"). */
export const UNSUPPORTED_CONFIG_KEY_REASONS: Readonly<Record<string, string>> = Object.freeze({
  'enable-brotli': 'the data plane has no brotli module (nginx -V lists none); use-gzip compresses',
  'brotli-level': 'the data plane has no brotli module',
  'brotli-min-length': 'the data plane has no brotli module',
  'brotli-types': 'the data plane has no brotli module',
  'proxy-stream-next-upstream': NO_STREAM_RETRY,
  'proxy-stream-next-upstream-timeout': NO_STREAM_RETRY,
  'proxy-stream-next-upstream-tries': NO_STREAM_RETRY,
});

/**
 * ConfigMap keys that are protective but only tune a protection that is itself off: setting
 * them alone protects nothing, so they warn instead of failing closed.
 */
const TUNING_ONLY_CONFIG_KEYS: ReadonlySet<string> = new Set([
  'limit-conn-zone-variable', 'nginx-status-ipv4-whitelist', 'nginx-status-ipv6-whitelist',
]);

/** Protective annotations that protect nothing by themselves. */
const TUNING_ONLY_ANNOTATIONS: ReadonlySet<string> = new Set([]);

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

/** A value that is set and switches nothing off: what a name's status is when a user asks for it (the catalogue). */
export const SET: unique symbol = Symbol('set');

/** Where one kind of name (annotations, ConfigMap keys) is looked up. */
interface NameTables {
  readonly features: ReadonlyMap<string, AnyFeature>;
  readonly harmless: Readonly<Record<string, string>>;
  readonly known: ReadonlyMap<string, { readonly protective: boolean; readonly default?: string }>;
  readonly tuningOnly: ReadonlySet<string>;
}

function featuresBy(nameOf: (key: AnyFeature['keys'][number]) => string | undefined): ReadonlyMap<string, AnyFeature> {
  return new Map(FEATURES.flatMap((feature) => feature.keys.flatMap((key) => {
    const name = nameOf(key);
    return name === undefined ? [] : [[name, feature] as const];
  })));
}

const ANNOTATIONS: NameTables = {
  features: featuresBy((key) => key.annotation?.name),
  harmless: HARMLESS_ANNOTATIONS,
  known: index<IngressNginxAnnotation>(INGRESS_NGINX_ANNOTATIONS),
  tuningOnly: TUNING_ONLY_ANNOTATIONS,
};
const CONFIG_KEYS: NameTables = {
  features: featuresBy((key) => key.configKey),
  harmless: HARMLESS_CONFIG_KEYS,
  known: index<IngressNginxConfigKey>(INGRESS_NGINX_CONFIG_KEYS),
  tuningOnly: TUNING_ONLY_CONFIG_KEYS,
};

/**
 * The status of `name` with its raw value. A protective name protects something unless its value
 * is a string that switches it off (or is ingress-nginx's default); one that is not a string cannot
 * be read as off: it protects.
 */
function statusOf(tables: NameTables, name: string, value: unknown): NameStatus {
  const feature = tables.features.get(name);
  if (feature !== undefined) return { kind: 'feature', feature };
  if (name.endsWith('-snippet')) return { kind: 'snippet' };
  if (Object.hasOwn(tables.harmless, name)) return { kind: 'harmless', why: tables.harmless[name] as string };
  const known = tables.known.get(name);
  if (known === undefined) return { kind: 'unknown' };
  const off = typeof value === 'string' && (value === known.default || switchesOff(value));
  return { kind: 'unsupported', protective: known.protective && !tables.tuningOnly.has(name) && !off };
}

/** The status of annotation `name` (without the prefix) with its raw value. */
export function annotationStatus(name: string, value: unknown): NameStatus {
  return statusOf(ANNOTATIONS, name, value);
}

/** The status of ConfigMap key `name` with its raw value. */
export function configKeyStatus(name: string, value: unknown): NameStatus {
  return statusOf(CONFIG_KEYS, name, value);
}
