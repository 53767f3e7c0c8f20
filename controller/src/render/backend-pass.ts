// How a proxied location speaks to its backend (backend-protocol) and with
// which TLS material (proxy-ssl-*): decided here, printed by location.njk and
// the partials features/backend-protocol.njk and features/proxy-ssl.njk.
// Every protocol goes through the one balancer upstream; only the module
// changes (ingress-nginx's buildProxyPass): proxy_pass http(s)://, or
// $scheme:// for AUTO_HTTP (NGINX finds the upstream by the name at run time),
// grpc_pass grpc(s)://, fastcgi_pass.

import { splitObjectReference } from '../model/features/object-ref.ts';
import { createHash } from 'node:crypto';
import { type BackendTlsFiles } from '../model/backend-tls.ts';
import type { BackendProtocol, Location, ProxySslConfig, Server } from '../model/types.ts';

export type { BackendTlsFiles } from '../model/backend-tls.ts';

/** The module a location proxies with and its pass directive. */
export interface BackendPass {
  /** The prefix of the module's directives: proxy_…, grpc_… or fastcgi_… */
  readonly module: 'proxy' | 'grpc' | 'fastcgi';
  /** e.g. `grpc_pass grpcs://upstream_balancer` (the `;` is the template's). */
  readonly directive: string;
  /** TLS to the backend is possible (HTTPS, GRPCS, AUTO_HTTP): SNI and proxy-ssl-* apply. */
  readonly tls: boolean;
}

/** The one balancer upstream every location passes to, unless its TLS policy has its own (tlsUpstreamOf). */
export const BALANCER_UPSTREAM = 'upstream_balancer';

const PASSES: Readonly<Record<BackendProtocol, BackendPass>> = Object.freeze({
  HTTP: { module: 'proxy', directive: 'proxy_pass http://upstream_balancer', tls: false },
  HTTPS: { module: 'proxy', directive: 'proxy_pass https://upstream_balancer', tls: true },
  AUTO_HTTP: { module: 'proxy', directive: 'proxy_pass $scheme://upstream_balancer', tls: true },
  GRPC: { module: 'grpc', directive: 'grpc_pass grpc://upstream_balancer', tls: false },
  GRPCS: { module: 'grpc', directive: 'grpc_pass grpcs://upstream_balancer', tls: true },
  FCGI: { module: 'fastcgi', directive: 'fastcgi_pass upstream_balancer', tls: false },
});

/** The pass of `protocol`, to `upstream` (default the balancer upstream). */
export function backendPassOf(protocol: BackendProtocol, upstream: string = BALANCER_UPSTREAM): BackendPass {
  const pass = PASSES[protocol];
  if (pass === undefined) throw new Error(`unknown backend protocol ${JSON.stringify(protocol)}`);
  return upstream === BALANCER_UPSTREAM ? pass : { ...pass, directive: pass.directive.replace(BALANCER_UPSTREAM, upstream) };
}

/**
 * The upstream of a location with a usable proxy-ssl-secret: one per distinct TLS policy (the
 * Secret's files and every proxy-ssl-* value), each with the balancer and its own keepalive.
 * NGINX matches a cached upstream connection by address alone: in the one shared upstream, a
 * connection opened with one Ingress's client certificate would carry another Ingress's
 * requests to the same pod, and a location with proxy-ssl-verify on could reuse a connection
 * that was never verified. Null for every other location (the shared balancer upstream), also
 * for one whose protocol speaks no TLS (HTTP, GRPC, FCGI: the Secret changes nothing there).
 */
export function tlsUpstreamOf(location: Location, files: BackendTlsFiles | 'denied' | null, protocol: BackendProtocol): string | null {
  const config = location.policy.proxySsl;
  if (config === undefined || files === null || files === 'denied' || !backendPassOf(protocol).tls) return null;
  const policy = JSON.stringify([files.ca, files.certificate, config.verify, config.verifyDepth, config.name, config.serverName, config.protocols, config.ciphers]);
  return `${BALANCER_UPSTREAM}_tls_${createHash('sha256').update(policy).digest('hex').slice(0, 12)}`;
}

/** Every TLS-policy upstream the locations of `servers` pass to, sorted (http.njk renders one upstream each). */
export function tlsUpstreams(
  servers: readonly Server[], files: ReadonlyMap<string, BackendTlsFiles> | undefined, allowCrossNamespace: boolean, defaultProtocol: BackendProtocol,
): string[] {
  if (files === undefined || files.size === 0) return [];
  const names = new Set<string>();
  const seen = new Set<object>();
  for (const server of servers) {
    for (const location of server.locations) {
      if (location.policy.proxySsl === undefined || location.route.kind !== 'backend' || seen.has(location.policy)) continue;
      seen.add(location.policy);
      const protocol = location.policy.backendProtocol?.protocol ?? defaultProtocol;
      const upstream = tlsUpstreamOf(location, backendTlsOf(location, files, allowCrossNamespace), protocol);
      if (upstream !== null) names.add(upstream);
    }
  }
  return [...names].sort();
}

/** The proxy-ssl files of `location`: null without a Secret, `denied` when its Secret is unusable or (unless allowed) not of its namespace. */
export function backendTlsOf(location: Location, files: ReadonlyMap<string, BackendTlsFiles> | undefined, allowCrossNamespace: boolean): BackendTlsFiles | 'denied' | null {
  const config: ProxySslConfig | undefined = location.policy.proxySsl;
  if (config === undefined || config.secret === null) return null;
  const namespace = location.ingress?.namespace;
  if (namespace === undefined || (!allowCrossNamespace && splitObjectReference(config.secret, namespace).namespace !== namespace)) return 'denied';
  return files?.get(config.secret) ?? 'denied';
}

/** SNI towards a TLS backend: whether it is sent and the name sent and checked. */
export interface SniView {
  readonly on: boolean;
  /** A validated host name or `$host`/`$proxy_host`. */
  readonly name: string;
}

/**
 * SNI of a location whose pass can speak TLS: the request host by default (without a name
 * NGINX would send and check "upstream_balancer"); proxy-ssl-name and -server-name change it,
 * as in ingress-nginx, only with a proxy-ssl-secret. Null for a pass without TLS.
 */
export function sniOf(pass: BackendPass, config: ProxySslConfig | undefined): SniView | null {
  if (!pass.tls) return null;
  const own = config !== undefined && config.secret !== null ? config : null;
  return { on: own?.serverName ?? true, name: own?.name ?? '$host' };
}
