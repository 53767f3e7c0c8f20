// The catalogue: every ingress-nginx v1.15.1 annotation, ConfigMap key and
// controller flag (flag-statuses.ts) with exactly one status, built from the registry (what the features declare) and
// names.ts (what the builder does with the rest):
// - supported: same behaviour; names the tests that prove it;
// - different: supported, with the documented difference;
// - ignored: accepted and ignored because harmless here (says why);
// - not-supported: reported — an annotation that asks for protection makes
//   its Ingress not served (fail closed), any other is a warning.
// docs/annotations.md, docs/configmap.md, docs/flags.md and docs/catalogue.json are
// generated from it (scripts/generate-docs.ts) and checked for staleness.

import type { AnyFeature, FeatureKey } from './feature.ts';
import { buildFlagCatalogue } from './flag-statuses.ts';
import { INGRESS_NGINX_ANNOTATIONS, INGRESS_NGINX_CONFIG_KEYS } from './ingress-nginx-names.ts';
import { annotationStatus, configKeyStatus, SET, UNSUPPORTED_CONFIG_KEY_REASONS } from './names.ts';
import { FEATURES } from './registry.ts';

export type CatalogueStatus = 'supported' | 'different' | 'ignored' | 'not-supported';

/** One name and what resty-ingress does with it. */
export interface CatalogueEntry {
  readonly name: string;
  readonly status: CatalogueStatus;
  /** The feature module that parses it (supported and different only). */
  readonly feature: string | null;
  /** supported: what it does; different: the difference; ignored: why; not-supported: what happens instead. */
  readonly note: string;
  /** Test files that prove a supported name (empty otherwise). */
  readonly proof: readonly string[];
  /** ingress-nginx's scope and risk (annotations only), or null. */
  readonly scope: string | null;
  readonly risk: string | null;
  /** ingress-nginx's default (ConfigMap keys only), or null. */
  readonly default: string | null;
  /** An Ingress or ConfigMap asking for it is not served while it is not supported. */
  readonly failsClosed: boolean;
}

export interface Catalogue {
  readonly annotations: readonly CatalogueEntry[];
  readonly configKeys: readonly CatalogueEntry[];
  /** Controller flags: not-supported ones are refused at start (failsClosed), unless at ingress-nginx's default. */
  readonly flags: readonly CatalogueEntry[];
}

interface Declared {
  readonly feature: AnyFeature;
  readonly key: FeatureKey<unknown>;
}

function declared(nameOf: (key: FeatureKey<unknown>) => string | undefined): ReadonlyMap<string, Declared> {
  const found = new Map<string, Declared>();
  for (const feature of FEATURES) {
    for (const key of feature.keys as readonly FeatureKey<unknown>[]) {
      const name = nameOf(key);
      if (name !== undefined) found.set(name, { feature, key });
    }
  }
  return found;
}

function supportedEntry(name: string, { feature, key }: Declared): Pick<CatalogueEntry, 'status' | 'feature' | 'note' | 'proof' | 'failsClosed'> {
  return key.difference === undefined
    ? { status: 'supported', feature: feature.name, note: key.doc, proof: feature.proof, failsClosed: false }
    : { status: 'different', feature: feature.name, note: `${key.doc} Difference: ${key.difference}.`, proof: feature.proof, failsClosed: false };
}

const NOT_SERVED = 'not supported yet: an Ingress asking for it is not served (fails closed, Warning Event, admission denial)';
const SERVED_WITHOUT = 'not supported yet: the Ingress is served without it (Warning Event, admission warning, metric)';
const SNIPPET = 'refused: the Ingress is not served (ModSecurity and stream are not in this data plane)';

/** The catalogue of annotations, ConfigMap keys and flags, in ingress-nginx's name order. */
export function buildCatalogue(): Catalogue {
  const byAnnotation = declared((key) => key.annotation?.name);
  const byConfigKey = declared((key) => key.configKey);
  const annotations = INGRESS_NGINX_ANNOTATIONS.map((item): CatalogueEntry => {
    const base = { name: item.name, scope: item.scope, risk: item.risk, default: null, proof: [] };
    const own = byAnnotation.get(item.name);
    if (own !== undefined) return { ...base, ...supportedEntry(item.name, own) };
    const status = annotationStatus(item.name, SET);
    if (status.kind === 'harmless') return { ...base, status: 'ignored', feature: null, note: status.why, failsClosed: false };
    if (status.kind === 'snippet') return { ...base, status: 'not-supported', feature: null, note: SNIPPET, failsClosed: true };
    const closed = status.kind === 'unsupported' && status.protective;
    return { ...base, status: 'not-supported', feature: null, note: closed ? NOT_SERVED : SERVED_WITHOUT, failsClosed: closed };
  });
  const configKeys = INGRESS_NGINX_CONFIG_KEYS.map((item): CatalogueEntry => {
    const base = { name: item.name, scope: null, risk: null, default: item.default, proof: [] };
    const own = byConfigKey.get(item.name);
    if (own !== undefined) return { ...base, ...supportedEntry(item.name, own) };
    const status = configKeyStatus(item.name, SET);
    if (status.kind === 'harmless') return { ...base, status: 'ignored', feature: null, note: status.why, failsClosed: false };
    const closed = status.kind === 'unsupported' && status.protective;
    const reason = UNSUPPORTED_CONFIG_KEY_REASONS[item.name];
    const note = closed
      ? 'not supported yet: while it is set, no Ingress is served (fails closed, Warning log and metric)'
      : reason === undefined ? 'not supported yet: ignored with a Warning log line and a metric' : `not supported (${reason}): ignored with a Warning log line and a metric`;
    return { ...base, status: 'not-supported', feature: null, note, failsClosed: closed };
  });
  return { annotations, configKeys, flags: buildFlagCatalogue() };
}

/** Names our features declare that ingress-nginx v1.15.1 does not have (the catalogue test wants none unlisted). */
export function ownNames(): { readonly annotations: readonly string[]; readonly configKeys: readonly string[] } {
  const known = (list: readonly { readonly name: string }[]): ReadonlySet<string> => new Set(list.map((item) => item.name));
  const annotationNames = known(INGRESS_NGINX_ANNOTATIONS);
  const keyNames = known(INGRESS_NGINX_CONFIG_KEYS);
  return {
    annotations: [...declared((key) => key.annotation?.name).keys()].filter((name) => !annotationNames.has(name)),
    configKeys: [...declared((key) => key.configKey).keys()].filter((name) => !keyNames.has(name)),
  };
}
