// from-to-www-redirect per host, as ingress-nginx v1.15.1 builds its redirect
// servers (pkg/util/ingress BuildRedirects): a host any of whose locations has
// the annotation gets a server for its twin (`www.<host>`, or `<host>` without
// `www.` for a www host) that redirects every request to the host; no twin when
// a server of that name exists (a Warning names it; ingress-nginx logs it), nor
// for the catch-all or a wildcard host. Its HTTPS side needs a certificate for
// the twin: the Ingress's own certificate serves it when it names the twin
// (twinHosts: the twin counts as a rule host for tls-hosts.ts, as ingress-nginx
// takes the server's certificate when it is valid for the twin).

import { makeWarning } from './failure.ts';
import { CATCH_ALL_HOST } from './names.ts';
import type { Failure, Server } from './types.ts';

/** The www / bare twin of `host`, or null (catch-all, wildcard, a bare `www.`). */
export function twinOf(host: string): string | null {
  if (host === CATCH_ALL_HOST || host.startsWith('*')) return null;
  if (host.startsWith('www.')) {
    const bare = host.slice(4);
    return bare.length > 0 ? bare : null;
  }
  return `www.${host}`;
}

/** `hosts` and their twins (for the certificates an Ingress with from-to-www-redirect may serve). */
export function twinHosts(hosts: readonly string[]): string[] {
  const all = new Set(hosts);
  for (const host of hosts) {
    const twin = twinOf(host);
    if (twin !== null) all.add(twin);
  }
  return [...all];
}

/** Marks the servers that get a twin redirecting to them (Server.wwwRedirectFrom). */
export function applyWwwRedirects(servers: readonly Server[]): { servers: readonly Server[]; failures: Failure[] } {
  const names = new Set<string>();
  for (const server of servers) {
    names.add(server.hostname);
    for (const alias of server.aliases ?? []) names.add(alias);
  }
  const failures: Failure[] = [];
  const taken = new Set<string>();
  const marked = servers.map((server) => {
    const asking = server.locations.find((location) => location.policy.redirect?.fromToWww === true);
    if (asking === undefined) return server;
    const twin = twinOf(server.hostname);
    if (twin === null || taken.has(twin)) return server;
    if (names.has(twin)) {
      failures.push(makeWarning(asking.ingress, 'WwwRedirectSkipped', 'metadata.annotations',
        `from-to-www-redirect: ${twin} is served by its own rules (a host or an alias); no redirect from it to ${server.hostname}`));
      return server;
    }
    taken.add(twin);
    return { ...server, wwwRedirectFrom: twin };
  });
  return { servers: marked, failures };
}
