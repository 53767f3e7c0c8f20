// The engine that turns names into feature configs, the same for both
// sources: the ConfigMap's data gives every feature its global config
// (readSettings), an Ingress's annotations give its overrides on top of it
// (parseIngressFeatures). Every name found is accounted for (names.ts):
// parsed by its feature, ignored as harmless, or reported — failing closed
// when it asked for protection we do not give.

import type { V1ConfigMap } from '@kubernetes/client-node';
import { accept, type Checked } from '../checked.ts';
import { makeFailure, makeWarning, quoteValue } from '../failure.ts';
import type { FeatureConfigs, Failure, GlobalSettings, IngressRef, Policy } from '../types.ts';
import type { AnyFeature, Draft, FeatureKey, KeyRefusal, UntypedFeature } from './feature.ts';
import { annotationStatus, configKeyStatus, UNSUPPORTED_CONFIG_KEY_REASONS } from './names.ts';
import { FEATURES } from './registry.ts';
import { riskyAnnotations } from './risk.ts';
import { gateSnippets } from './snippet-gate.ts';
import { blockedAnnotations } from './word-blocklist.ts';

/** Every feature's defaults: the settings without a ConfigMap. */
export const DEFAULT_SETTINGS: GlobalSettings = Object.freeze(
  Object.fromEntries(FEATURES.map((feature) => [feature.name, feature.defaults])) as unknown as GlobalSettings,
);

/** The configs of the dynamic features an Ingress set (pushed to Lua through Model.routes). */
export type DynamicConfigs = Readonly<Partial<Pick<FeatureConfigs, 'canary' | 'affinity' | 'serviceUpstream' | 'loadBalance' | 'upstreamHash'>>>;

/** What one Ingress's annotations give. */
export interface IngressFeatures {
  readonly policy: Policy;
  readonly dynamic: DynamicConfigs;
}

/** The outcome for one Ingress: its features and warnings, or the failures that keep it from being served. */
export type ParsedIngress =
  | { readonly ok: true; readonly value: IngressFeatures; readonly warnings: readonly Failure[] }
  | { readonly ok: false; readonly failures: readonly Failure[] };

const EMPTY: IngressFeatures = Object.freeze({ policy: Object.freeze({}), dynamic: Object.freeze({}) });

/** Applies the given raw values to a copy of `base`; `refused` hears each refusal. */
function applyKeys(
  feature: AnyFeature,
  base: unknown,
  given: ReadonlyMap<string, unknown>,
  nameOf: (key: FeatureKey<unknown>) => string | undefined,
  refused: (key: FeatureKey<unknown>, name: string, raw: unknown, refusal: KeyRefusal) => void,
): Checked<unknown> {
  const untyped = feature as unknown as UntypedFeature;
  const draft = { ...(base as object) } as Draft<unknown>;
  for (const key of untyped.keys) {
    const name = nameOf(key);
    if (name === undefined || !given.has(name)) continue;
    const raw = given.get(name);
    const refusal = typeof raw === 'string' ? key.set(draft, raw) : { reason: 'value must be a string', unsupported: false };
    if (refusal !== null) refused(key, name, raw, refusal);
  }
  return untyped.finish ? untyped.finish(draft, new Set(given.keys())) : accept(draft);
}

const annotationField = (fullKey: string): string => `metadata.annotations[${fullKey}]`;

/** What a refused annotation's message has for its value and reason: the bound less `invalid value ` and `; the Ingress is skipped`. */
const MESSAGE_ROOM = 200 - 'unsupported value '.length - '; the Ingress is skipped'.length - 2;

/** quoteValue, cut shorter when a long reason needs the room (a snippet's rule must not be cut off). */
function quoteWithin(raw: unknown, room: number): string {
  const quoted = quoteValue(raw);
  // At least 40 characters of the value stay: the reason's end may then be cut (the contract's bound).
  const keep = Math.max(room - 6, 40);
  if (quoted.length <= room || typeof raw !== 'string' || raw.length <= keep) return quoted;
  return JSON.stringify(`${raw.slice(0, keep)}…`);
}

/** Sorts an Ingress's prefixed annotations by feature, reporting every other name. */
function sortAnnotations(source: Readonly<Record<string, unknown>>, keyPrefix: string, ingress: IngressRef, failures: Failure[], warnings: Failure[]): Map<AnyFeature, Map<string, unknown>> {
  const byFeature = new Map<AnyFeature, Map<string, unknown>>();
  // Sorted keys: failures come out in the same order whatever the object's key order.
  for (const fullKey of Object.keys(source).sort()) {
    if (!fullKey.startsWith(keyPrefix)) continue;
    const name = fullKey.slice(keyPrefix.length);
    const status = annotationStatus(name, source[fullKey]);
    const field = annotationField(fullKey);
    if (status.kind === 'feature') {
      const given = byFeature.get(status.feature) ?? new Map<string, unknown>();
      byFeature.set(status.feature, given.set(name, source[fullKey]));
    } else if (status.kind === 'snippet') {
      failures.push(makeFailure(ingress, 'SnippetNotSupported', field, `snippet annotation ${quoteValue(fullKey)} is not supported; the Ingress is skipped`));
    } else if (status.kind === 'unsupported' && status.protective) {
      failures.push(makeFailure(ingress, 'ProtectionNotSupported', field,
        `${fullKey} asks for a protection resty-ingress does not support yet; the Ingress is not served rather than served unprotected`));
    } else if (status.kind === 'unsupported') {
      warnings.push(makeWarning(ingress, 'UnsupportedAnnotation', field, `${fullKey} is not supported; the Ingress is served without it`));
    } else if (status.kind === 'unknown') {
      warnings.push(makeWarning(ingress, 'UnknownAnnotation', field, `${fullKey} is not an annotation ingress-nginx or resty-ingress knows (a typo?); ignored`));
    }
  }
  return byFeature;
}

/** Parses the prefixed annotations of one Ingress over the global `settings`. `prefix` has no trailing slash. */
export function parseIngressFeatures(
  annotations: Readonly<Record<string, unknown>> | undefined,
  prefix: string,
  ingress: IngressRef,
  settings: GlobalSettings,
): ParsedIngress {
  const failures: Failure[] = [];
  const warnings: Failure[] = [];
  // Snippets only with the ConfigMap's consent (snippet-gate.ts): the refused ones are not parsed.
  const gated = gateSnippets(annotations ?? {}, `${prefix}/`, ingress, settings.safety);
  failures.push(...gated.failures);
  warnings.push(...gated.warnings);
  const byFeature = sortAnnotations(gated.readable, `${prefix}/`, ingress, failures, warnings);
  // ingress-nginx refuses an Ingress with an annotation above annotations-risk-level (risk.ts).
  failures.push(...riskyAnnotations(annotations ?? {}, `${prefix}/`, ingress, settings.safety.riskLevel));
  // ... and one whose annotation value holds a word of annotation-value-word-blocklist (word-blocklist.ts).
  failures.push(...blockedAnnotations(annotations ?? {}, `${prefix}/`, ingress, settings.safety.wordBlocklist));
  if (byFeature.size === 0) return failures.length > 0 ? { ok: false, failures: [...failures, ...warnings] } : { ok: true, value: EMPTY, warnings };
  const policy: Record<string, unknown> = {};
  const dynamic: Record<string, unknown> = {};
  for (const feature of FEATURES) {
    const given = byFeature.get(feature);
    if (given === undefined) continue;
    const fullKey = (name: string): string => `${prefix}/${name}`;
    const finished = applyKeys(feature, settings[feature.name], given,
      (key) => key.annotation?.name, (key, name, raw, refusal) => {
        // ingress-nginx runs no validator on an empty value, and its parsers then fall back to the
        // default: an empty annotation never refuses the Ingress.
        const unsupported = refusal.unsupported && raw !== '';
        const tail = ` for ${fullKey(name)}: ${refusal.reason}`;
        const message = `${unsupported ? 'unsupported' : 'invalid'} value ${quoteWithin(raw, MESSAGE_ROOM - tail.length)}${tail}`;
        if ((key.invalid === 'fail' && raw !== '') || unsupported) failures.push(makeFailure(ingress, 'InvalidAnnotation', annotationField(fullKey(name)), `${message}; the Ingress is skipped`));
        else warnings.push(makeWarning(ingress, 'IgnoredInvalidAnnotation', annotationField(fullKey(name)), `${message}; its default applies`));
      });
    if (!finished.ok) {
      const first = [...given.keys()].sort()[0] ?? feature.name;
      failures.push(makeFailure(ingress, 'InvalidAnnotation', annotationField(fullKey(first)), `${feature.title}: ${finished.reason}; the Ingress is skipped`));
      continue;
    }
    (feature.output.kind === 'lua' ? dynamic : policy)[feature.name] = Object.freeze(finished.value);
  }
  if (failures.length > 0) return { ok: false, failures: [...failures, ...warnings] };
  return { ok: true, value: Object.freeze({ policy: Object.freeze(policy), dynamic: Object.freeze(dynamic) }), warnings };
}

/** What the ConfigMap contributes to a build. */
export interface ControllerSettings {
  readonly settings: GlobalSettings;
  /** True when the ConfigMap asks for a protection we do not give, or a protective key's value is refused: no Ingress is served (fail closed). */
  readonly closed: boolean;
  readonly failures: readonly Failure[];
}

function findConfigMap(configMaps: readonly V1ConfigMap[], key: string): V1ConfigMap | undefined {
  const [namespace, name] = key.split('/');
  return configMaps.find((item) => item?.metadata?.namespace === namespace && item?.metadata?.name === name);
}

/** Reads the ConfigMap named by `key` (`namespace/name`; null = none). Pure; never throws on its data. */
export function readSettings(configMaps: readonly V1ConfigMap[], key: string | null | undefined): ControllerSettings {
  const failures: Failure[] = [];
  const configMap = key ? findConfigMap(configMaps, key) : undefined;
  if (key && !configMap) {
    failures.push(makeFailure(null, 'ConfigMapNotFound', '--configmap', `ConfigMap ${quoteValue(key)} not found; defaults apply`));
  }
  const data: Readonly<Record<string, unknown>> = configMap?.data ?? {};
  const byFeature = new Map<AnyFeature, Map<string, unknown>>();
  let closed = false;
  for (const name of Object.keys(data).sort()) {
    const raw = data[name];
    const status = configKeyStatus(name, raw);
    const field = `ConfigMap ${key}: data[${name}]`;
    if (status.kind === 'feature') {
      byFeature.set(status.feature, (byFeature.get(status.feature) ?? new Map<string, unknown>()).set(name, raw));
    } else if (status.kind === 'unsupported' && status.protective) {
      closed = true;
      failures.push(makeFailure(null, 'ProtectionNotSupported', field,
        `ConfigMap key ${name} asks for a protection resty-ingress does not support yet; no Ingress is served until it is removed`));
    } else if (status.kind === 'unsupported' || status.kind === 'snippet') {
      const why = UNSUPPORTED_CONFIG_KEY_REASONS[name];
      failures.push(makeWarning(null, 'UnsupportedConfigMapKey', field, `ConfigMap key ${quoteValue(name)} is not supported${why === undefined ? '' : ` (${why})`} and is ignored`));
    } else if (status.kind === 'unknown') {
      failures.push(makeWarning(null, 'UnknownConfigMapKey', field, `unknown ConfigMap key ${quoteValue(name)} is ignored`));
    }
  }
  const settings: Record<string, unknown> = {};
  for (const feature of FEATURES) {
    const given = byFeature.get(feature);
    if (given === undefined) {
      settings[feature.name] = feature.defaults;
      continue;
    }
    const finished = applyKeys(feature, feature.defaults, given,
      (item) => item.configKey, (refusedKey, name, raw, { reason }) => {
        // The reason first: a long value (a log format) must not push it past the message bound.
        // A protective key's default protects nothing: it serves no Ingress rather than all of them open.
        if (refusedKey.failClosed === true) closed = true;
        const value = refusedKey.secret === true ? 'value withheld: key material' : `value ${quoteValue(raw)}`;
        failures.push(makeFailure(null, 'InvalidConfigMapValue', `ConfigMap ${key}: data[${name}]`, refusedKey.failClosed === true
          ? `ConfigMap key ${name}: no Ingress is served until it is fixed: ${reason} (${value})`
          : `ConfigMap key ${name}: ${reason}; the default stays (${value})`));
      });
    if (!finished.ok) {
      // A combination the module refuses (its `finish`): every key of it keeps its default, said once.
      const first = [...given.keys()].sort()[0] ?? feature.name;
      failures.push(makeFailure(null, 'InvalidConfigMapValue', `ConfigMap ${key}: data[${first}]`, `${feature.title}: ${finished.reason}; the defaults stay`));
    }
    settings[feature.name] = finished.ok ? Object.freeze(finished.value) : feature.defaults;
  }
  return { settings: Object.freeze(settings) as unknown as GlobalSettings, closed, failures };
}
