// Test-only helpers for the feature modules' tables. One row says what a raw
// value gives, and runs through both sources the engine reads: an Ingress's
// annotation (parseIngressFeatures) and the ConfigMap key of the same name
// (readSettings), whichever of the two the module declares. Override rows put
// a ConfigMap's global value under an Ingress's annotations.

import { strict as assert } from 'node:assert';
import { it } from 'node:test';
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { Failure, FeatureConfigs, GlobalSettings, IngressRef } from '../types.ts';
import type { Feature, FeatureName } from './feature.ts';
import { DEFAULT_SETTINGS, parseIngressFeatures, readSettings, type ControllerSettings, type ParsedIngress } from './parse.ts';

export const PREFIX = 'nginx.ingress.kubernetes.io';
export const INGRESS: IngressRef = Object.freeze({ namespace: 'default', name: 'app' });
/** The --configmap every helper reads. */
export const CONFIG_MAP_KEY = 'ingress/resty-ingress';

/** `annotations` (names without the prefix) under `prefix`. */
export function prefixed(annotations: Readonly<Record<string, unknown>>, prefix = PREFIX): Record<string, unknown> {
  return Object.fromEntries(Object.entries(annotations).map(([name, value]) => [`${prefix}/${name}`, value]));
}

/** A ConfigMap; `data` may hold what the API never sends (non-strings) on purpose. */
export function configMap(data: Readonly<Record<string, unknown>>, name = 'resty-ingress', namespace = 'ingress'): V1ConfigMap {
  return { metadata: { namespace, name }, data: data as Record<string, string> };
}

/** readSettings over one ConfigMap holding `data`, named by CONFIG_MAP_KEY. */
export function readConfigMap(data: Readonly<Record<string, unknown>>): ControllerSettings {
  return readSettings([configMap(data)], CONFIG_MAP_KEY);
}

/** parseIngressFeatures over `annotations` (names without the prefix). */
export function parseAnnotations(annotations: Readonly<Record<string, unknown>>, settings: GlobalSettings = DEFAULT_SETTINGS): ParsedIngress {
  return parseIngressFeatures(prefixed(annotations), PREFIX, INGRESS, settings);
}

/** The config an Ingress carries for feature `name` (its policy or its dynamic part), if any. */
export function ingressConfig<N extends FeatureName>(parsed: ParsedIngress, name: N): FeatureConfigs[N] | undefined {
  if (!parsed.ok) return undefined;
  const parts: Partial<FeatureConfigs> = { ...parsed.value.policy, ...parsed.value.dynamic };
  return parts[name];
}

/** The annotation's field as failures name it. */
export function annotationField(name: string, prefix = PREFIX): string {
  return `metadata.annotations[${prefix}/${name}]`;
}

/** The ConfigMap key's field as failures name it. */
export function configField(name: string): string {
  return `ConfigMap ${CONFIG_MAP_KEY}: data[${name}]`;
}

/** Each failure as `reason field`, with ` (warning)` for warnings: one string says what and where. */
export function described(failures: readonly Failure[]): string[] {
  return failures.map((failure) => `${failure.reason} ${failure.field}${failure.warning === true ? ' (warning)' : ''}`);
}

/** A message fit for a log line and an Event: one line, within the contract's 200 characters. */
export function assertReadable(failure: Failure | undefined): void {
  assert.ok(failure, 'a failure');
  assert.doesNotMatch(failure.message, /[\r\n]/u);
  assert.ok(failure.message.length <= 200, failure.message);
}

/** What one raw value gives. */
export interface ValueRow<C> {
  readonly name: string;
  /** An annotation or ConfigMap key of the feature, without the prefix. */
  readonly key: string;
  readonly value: unknown;
  /**
   * Accepted: the config fields it sets. `fail`: invalid, and the Ingress is not served
   * (InvalidAnnotation). `ignore`: invalid, a warning (IgnoredInvalidAnnotation) and the Ingress
   * keeps the default. `unsupported`: ingress-nginx takes it, this controller cannot honour it:
   * the Ingress is not served (InvalidAnnotation, "unsupported value"), even for a key whose
   * invalid values are ignored. A refused ConfigMap value keeps the default, with an
   * InvalidConfigMapValue failure (and serves no Ingress for a `failClosed` key).
   */
  readonly want: Partial<C> | 'fail' | 'ignore' | 'unsupported';
  /** Other annotations the row's Ingress carries (e.g. canary: "true"). */
  readonly with?: Readonly<Record<string, string>>;
  /** The fields `with` sets, and for `ignore` whatever else differs from the defaults. */
  readonly base?: Partial<C>;
}

/** The message starts `<kind> value "…" for <prefix>/<key>: ` (its end may be cut to the length bound). */
function assertSays(message: string | undefined, kind: 'invalid' | 'unsupported', key: string): void {
  const text = message ?? '';
  assert.ok(text.startsWith(`${kind} value `) && text.includes(` for ${PREFIX}/${key}: `), text);
}

function annotationRow<N extends FeatureName>(feature: Feature<N>, row: ValueRow<FeatureConfigs[N]>): void {
  const parsed = parseAnnotations({ ...row.with, [row.key]: row.value });
  const base = { ...feature.defaults, ...row.base };
  if (row.want === 'fail' || row.want === 'unsupported') {
    assert.equal(parsed.ok, false, 'the Ingress is refused');
    if (parsed.ok) return;
    assert.deepEqual(described(parsed.failures), [`InvalidAnnotation ${annotationField(row.key)}`]);
    assert.deepEqual(parsed.failures[0]?.ingress, INGRESS);
    assertReadable(parsed.failures[0]);
    assertSays(parsed.failures[0]?.message, row.want === 'fail' ? 'invalid' : 'unsupported', row.key);
    return;
  }
  assert.equal(parsed.ok, true, parsed.ok ? '' : described(parsed.failures).join('; '));
  if (!parsed.ok) return;
  if (row.want === 'ignore') {
    assert.deepEqual(described(parsed.warnings), [`IgnoredInvalidAnnotation ${annotationField(row.key)} (warning)`]);
    assertReadable(parsed.warnings[0]);
    assertSays(parsed.warnings[0]?.message, 'invalid', row.key);
    assert.deepEqual(ingressConfig(parsed, feature.name), base);
    return;
  }
  assert.deepEqual(parsed.warnings, []);
  assert.deepEqual(ingressConfig(parsed, feature.name), { ...base, ...row.want });
}

function configMapRow<N extends FeatureName>(feature: Feature<N>, row: ValueRow<FeatureConfigs[N]>): void {
  const read = readConfigMap({ [row.key]: row.value });
  // A refused value of a protective key (FeatureKey.failClosed) serves no Ingress.
  const failClosed = feature.keys.some((key) => key.configKey === row.key && key.failClosed === true);
  assert.equal(read.closed, typeof row.want === 'string' && failClosed);
  if (typeof row.want === 'string') {
    assert.deepEqual(described(read.failures), [`InvalidConfigMapValue ${configField(row.key)}`]);
    assert.equal(read.failures[0]?.ingress, null);
    assertReadable(read.failures[0]);
    assert.deepEqual(read.settings, DEFAULT_SETTINGS);
    return;
  }
  assert.deepEqual(read.failures, []);
  assert.deepEqual(read.settings, { ...DEFAULT_SETTINGS, [feature.name]: { ...feature.defaults, ...row.want } });
}

/**
 * One test per row and source the feature declares for `row.key`; an accepted value is also
 * shown not to reach the feature through the source that does not declare it.
 */
export function testValueRows<N extends FeatureName>(feature: Feature<N>, rows: readonly ValueRow<FeatureConfigs[N]>[]): void {
  for (const row of rows) {
    const annotation = feature.keys.some((key) => key.annotation?.name === row.key);
    const configKey = feature.keys.some((key) => key.configKey === row.key);
    if (!annotation && !configKey) throw new Error(`${row.key} is no key of ${feature.name}`);
    if (annotation) void it(`${row.name} (annotation)`, () => annotationRow(feature, row));
    if (configKey) void it(`${row.name} (ConfigMap)`, () => configMapRow(feature, row));
    if (typeof row.want === 'string') continue;
    if (!configKey) {
      void it(`${row.name}: the ConfigMap key of that name does not set it`, () => {
        assert.deepEqual(readConfigMap({ [row.key]: row.value }).settings[feature.name], feature.defaults);
      });
    }
    if (!annotation) {
      void it(`${row.name}: the annotation of that name does not set it`, () => {
        const parsed = parseAnnotations({ [row.key]: row.value });
        assert.equal(parsed.ok, true);
        assert.equal(ingressConfig(parsed, feature.name), undefined);
      });
    }
  }
}

/** A ConfigMap's global value with an Ingress's annotations over it. */
export interface OverrideRow<C> {
  readonly name: string;
  readonly configMap: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, unknown>>;
  /** The global config's fields the ConfigMap sets. */
  readonly global: Partial<C>;
  /** The fields the Ingress's config has over the global one; null: the Ingress carries none (the global applies). */
  readonly want: Partial<C> | null;
  /** Annotations whose invalid values are ignored with a warning: the global value stays. */
  readonly ignored?: readonly string[];
}

/** One test per row: readSettings, then parseIngressFeatures over its settings. */
export function testOverrideRows<N extends FeatureName>(feature: Feature<N>, rows: readonly OverrideRow<FeatureConfigs[N]>[]): void {
  for (const row of rows) {
    void it(row.name, () => {
      const read = readConfigMap(row.configMap);
      assert.deepEqual(read.failures, []);
      const global = { ...feature.defaults, ...row.global };
      assert.deepEqual(read.settings[feature.name], global);
      const parsed = parseAnnotations(row.annotations, read.settings);
      assert.equal(parsed.ok, true);
      if (!parsed.ok) return;
      assert.deepEqual(described(parsed.warnings), (row.ignored ?? []).map((name) => `IgnoredInvalidAnnotation ${annotationField(name)} (warning)`));
      assert.deepEqual(ingressConfig(parsed, feature.name), row.want === null ? undefined : { ...global, ...row.want });
    });
  }
}

/** The defaults every source starts from: no ConfigMap, an empty one, an Ingress without annotations. */
export function testDefaults<N extends FeatureName>(feature: Feature<N>, want: FeatureConfigs[N]): void {
  void it('defaults: ingress-nginx v1.15.1\'s', () => {
    assert.deepEqual(feature.defaults, want);
    assert.deepEqual(DEFAULT_SETTINGS[feature.name], want);
    assert.deepEqual(readSettings([], null).settings[feature.name], want);
    assert.deepEqual(readConfigMap({}).settings[feature.name], want);
    assert.deepEqual(parseAnnotations({}), { ok: true, value: { policy: {}, dynamic: {} }, warnings: [] });
  });
}
