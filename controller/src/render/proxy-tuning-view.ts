// What http {} prints of the proxy tuning features (model/features/proxy-buffers.ts,
// proxy-rewrites.ts, client-connections.ts): the ConfigMap's values, once. A location prints
// only what its Ingress changes (features/proxy-buffers.njk, features/proxy-rewrites.njk).
// The keep-alive to backends goes into the balancer upstreams: every upstream here is a
// balancer_by_lua one, and `keepalive` must follow balancer_by_lua_block.

import type { ClientConnectionsSettings, CookieRewrite, Model, ProxyBuffersConfig, ProxyRewritesConfig } from '../model/types.ts';
import { clientConnectionsFeature } from '../model/features/client-connections.ts';
import { proxyBuffersFeature } from '../model/features/proxy-buffers.ts';
import { proxyRewritesFeature } from '../model/features/proxy-rewrites.ts';

/** A proxy-ssl policy's own upstream keeps fewer idle connections: there may be many of them. */
const TLS_UPSTREAM_KEEPALIVE = 32;

export interface ProxyTuningView {
  readonly buffers: ProxyBuffersConfig;
  readonly cookieDomain: CookieRewrite | null;
  readonly cookiePath: CookieRewrite | null;
  /** `proxy_redirect <from> <to>`, or null: `proxy_redirect off`. */
  readonly redirect: CookieRewrite | null;
  readonly connections: ClientConnectionsSettings;
  /** `keepalive` of a proxy-ssl upstream (0 = none, as the balancer's). */
  readonly tlsUpstreamKeepalive: number;
}

/**
 * The proxy_redirect a config means, as ingress-nginx's template decides it: `off` unless both
 * keys name text. ingress-nginx prints nothing for `default` or a from without a to, leaving
 * NGINX's `default`, which behind `proxy_pass http://upstream_balancer` rewrites only
 * `http://upstream_balancer/`, which no backend sends: off says the same and is valid in http {}
 * and with `$scheme://` passes, where NGINX refuses `default`.
 */
export function redirectOf(config: ProxyRewritesConfig): CookieRewrite | null {
  if (config.redirectFrom === 'off' || config.redirectFrom === 'default' || config.redirectTo === 'off') return null;
  return { from: config.redirectFrom, to: config.redirectTo };
}

/** The http {} view; a model from before these features reads as their defaults. */
export function proxyTuningView(model: Model): ProxyTuningView {
  const settings = model.settings as Partial<Model['settings']>;
  const rewrites = settings.proxyRewrites ?? proxyRewritesFeature.defaults;
  const connections = settings.clientConnections ?? clientConnectionsFeature.defaults;
  return {
    buffers: settings.proxyBuffers ?? proxyBuffersFeature.defaults,
    cookieDomain: rewrites.cookieDomain,
    cookiePath: rewrites.cookiePath,
    redirect: redirectOf(rewrites),
    connections,
    tlsUpstreamKeepalive: Math.min(TLS_UPSTREAM_KEEPALIVE, connections.upstreamKeepaliveConnections),
  };
}
