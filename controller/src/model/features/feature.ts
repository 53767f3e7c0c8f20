// The contract of a feature module: an annotation family with its ConfigMap
// keys, declared in one place and parsed by one engine (parse.ts). Each key
// names the config field it sets and its strict value parser; the same parser
// reads the ConfigMap's global value and an Ingress's override, so the two
// can never disagree. A module adds what no single key can say in `finish`
// (canary-* are read together there). The registry (registry.ts) lists the
// modules in a fixed order; the builder, the diff (through the model parts
// dynamic features fill), the renderer, admission and the generated docs
// iterate it.

import type { Checked } from '../checked.ts';
import type { FeatureConfigs } from '../types.ts';

export type FeatureName = keyof FeatureConfigs;

/** The catalogue's scope (docs/annotations.md): the Ingress as a whole, or the paths of the Ingress that carries it. */
export type AnnotationScope = 'ingress' | 'location';

/** ingress-nginx's own risk rating of an annotation. */
export type AnnotationRisk = 'Low' | 'Medium' | 'High' | 'Critical';

/** A config under construction: the engine copies the base config and keys write into it. */
export type Draft<C> = { -readonly [K in keyof C]: C[K] };

/**
 * How a feature reaches NGINX:
 * - `location`: a static config per location (Location.policy), printed by the partial
 *   `template` (rootfs/etc/nginx/template/features/) — a change reloads;
 * - `global`: ConfigMap only, printed by the http-level templates — a change reloads;
 * - `lua`: DYNAMIC, pushed to Lua as data (Model.routes) and never a reload.
 */
export type FeatureOutput =
  | { readonly kind: 'location'; readonly template: string | null }
  | { readonly kind: 'global' }
  | { readonly kind: 'lua' };

/** One annotation and/or ConfigMap key of a feature. */
export interface FeatureKey<C> {
  /** The annotation (name without the prefix), when there is one. */
  readonly annotation?: { readonly name: string; readonly scope: AnnotationScope; readonly risk: AnnotationRisk };
  /** The ConfigMap key, when there is one (the same name as the annotation where ingress-nginx has both). */
  readonly configKey?: string;
  /** The default as a user writes it, for the docs. */
  readonly defaultText: string;
  /** One line for the docs. */
  readonly doc: string;
  /** Where this key behaves differently from ingress-nginx v1.15.1 (one line), if it does: the catalogue says "different". */
  readonly difference?: string;
  /**
   * What an invalid annotation value does, as in ingress-nginx v1.15.1: `fail` = the Ingress
   * is not served (its annotation validation refuses it), `ignore` = the key is ignored with a
   * warning and the default applies. A value ingress-nginx accepts but this controller does not
   * support (KeyRefusal.unsupported) always fails. An empty annotation never fails: ingress-nginx
   * validates no empty value and falls back to the default. A bad ConfigMap value keeps the
   * default (unless the key is `failClosed`).
   */
  readonly invalid: 'fail' | 'ignore';
  /**
   * The ConfigMap key asks for a protection (an allow or block list): a value it refuses serves
   * no Ingress (ControllerSettings.closed) instead of keeping the default, which protects nothing.
   */
  readonly failClosed?: boolean;
  /** The value is key material (ssl-session-ticket-key): a refusal's message never quotes it. */
  readonly secret?: boolean;
  /** Parses `raw` into `draft`; returns null, or why the value is refused. */
  set(draft: Draft<C>, raw: string): KeyRefusal | null;
}

/** Why a key's value was refused (one line), and whether ingress-nginx would have accepted it. */
export interface KeyRefusal {
  readonly reason: string;
  readonly unsupported: boolean;
}

/** One feature module. */
export interface Feature<N extends FeatureName = FeatureName> {
  readonly name: N;
  /** Heading of its section in docs/annotations.md. */
  readonly title: string;
  /** What it does and where it differs from ingress-nginx, for the docs (one paragraph). */
  readonly doc: string;
  readonly output: FeatureOutput;
  /** The config when neither the ConfigMap nor an annotation sets anything (ingress-nginx's defaults). */
  readonly defaults: FeatureConfigs[N];
  readonly keys: readonly FeatureKey<FeatureConfigs[N]>[];
  /**
   * Reads the keys together once each was parsed: the finished config or why the combination
   * is refused. `given` holds the annotation names the Ingress set. Absent: the config as parsed.
   */
  readonly finish?: (config: FeatureConfigs[N], given: ReadonlySet<string>) => Checked<FeatureConfigs[N]>;
  /** Test files (repository paths) that prove the feature works as documented: the catalogue names them. */
  readonly proof: readonly string[];
}

/** A key that sets one field of the config through `parse`. */
export function field<C, K extends keyof C>(
  name: K,
  parse: (raw: string) => Checked<C[K]>,
  declaration: Omit<FeatureKey<C>, 'set' | 'invalid'> & { readonly invalid?: 'fail' | 'ignore' },
): FeatureKey<C> {
  return {
    invalid: 'fail',
    ...declaration,
    set(draft, raw) {
      const parsed = parse(raw);
      if (!parsed.ok) return { reason: parsed.reason, unsupported: parsed.unsupported === true };
      draft[name] = parsed.value;
      return null;
    },
  };
}

/** Declares a feature; the result is frozen (modules are shared, never changed). */
export function defineFeature<N extends FeatureName>(feature: Feature<N>): Feature<N> {
  return Object.freeze({ ...feature, defaults: Object.freeze(feature.defaults), keys: Object.freeze([...feature.keys]) }) as Feature<N>;
}

/** A feature seen by the engine, which handles every config alike. */
export interface UntypedFeature {
  readonly keys: readonly FeatureKey<unknown>[];
  readonly finish?: (config: unknown, given: ReadonlySet<string>) => Checked<unknown>;
}

/** Any feature of the registry. */
export type AnyFeature = { [N in FeatureName]: Feature<N> }[FeatureName];
