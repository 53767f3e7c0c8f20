// What the header settings (model/features/header-settings.ts) print:
// http {}'s underscores_in_headers, ignore_invalid_headers, server_tokens,
// proxy_hide_header and add_header lines (features/header-settings-http.njk),
// the proxy-set-headers at the end of the one request header list
// (proxy-headers.njk), and add-headers again wherever a location has an
// add_header of its own (NGINX inherits none into it: cors.njk,
// external-auth*.njk; features/add-headers.njk). Every name and value is
// checked again here: a hand-written or old model must not put text into
// nginx.conf that the model's reader would refuse.

import { headerValueProblem, isHeaderName } from '../model/header-configmaps.ts';
import type { HeaderSettings, Model } from '../model/types.ts';
import { RenderError } from './nginx-values.ts';

/** One header to print: its name and value as the model holds them (values are printed with `qheader`). */
export interface HeaderView {
  readonly name: string;
  readonly value: string;
}

/** The header settings as the templates read them. */
export interface HeaderSettingsView {
  /** proxy-set-headers, sorted by name: printed after the controller's own headers. */
  readonly proxySetHeaders: readonly HeaderView[];
  /** add-headers, sorted by name: `add_header ... always` in http {} and in every location with add_header lines. */
  readonly addHeaders: readonly HeaderView[];
  /** proxy_hide_header names: hide-headers, then every add-headers name not among them (ours replaces the backend's). */
  readonly hideHeaders: readonly string[];
  readonly underscoresInHeaders: boolean;
  readonly ignoreInvalidHeaders: boolean;
  readonly serverTokens: boolean;
}

const DEFAULTS: HeaderSettings = Object.freeze({
  proxySetHeadersConfigMap: null, addHeadersConfigMap: null, proxySetHeaders: [], addHeaders: [],
  hideHeaders: [], underscoresInHeaders: false, ignoreInvalidHeaders: true, serverTokens: false,
});

function headerName(name: unknown, where: string): string {
  if (typeof name !== 'string' || !isHeaderName(name)) throw new RenderError('UnsafeValue', `model: settings.headerSettings.${where}: not a header name`);
  return name;
}

function headersOf(pairs: unknown, where: string): HeaderView[] {
  if (!Array.isArray(pairs)) throw new RenderError('UnsafeValue', `model: settings.headerSettings.${where} must be an array`);
  return pairs.map((pair: unknown) => {
    if (!Array.isArray(pair) || pair.length !== 2) throw new RenderError('UnsafeValue', `model: settings.headerSettings.${where}: expected [name, value] pairs`);
    const name = headerName(pair[0], where);
    const problem = headerValueProblem(pair[1]);
    if (problem !== null) throw new RenderError('UnsafeValue', `model: settings.headerSettings.${where}: the value of ${name} ${problem}`);
    return { name, value: pair[1] as string };
  });
}

function flag(settings: HeaderSettings, key: 'underscoresInHeaders' | 'ignoreInvalidHeaders' | 'serverTokens'): boolean {
  const value = settings[key];
  if (typeof value !== 'boolean') throw new RenderError('UnsafeValue', `model: settings.headerSettings.${key} must be a boolean`);
  return value;
}

/** The view of `model.settings.headerSettings` (the defaults in a model from before the feature). */
export function headerSettingsViewOf(model: Model): HeaderSettingsView {
  const settings = model.settings?.headerSettings ?? DEFAULTS;
  const addHeaders = headersOf(settings.addHeaders, 'addHeaders');
  if (!Array.isArray(settings.hideHeaders)) throw new RenderError('UnsafeValue', 'model: settings.headerSettings.hideHeaders must be an array');
  const hideHeaders = settings.hideHeaders.map((name: unknown) => headerName(name, 'hideHeaders'));
  const hidden = new Set(hideHeaders.map((name) => name.toLowerCase()));
  for (const { name } of addHeaders) {
    if (hidden.has(name.toLowerCase())) continue;
    hidden.add(name.toLowerCase());
    hideHeaders.push(name);
  }
  return {
    proxySetHeaders: headersOf(settings.proxySetHeaders, 'proxySetHeaders'),
    addHeaders,
    hideHeaders,
    underscoresInHeaders: flag(settings, 'underscoresInHeaders'),
    ignoreInvalidHeaders: flag(settings, 'ignoreInvalidHeaders'),
    serverTokens: flag(settings, 'serverTokens'),
  };
}

/**
 * A header value as an NGINX double-quoted string (the `qheader` filter): `""` for an empty one
 * (proxy_set_header then sends nothing), `;` and braces kept (Content-Security-Policy values need
 * them; inside quotes they are text), `$` only as a variable NGINX knows. Throws RenderError on
 * anything headerValueProblem refuses.
 */
export function quoteHeaderValue(value: unknown): string {
  const problem = headerValueProblem(value);
  if (problem !== null) throw new RenderError('UnsafeValue', `header value: it ${problem}`);
  return `"${value as string}"`;
}
