// One Ingress on its own → what the build places: its names checked, its
// annotations parsed, its rules translated, its spec.defaultBackend and
// spec.tls read. Everything here depends only on the Ingress object, the
// annotation prefix and the annotation defaults (the ConfigMap), never on
// other Ingresses or on the Ingress's rank, so a long-lived builder keeps
// the result per Ingress object and reuses it while the object is the same.
//
// Why: informer objects are deep-frozen and shared by every snapshot (kube/
// store.ts), so "same object" means "unchanged". At 10k Ingresses this work
// was about a quarter of a rebuild, redone for 9,999 unchanged Ingresses on
// each event; reusing it also hands the diff the same Location objects,
// which fast-deep-equal accepts by identity instead of walking them.

import type { V1Ingress } from '@kubernetes/client-node';
import { checkIngressBackend, type ServiceRef } from './backend-ref.ts';
import { ingressRefOf, makeFailure, quoteValue } from './failure.ts';
import { parseIngressFeatures, type IngressFeatures } from './features/parse.ts';
import { deniedPaths } from './denied-paths.ts';
import { translateRules, type LocationCandidate } from './ingress-rules.ts';
import { checkIngressSize } from './ingress-size.ts';
import { checkNamespace, checkObjectName } from './names.ts';
import { readIngressTls, type IngressTls } from './tls-hosts.ts';
import type { Failure, GlobalSettings, IngressRef } from './types.ts';

/**
 * One Ingress translated. A long-lived builder keeps one per Ingress (10k in
 * a large cluster), so it holds only what the build places and nothing the
 * model already holds twice; empty lists are the shared NONE.
 */
export interface IngressTranslation {
  readonly ref: IngressRef;
  /** Its feature configs; null when a bad name or annotation skips the whole Ingress (see `failures`). */
  readonly features: IngressFeatures | null;
  /** Every valid rule host (see RuleTranslation.hosts). */
  readonly hosts: readonly string[];
  /** Its paths; with `features` null, the paths that answer 503 because it asked for a protection (denied-paths.ts), else none. */
  readonly candidates: readonly LocationCandidate[];
  /** Why the Ingress is skipped, or its warnings and refused rules and paths: reported before its locations are placed. */
  readonly failures: readonly Failure[];
  /** Its validated spec.defaultBackend, or null (absent or refused). */
  readonly defaultBackend: ServiceRef | null;
  /** Its spec.tls, or null when it has no entries. */
  readonly tls: IngressTls | null;
  /** A refused spec.defaultBackend, then refused spec.tls entries: reported after its locations are placed. */
  readonly lateFailures: readonly Failure[];
}

const NONE: readonly never[] = Object.freeze([]);

function listOrNone<T>(items: readonly T[]): readonly T[] {
  return items.length === 0 ? NONE : items;
}

function refused(ref: IngressRef, failures: readonly Failure[]): IngressTranslation {
  return { ref, features: null, hosts: NONE, candidates: NONE, failures, defaultBackend: null, tls: null, lateFailures: NONE };
}

function translateDefaultBackend(ingress: V1Ingress, ref: IngressRef): { backend: ServiceRef | null; failures: Failure[] } {
  const spec = ingress.spec?.defaultBackend;
  if (spec === undefined || spec === null) return { backend: null, failures: [] };
  const checked = checkIngressBackend(spec, ref.namespace);
  if (checked.ok) return { backend: checked.value, failures: [] };
  return { backend: null, failures: [makeFailure(ref, 'InvalidBackend', 'spec.defaultBackend', `default backend refused: ${checked.reason}`)] };
}

/** Translates one Ingress. Pure. */
export function translateIngress(ingress: V1Ingress, annotationsPrefix: string, settings: GlobalSettings): IngressTranslation {
  const ref = ingressRefOf(ingress);
  if (!checkNamespace(ref.namespace).ok || !checkObjectName(ref.name).ok) {
    return refused(ref, [makeFailure(ref, 'InvalidName', 'metadata',
      `Ingress ${quoteValue(`${ref.namespace}/${ref.name}`)} has an invalid namespace or name; skipped`)]);
  }
  const tooLarge = checkIngressSize(ingress.spec, ref);
  if (tooLarge !== null) return refused(ref, [tooLarge]);
  const parsed = parseIngressFeatures(ingress.metadata?.annotations, annotationsPrefix, ref, settings);
  if (!parsed.ok) {
    const denied = deniedPaths(ingress, ref, annotationsPrefix, settings);
    return { ...refused(ref, [...parsed.failures, ...denied.warnings]), hosts: listOrNone(denied.hosts), candidates: listOrNone(denied.candidates) };
  }
  const rules = translateRules(ingress, ref, parsed.value, settings);
  const defaultBackend = translateDefaultBackend(ingress, ref);
  const tls = readIngressTls(ingress, ref, rules.hosts);
  return {
    ref, features: parsed.value, hosts: rules.hosts, candidates: rules.candidates, failures: listOrNone([...parsed.warnings, ...rules.failures]),
    defaultBackend: defaultBackend.backend,
    tls: tls.tls.entries.length > 0 ? tls.tls : null,
    lateFailures: listOrNone([...defaultBackend.failures, ...tls.failures]),
  };
}

/**
 * Translations of the Ingress objects seen by the last builds, valid for
 * one annotation prefix + global settings (a ConfigMap change drops them all).
 * Entries go with their Ingress objects (a WeakMap): nothing to evict.
 */
export class TranslationCache {
  #context: { readonly key: string; readonly prefix: string; readonly settings: GlobalSettings } | null = null;
  #byIngress = new WeakMap<V1Ingress, IngressTranslation>();

  /** Starts a build: forgets every translation when the prefix or the settings differ from the last build's. */
  useContext(annotationsPrefix: string, settings: GlobalSettings): void {
    // Once per build; the settings are built in a fixed key order.
    const key = `${annotationsPrefix}\n${JSON.stringify(settings)}`;
    if (key !== this.#context?.key) this.#byIngress = new WeakMap();
    this.#context = { key, prefix: annotationsPrefix, settings };
  }

  /** The translation of `ingress` under the build's context (useContext), reused when already made. */
  translate(ingress: V1Ingress): IngressTranslation {
    const context = this.#context;
    if (context === null) throw new Error('TranslationCache: useContext() before translate()');
    // Garbage (null) cannot key a WeakMap; it is translated (into a failure) every time.
    if (typeof ingress !== 'object' || ingress === null) return translateIngress(ingress, context.prefix, context.settings);
    const cached = this.#byIngress.get(ingress);
    if (cached !== undefined) return cached;
    const translation = translateIngress(ingress, context.prefix, context.settings);
    // A regex path not checked for want of time is checked again on the next build.
    if (!translation.failures.some((failure) => failure.reason === 'RegexNotChecked')) this.#byIngress.set(ingress, translation);
    return translation;
  }
}
