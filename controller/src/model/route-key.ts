// A location's route key (Route.key): the `$resty_route` value the location
// renders and Lua reads once per request, and the key its dynamic policy
// (Model.routes) is found by. Built here, not in render, because the dynamic
// push names routes by it too.
//
// "<flags> <backend> <host> <namespace> <ingress> <service> <path>":
// - flags: `-`, or `r` (ssl-redirect by certificate), or `e` (the same for a
//   location with rewrite-target or upstream-vhost, answered through its error
//   page: the URI or Host it sends upstream is not the client's, and the
//   redirect fallback server redirects to what it receives; also for a location
//   whose use-port-in-redirects or preserve-trailing-slash differs from the
//   ConfigMap's, which the fallback server follows);
// - the last five are the per-request metrics' labels (`-` = none);
// - a `$` of a regex path is written as a backtick (never valid in a path) so
//   NGINX reads no variable.

import type { ServiceRef } from './backend-ref.ts';
import type { GlobalSettings, IngressRef, Policy } from './types.ts';

/** The flags field of a route with this policy. */
export function routeFlags(policy: Policy, settings: GlobalSettings): string {
  const redirect = policy.sslRedirect ?? settings.sslRedirect;
  // force-ssl-redirect is a static `return` in the location: nothing for Lua to decide.
  if (!redirect.redirect || redirect.force) return '-';
  const rewritten = (policy.rewrite ?? settings.rewrite).target !== null;
  const otherHost = (policy.upstreamHeaders ?? settings.upstreamHeaders).host !== null;
  const style = policy.redirect ?? settings.redirect;
  const otherStyle = style.usePort !== settings.redirect.usePort || style.preserveTrailingSlash !== settings.redirect.preserveTrailingSlash;
  return rewritten || otherHost || otherStyle ? 'e' : 'r';
}

/** Route.key of a location of `host` at `path`, owned by `ingress`, proxied to `backend` (named `backendName`). */
export function routeKey(
  flags: string, backendName: string, host: string, ingress: IngressRef | null, backend: ServiceRef, path: string,
): string {
  const namespace = ingress?.namespace ?? backend.namespace;
  return `${flags} ${backendName} ${host} ${namespace || '-'} ${ingress?.name || '-'} ${backend.service || '-'} ${path.replaceAll('$', '`')}`;
}
