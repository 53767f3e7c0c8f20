// The controller's ConfigMap (--configmap namespace/name) → global settings
// and the defaults of location annotations. Every known key has a strict
// parser; a bad value keeps the default and becomes a cluster-wide failure,
// an unknown key becomes one failure (logged once while it stands), so a
// typo is visible without breaking anything.

import type { V1ConfigMap } from '@kubernetes/client-node';
import { ANNOTATION_SPECS, DEFAULT_ANNOTATION_VALUES, proxySettingsFrom, type AnnotationValues, type AnyAnnotationSpec } from './annotations/index.ts';
import { parseBoolean } from './annotations/values.ts';
import { accept, refuse, type Checked } from './checked.ts';
import { makeFailure, quoteValue } from './failure.ts';
import { DEFAULT_LOG_FORMAT, parseLogFormat } from './log-format.ts';
import type { Failure, GlobalSettings, HstsSettings } from './types.ts';

/** ingress-nginx's defaults: TLS 1.2 and 1.3, its ECDHE/AEAD cipher list, HSTS one year. */
export const DEFAULT_GLOBAL_SETTINGS: GlobalSettings = Object.freeze({
  sslProtocols: Object.freeze(['TLSv1.2', 'TLSv1.3']),
  sslCiphers: 'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:'
    + 'ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:'
    + 'DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384',
  hsts: Object.freeze({ enabled: true, maxAge: 31_536_000, includeSubdomains: true, preload: false }),
  httpRedirectCode: 308,
  accessLog: Object.freeze({ enabled: true, format: DEFAULT_LOG_FORMAT, escapeJson: false }),
  proxyDefaults: Object.freeze(proxySettingsFrom(DEFAULT_ANNOTATION_VALUES)),
});

/** ConfigMap keys that set the default of the annotation of the same name. */
const ANNOTATION_DEFAULT_KEYS = new Set([
  'proxy-body-size', 'proxy-connect-timeout', 'proxy-read-timeout', 'proxy-send-timeout',
  'load-balance', 'ssl-redirect', 'force-ssl-redirect',
]);

const PROTOCOLS = new Set(['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3']);
/** Two years: longer HSTS ages are not accepted by browsers' preload lists either. */
const MAX_HSTS_AGE = 63_072_000;

function parseProtocols(value: string): Checked<readonly string[]> {
  const words = value.trim().split(/\s+/u);
  if (words.length === 0 || words.some((word) => !PROTOCOLS.has(word))) {
    return refuse(`expected words from ${[...PROTOCOLS].join(' ')}`);
  }
  return accept([...new Set(words)]);
}

function parseCiphers(value: string): Checked<string> {
  // OpenSSL's cipher-list grammar needs only these characters; nothing else can reach nginx.conf.
  return /^[A-Za-z0-9_:+!@.=-]{1,2000}$/u.test(value) ? accept(value) : refuse('expected an OpenSSL cipher list');
}

function parseMaxAge(value: string): Checked<number> {
  if (!/^\d{1,9}$/u.test(value) || Number(value) > MAX_HSTS_AGE) return refuse(`expected whole seconds up to ${MAX_HSTS_AGE}`);
  return accept(Number(value));
}

function parseRedirectCode(value: string): Checked<GlobalSettings['httpRedirectCode']> {
  const code = Number(value);
  return code === 301 || code === 302 || code === 307 || code === 308 ? accept(code) : refuse('expected 301, 302, 307 or 308');
}

type MutableSettings = { -readonly [K in keyof GlobalSettings]: GlobalSettings[K] };
type MutableHsts = { -readonly [K in keyof HstsSettings]: HstsSettings[K] };
type SettingKey = (settings: MutableSettings, hsts: MutableHsts, value: string) => string | null;

/** Applies a parsed value, or returns the refusal's reason. */
function setter<T>(parse: (value: string) => Checked<T>, apply: (settings: MutableSettings, hsts: MutableHsts, value: T) => void): SettingKey {
  return (settings, hsts, raw) => {
    const parsed = parse(raw);
    if (!parsed.ok) return parsed.reason;
    apply(settings, hsts, parsed.value);
    return null;
  };
}

const SETTING_KEYS: Readonly<Record<string, SettingKey>> = {
  'ssl-protocols': setter(parseProtocols, (s, _h, v) => { s.sslProtocols = v; }),
  'ssl-ciphers': setter(parseCiphers, (s, _h, v) => { s.sslCiphers = v; }),
  'hsts': setter(parseBoolean, (_s, h, v) => { h.enabled = v; }),
  'hsts-max-age': setter(parseMaxAge, (_s, h, v) => { h.maxAge = v; }),
  'hsts-include-subdomains': setter(parseBoolean, (_s, h, v) => { h.includeSubdomains = v; }),
  'hsts-preload': setter(parseBoolean, (_s, h, v) => { h.preload = v; }),
  'http-redirect-code': setter(parseRedirectCode, (s, _h, v) => { s.httpRedirectCode = v; }),
  'disable-access-log': setter(parseBoolean, (s, _h, v) => { s.accessLog = { ...s.accessLog, enabled: !v }; }),
  'log-format-upstream': setter(parseLogFormat, (s, _h, v) => { s.accessLog = { ...s.accessLog, format: v }; }),
  'log-format-escape-json': setter(parseBoolean, (s, _h, v) => { s.accessLog = { ...s.accessLog, escapeJson: v }; }),
};

/** What the ConfigMap contributes to a build. */
export interface ControllerConfig {
  readonly settings: GlobalSettings;
  /** Defaults for annotations an Ingress does not set. */
  readonly annotationDefaults: AnnotationValues;
  readonly failures: readonly Failure[];
}

function applyAnnotationDefault(spec: AnyAnnotationSpec, raw: string, into: Record<string, unknown>): string | null {
  const parsed = spec.parse(raw);
  if (!parsed.ok) return parsed.reason;
  into[spec.field] = parsed.value;
  return null;
}

function findConfigMap(configMaps: readonly V1ConfigMap[], key: string): V1ConfigMap | undefined {
  const [namespace, name] = key.split('/');
  return configMaps.find((item) => item?.metadata?.namespace === namespace && item?.metadata?.name === name);
}

/** Reads the ConfigMap named by `key` (`namespace/name`; null = none). Pure; never throws on its data. */
export function readControllerConfig(configMaps: readonly V1ConfigMap[], key: string | null | undefined): ControllerConfig {
  const settings: MutableSettings = { ...DEFAULT_GLOBAL_SETTINGS };
  const hsts: MutableHsts = { ...DEFAULT_GLOBAL_SETTINGS.hsts };
  const defaults: Record<string, unknown> = { ...DEFAULT_ANNOTATION_VALUES };
  const failures: Failure[] = [];
  const configMap = key ? findConfigMap(configMaps, key) : undefined;
  if (key && !configMap) {
    failures.push(makeFailure(null, 'ConfigMapNotFound', '--configmap', `ConfigMap ${quoteValue(key)} not found; defaults apply`));
  }
  const data: Readonly<Record<string, unknown>> = configMap?.data ?? {};
  for (const name of Object.keys(data).sort()) {
    const raw = data[name];
    const field = `ConfigMap ${key}: data[${name}]`;
    const spec = ANNOTATION_DEFAULT_KEYS.has(name) ? ANNOTATION_SPECS.find((item) => item.key === name) : undefined;
    const setting = Object.hasOwn(SETTING_KEYS, name) ? SETTING_KEYS[name] : undefined;
    if (!spec && !setting) {
      failures.push(makeFailure(null, 'UnknownConfigMapKey', field, `unknown ConfigMap key ${quoteValue(name)} is ignored`));
      continue;
    }
    const reason = typeof raw !== 'string' ? 'value must be a string'
      : spec ? applyAnnotationDefault(spec, raw, defaults) : (setting as SettingKey)(settings, hsts, raw);
    if (reason !== null) {
      // The reason first: a long value (a log format) must not push it past the message bound.
      failures.push(makeFailure(null, 'InvalidConfigMapValue', field,
        `ConfigMap key ${name}: ${reason}; the default stays (value ${quoteValue(raw)})`));
    }
  }
  settings.hsts = hsts;
  const annotationDefaults = defaults as unknown as AnnotationValues;
  settings.proxyDefaults = proxySettingsFrom(annotationDefaults);
  return { settings, annotationDefaults, failures };
}
