// Custom error pages (model/features/custom-errors.ts) as the templates print
// them. A status goes, by `error_page`, to the named location
// `@custom_<error backend>_<code>` of its server: ingress-nginx's shape (its
// CUSTOM_ERRORS template), one per error backend and code in each server that
// needs it, deduplicated. The ConfigMap's codes are server-level directives in
// every public server, to --default-backend-service; an Ingress's codes are
// its locations' own (features/custom-errors.njk), to its default-backend,
// else the global one. With no error backend at all the named location
// answers 404 itself, as ingress-nginx's built-in default backend does.
// The names must be the ones the location partial prints: errorPageName() is
// the rule, custom-errors.njk repeats it, and `nginx -t` of the golden files
// refuses a page nobody defined.

import type { CustomErrorsConfig, GlobalSettings, Location } from '../model/types.ts';

/** The named location's infix when there is no error backend (a Backend.name always has two `-`). */
export const NO_ERROR_BACKEND = 'default';

/** One named error location of a server. */
export interface ErrorPageView {
  /** `@custom_<backend or "default">_<code>`. */
  readonly name: string;
  readonly code: number;
  /** Backend.name it proxies to, or null: NGINX answers 404. */
  readonly backend: string | null;
  /**
   * --default-backend-service's Backend.name when it is another one: Lua sends the page there
   * while `backend` has no endpoints (ingress-nginx uses a default-backend only while it has
   * some), and answers 404 when neither has.
   */
  readonly fallback: string | null;
}

/** The ConfigMap's error pages: server-level directives of every public server. */
export interface GlobalErrorPagesView {
  readonly codes: readonly number[];
  /** `proxy_intercept_errors on` (ConfigMap disable-proxy-intercept-errors false). */
  readonly intercept: boolean;
  /** The named locations' infix: --default-backend-service's Backend.name, or NO_ERROR_BACKEND. */
  readonly target: string;
}

/** The named location a status of this error backend goes to. */
export function errorPageName(backend: string | null, code: number): string {
  return `@custom_${backend ?? NO_ERROR_BACKEND}_${code}`;
}

function globalConfig(settings: GlobalSettings): CustomErrorsConfig | undefined {
  // Models written before the feature existed (golden fixtures) have no such settings.
  return (settings as Partial<GlobalSettings>).customErrors;
}

/** The ConfigMap's error pages, or null when it sets no codes. */
export function globalErrorPagesOf(settings: GlobalSettings): GlobalErrorPagesView | null {
  const global = globalConfig(settings);
  if (global === undefined || global.codes.length === 0) return null;
  return { codes: global.codes, intercept: !global.interceptDisabled, target: global.backend ?? NO_ERROR_BACKEND };
}

/** The named error locations one server needs, sorted by name: the ConfigMap's and those of its locations' own codes. */
export function errorPagesOf(locations: readonly Location[], settings: GlobalSettings): ErrorPageView[] {
  const global = globalConfig(settings);
  const globalBackend = global?.backend ?? null;
  const pages = new Map<string, ErrorPageView>();
  const add = (backend: string | null, codes: readonly number[]): void => {
    const fallback = globalBackend !== backend ? globalBackend : null;
    for (const code of codes) {
      const name = errorPageName(backend, code);
      if (!pages.has(name)) pages.set(name, { name, code, backend, fallback });
    }
  };
  if (global !== undefined) add(global.backend, global.codes);
  for (const location of locations) {
    const own = location.policy.customErrors;
    if (own !== undefined && own.codes.length > 0) add(own.backend ?? globalBackend, own.codes);
  }
  return [...pages.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
