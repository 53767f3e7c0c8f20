// The feature registry: every feature module in a fixed order. The builder
// parses them in this order, the renderer prints the location partials in
// this order, and the catalogue and docs list them in it.

import { accessControlFeature } from './access-control.ts';
import { accessLogFeature } from './access-log.ts';
import { gzipFeature } from './gzip.ts';
import { hashSizesFeature } from './hash-sizes.ts';
import { http2Feature } from './http2.ts';
import { streamProxyFeature } from './stream-proxy.ts';
import { tlsSessionFeature } from './tls-session.ts';
import { workersFeature } from './workers.ts';
import { affinityFeature } from './affinity.ts';
import { backendProtocolFeature } from './backend-protocol.ts';
import { basicAuthFeature } from './basic-auth.ts';
import { canaryFeature } from './canary.ts';
import { clientAddressFeature } from './client-address.ts';
import { clientCertsFeature } from './client-certs.ts';
import { crossNamespaceFeature } from './cross-namespace.ts';
import { fastcgiFeature } from './fastcgi.ts';
import { proxySslFeature } from './proxy-ssl.ts';
import { corsFeature } from './cors.ts';
import { customErrorsFeature } from './custom-errors.ts';
import { externalAuthFeature } from './external-auth.ts';
import type { AnyFeature, FeatureName } from './feature.ts';
import { loadBalanceFeature } from './load-balance.ts';
import { mirrorFeature } from './mirror.ts';
import { nextUpstreamFeature } from './next-upstream.ts';
import { proxyFeature } from './proxy.ts';
import { proxyBuffersFeature } from './proxy-buffers.ts';
import { proxyRewritesFeature } from './proxy-rewrites.ts';
import { clientConnectionsFeature } from './client-connections.ts';
import { connectionHeaderFeature } from './connection-header.ts';
import { rateLimitFeature } from './rate-limit.ts';
import { redirectFeature } from './redirect.ts';
import { satisfyFeature } from './satisfy.ts';
import { rewriteFeature } from './rewrite.ts';
import { safetyFeature } from './safety.ts';
import { serviceUpstreamFeature } from './service-upstream.ts';
import { serverAliasFeature } from './server-alias.ts';
import { sslPassthroughFeature } from './ssl-passthrough.ts';
import { snippetsFeature } from './snippets.ts';
import { sslRedirectFeature } from './ssl-redirect.ts';
import { tlsSettingsFeature } from './tls-settings.ts';
import { upstreamHashFeature } from './upstream-hash.ts';
import { upstreamHeadersFeature } from './upstream-headers.ts';
import { headerSettingsFeature } from './header-settings.ts';

export const FEATURES: readonly AnyFeature[] = Object.freeze([
  // First: its `return` answers before force-ssl-redirect's, as ingress-nginx's template `return` precedes its Lua redirect.
  redirectFeature,
  sslRedirectFeature,
  // Before rewrite: its `rewrite ... break` ends the rewrite-phase directives, and CORS answers preflights there.
  accessControlFeature,
  corsFeature,
  proxyFeature,
  proxyBuffersFeature,
  proxyRewritesFeature,
  clientConnectionsFeature,
  connectionHeaderFeature,
  rewriteFeature,
  backendProtocolFeature,
  fastcgiFeature,
  proxySslFeature,
  crossNamespaceFeature,
  loadBalanceFeature,
  upstreamHashFeature,
  canaryFeature,
  affinityFeature,
  tlsSettingsFeature,
  accessLogFeature,
  gzipFeature,
  http2Feature,
  workersFeature,
  hashSizesFeature,
  tlsSessionFeature,
  safetyFeature,
  customErrorsFeature,
  mirrorFeature,
  upstreamHeadersFeature,
  nextUpstreamFeature,
  serviceUpstreamFeature,
  clientCertsFeature,
  rateLimitFeature,
  satisfyFeature,
  externalAuthFeature,
  basicAuthFeature,
  clientAddressFeature,
  headerSettingsFeature,
  serverAliasFeature,
  sslPassthroughFeature,
  streamProxyFeature,
  // Last: a location's snippet comes after every other feature's directives, as in ingress-nginx.
  snippetsFeature,
]);

/** The features whose output is a location partial, in registry order (render/location-blocks.ts). */
export const LOCATION_FEATURES: readonly AnyFeature[] = FEATURES.filter((feature) => feature.output.kind === 'location');

/** The dynamic features: their configs are data for Lua (Model.routes), never nginx.conf. */
export const DYNAMIC_FEATURES: readonly AnyFeature[] = FEATURES.filter((feature) => feature.output.kind === 'lua');

/** The feature named `name`. */
export function featureNamed(name: FeatureName): AnyFeature {
  const found = FEATURES.find((feature) => feature.name === name);
  if (found === undefined) throw new Error(`no feature ${name}`);
  return found;
}
