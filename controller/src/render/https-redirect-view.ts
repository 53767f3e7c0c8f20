// How the HTTP → HTTPS redirect of a location is shaped, as ingress-nginx v1.15.1
// builds it (its lua_ingress.lua): `https://<host><uri>` where host is $host
// (never X-Forwarded-Host: forwarded headers are not trusted here), the URI
// loses one trailing `/` unless preserve-trailing-slash, and a port is named
// only with use-port-in-redirects (then the --https-port, even 443). The
// listener port is never guessed: behind a Service mapping 443 → 8443 a
// `:8443` sends clients to a port nobody listens on.
//
// One style per location (its redirect config); the shared https-redirect
// fallback server (http.njk) answers in the ConfigMap's style, so a location
// of another style redirects through its own named location (route flag `e`,
// model/route-key.ts; server.njk prints one per style its locations use:
// `@resty_unbalanced_https[_port][_slash]`).

import type { RedirectConfig } from '../model/types.ts';

/** What a location's HTTPS redirect prints. */
export interface HttpsRedirectStyle {
  /** The port named after the host (use-port-in-redirects: the --https-port), or null. */
  readonly port: number | null;
  /** Keep a trailing `/` of the URI ($request_uri; else the http-level map $resty_redirect_uri). */
  readonly preserve: boolean;
}

/** The style of `config` with the HTTPS listener on `httpsPort`. */
export function httpsRedirectStyle(config: Pick<RedirectConfig, 'usePort' | 'preserveTrailingSlash'>, httpsPort: number): HttpsRedirectStyle {
  return { port: config.usePort ? httpsPort : null, preserve: config.preserveTrailingSlash };
}

/** The distinct styles of `styles`, in first-seen order (the named locations of a server). */
export function distinctStyles(styles: readonly HttpsRedirectStyle[]): HttpsRedirectStyle[] {
  const seen = new Map<string, HttpsRedirectStyle>();
  for (const style of styles) {
    const key = `${style.port ?? ''}/${style.preserve}`;
    if (!seen.has(key)) seen.set(key, style);
  }
  return [...seen.values()];
}
