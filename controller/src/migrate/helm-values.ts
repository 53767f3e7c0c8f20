// What an ingress-nginx Helm values file says about serving, read as
// resty-ingress's chart reads the same values: controller.config is the whole
// ConfigMap (the chart renders each key with its value as a string),
// controller.extraArgs are flags (`--name=value`, bare when empty) that the
// controller must accept or it does not start (ingress-nginx's flags it has
// none for are accepted with a warning or refused: docs/flags.md), and the class values select
// the Ingresses. Nothing else is read: the rest (image, resources, Service, …)
// does not decide what is served, and the ConfigMap keys ingress-nginx's chart
// derives from other values are named in a note instead of guessed.

import { parseDocument } from 'yaml';
import { hasFlag, parseOptions } from '../cli/index.ts';
import { CommandLineExit } from '../cli/command-line-exit.ts';
import { FLAG_STATUSES } from '../model/features/flag-statuses.ts';
import { INGRESS_NGINX_FLAGS } from '../model/features/ingress-nginx-flags.ts';
import { ManifestError } from './manifests.ts';
import { streamValueNotes } from './helm-stream-values.ts';
import type { Selection } from './options.ts';
import type { FlagReport } from './report-types.ts';

/** The ConfigMap key the report names the Helm values' controller.config by. */
export const HELM_CONFIG_MAP_KEY = 'helm-values/controller.config';

export interface HelmValues {
  /** controller.config as ConfigMap data. */
  readonly config: Readonly<Record<string, string>>;
  readonly extraArgs: readonly { readonly name: string; readonly value: string }[];
  readonly selection: Partial<Selection>;
  readonly notes: readonly string[];
}

/** Values both charts turn into ConfigMap keys that this report does not derive (it has no release name), said in a note. */
const DERIVED_KEYS: readonly { readonly path: readonly string[]; readonly note: string }[] = [
  { path: ['controller', 'addHeaders'], note: 'controller.addHeaders: the chart renders these headers as the ConfigMap <release>-custom-add-headers named in the key add-headers; this report does not check them' },
  { path: ['controller', 'proxySetHeaders'], note: 'controller.proxySetHeaders: the chart renders these headers as the ConfigMap <release>-custom-proxy-headers named in the key proxy-set-headers; this report does not check them' },
  { path: ['dhParam'], note: 'dhParam is not read by this chart: put the parameters in a Secret\'s dhparam.pem and name it in the ConfigMap\'s ssl-dh-param' },
];

const READ_NOTE = 'Helm values: read controller.config (the ConfigMap), controller.allowSnippetAnnotations, controller.extraArgs (flags), tcp and udp (TCP/UDP services), controller.ingressClass, controller.ingressClassResource.controllerValue and controller.watchIngressWithoutClass; other values do not decide what is served';

function at(values: unknown, path: readonly string[]): unknown {
  let value = values;
  for (const key of path) value = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

function scalarText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

function entries(value: unknown): [string, unknown][] {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : [];
}

/** Reads a values file's text; throws ManifestError on a YAML error. */
export function readHelmValues(text: string, file: string): HelmValues {
  const document = parseDocument(text);
  const error = document.errors[0];
  if (error !== undefined) throw new ManifestError(file, error.message.split('\n')[0] ?? 'YAML error');
  const values: unknown = document.toJS();
  const notes = [READ_NOTE];
  const config: Record<string, string> = {};
  for (const [key, value] of entries(at(values, ['controller', 'config']))) {
    const text = scalarText(value);
    if (text === null) notes.push(`controller.config.${key} is left out: not a string, number or boolean`);
    else config[key] = text;
  }
  const extraArgs = entries(at(values, ['controller', 'extraArgs'])).map(([name, value]) => ({ name, value: scalarText(value) ?? '' }));
  const selection: { -readonly [K in keyof Selection]?: Selection[K] } = {};
  const ingressClass = at(values, ['controller', 'ingressClass']);
  if (typeof ingressClass === 'string' && ingressClass !== '') selection.ingressClass = ingressClass;
  const controllerClass = at(values, ['controller', 'ingressClassResource', 'controllerValue']);
  if (typeof controllerClass === 'string' && controllerClass !== '') selection.controllerClass = controllerClass;
  const withoutClass = at(values, ['controller', 'watchIngressWithoutClass']);
  if (typeof withoutClass === 'boolean') selection.watchIngressWithoutClass = withoutClass;
  // As the chart does: controller.allowSnippetAnnotations sets the key unless controller.config sets it.
  if (at(values, ['controller', 'allowSnippetAnnotations']) === true && !('allow-snippet-annotations' in config)) {
    config['allow-snippet-annotations'] = 'true';
    notes.push('controller.allowSnippetAnnotations: allow-snippet-annotations "true" in the ConfigMap, as the chart sets it (snippets also need annotations-risk-level Critical)');
  }
  for (const derived of DERIVED_KEYS) {
    const value = at(values, derived.path);
    if (value !== undefined && value !== null && value !== false && value !== '' && !(typeof value === 'object' && Object.keys(value).length === 0)) notes.push(derived.note);
  }
  notes.push(...streamValueNotes(values));
  return { config, extraArgs, selection, notes };
}

/**
 * Checks one extraArgs flag with the controller's own parser (the chart renders `--name=value`, or
 * `--name` when empty), which also applies the ingress-nginx flag statuses (model/features/flag-statuses.ts).
 */
export function checkFlag(name: string, value: string): FlagReport {
  const ingressNginx = INGRESS_NGINX_FLAGS.some((flag) => flag.name === name);
  if (!hasFlag(name) && !ingressNginx) {
    return { name, value, status: 'unknown', note: 'neither ingress-nginx v1.15.1 nor resty-ingress has this flag: the controller would refuse to start (exit 2)' };
  }
  try {
    const notice = parseOptions([value === '' ? `--${name}` : `--${name}=${value}`]).flagNotices[0];
    if (notice === undefined) return { name, value, status: 'supported', note: 'accepted by resty-ingress' };
    return { name, value, status: notice.level === 'warn' ? 'ignored' : 'supported', note: notice.message };
  } catch (err) {
    if (!(err instanceof CommandLineExit)) throw err;
    const message = err.output.trim().replace(/^error: /, '');
    return FLAG_STATUSES[name]?.kind === 'refused' && message.includes(' is not supported: ')
      ? { name, value, status: 'not-supported', note: `the controller would not start (exit 2): ${message}` }
      : { name, value, status: 'invalid-value', note: `the controller refuses it and would not start: ${message}` };
  }
}
