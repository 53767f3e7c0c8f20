// Each annotation and ConfigMap key a user has, with its catalogue status and
// note (model/features/catalogue.ts). Whether it fails closed depends on the
// value, as in the builder (features/names.ts): `auth-url: ""`
// or `enable-modsecurity: "false"` asks for no protection and is served
// without it, so the note says so instead of the catalogue's "not served".

import { buildCatalogue, type CatalogueEntry } from '../model/features/catalogue.ts';
import type { FeatureKey } from '../model/features/feature.ts';
import { annotationStatus, configKeyStatus, type NameStatus as BuilderStatus } from '../model/features/names.ts';
import type { NameReport } from './report-types.ts';

const CATALOGUE = buildCatalogue();
const ANNOTATIONS: ReadonlyMap<string, CatalogueEntry> = new Map(CATALOGUE.annotations.map((entry) => [entry.name, entry]));
const CONFIG_KEYS: ReadonlyMap<string, CatalogueEntry> = new Map(CATALOGUE.configKeys.map((entry) => [entry.name, entry]));

const SNIPPET = 'refused: the Ingress is not served (ModSecurity and stream are not in this data plane)';
const UNKNOWN_ANNOTATION = 'not an annotation ingress-nginx v1.15.1 or resty-ingress knows (a typo?): ignored, the Ingress is served without it (Warning Event, admission warning, metric)';
const UNKNOWN_KEY = 'not a key ingress-nginx v1.15.1 or resty-ingress knows (a typo?): ignored with a Warning log line and a metric';
const SWITCHED_OFF_ANNOTATION = 'not supported yet; this value asks for no protection, so the Ingress is served without it (Warning Event, admission warning, metric)';
const SWITCHED_OFF_KEY = 'not supported yet; this value asks for no protection, so it is ignored with a Warning log line and a metric';

/** A name our features declare that ingress-nginx does not have (none today; the catalogue test keeps it so). */
function ownKeyNote(status: BuilderStatus, name: string, nameOf: (key: FeatureKey<unknown>) => string | undefined): string {
  if (status.kind !== 'feature') return '';
  const key = (status.feature.keys as readonly FeatureKey<unknown>[]).find((item) => nameOf(item) === name);
  return key?.doc ?? status.feature.title;
}

function fromCatalogue(name: string, entry: CatalogueEntry, failsClosed: boolean, switchedOff: string): NameReport {
  // The catalogue's note for a protective name assumes a value that asks for the protection.
  const note = entry.failsClosed && !failsClosed ? switchedOff : entry.note;
  return { name, status: entry.status, failsClosed, note };
}

/** The report of annotation `fullKey` (prefix included) whose name under the prefix is `name`. */
export function annotationReport(fullKey: string, name: string, value: unknown): NameReport {
  const status = annotationStatus(name, value);
  const failsClosed = status.kind === 'snippet' || (status.kind === 'unsupported' && status.protective);
  const entry = ANNOTATIONS.get(name);
  if (entry !== undefined) return fromCatalogue(fullKey, entry, failsClosed, SWITCHED_OFF_ANNOTATION);
  if (status.kind === 'feature') return { name: fullKey, status: 'supported', failsClosed, note: ownKeyNote(status, name, (key) => key.annotation?.name) };
  if (status.kind === 'snippet') return { name: fullKey, status: 'not-supported', failsClosed, note: SNIPPET };
  return { name: fullKey, status: 'unknown', failsClosed, note: UNKNOWN_ANNOTATION };
}

/** The report of ConfigMap key `name` with its value. */
export function configKeyReport(name: string, value: string): NameReport {
  const status = configKeyStatus(name, value);
  const failsClosed = status.kind === 'unsupported' && status.protective;
  const entry = CONFIG_KEYS.get(name);
  if (entry !== undefined) return fromCatalogue(name, entry, failsClosed, SWITCHED_OFF_KEY);
  if (status.kind === 'feature') return { name, status: 'supported', failsClosed, note: ownKeyNote(status, name, (key) => key.configKey) };
  if (status.kind === 'snippet') return { name, status: 'not-supported', failsClosed, note: 'not supported: ignored with a Warning log line and a metric (no such module in this data plane)' };
  return { name, status: 'unknown', failsClosed, note: UNKNOWN_KEY };
}
