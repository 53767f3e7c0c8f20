// The feature registry: every feature module in a fixed order. The builder
// parses them in this order, the renderer prints the location partials in
// this order, and the catalogue and docs list them in it.

import { accessLogFeature } from './access-log.ts';
import { affinityFeature } from './affinity.ts';
import { backendProtocolFeature } from './backend-protocol.ts';
import { basicAuthFeature } from './basic-auth.ts';
import { canaryFeature } from './canary.ts';
import { customErrorsFeature } from './custom-errors.ts';
import type { AnyFeature, FeatureName } from './feature.ts';
import { loadBalanceFeature } from './load-balance.ts';
import { mirrorFeature } from './mirror.ts';
import { nextUpstreamFeature } from './next-upstream.ts';
import { proxyFeature } from './proxy.ts';
import { rewriteFeature } from './rewrite.ts';
import { safetyFeature } from './safety.ts';
import { serviceUpstreamFeature } from './service-upstream.ts';
import { sslRedirectFeature } from './ssl-redirect.ts';
import { tlsSettingsFeature } from './tls-settings.ts';
import { upstreamHeadersFeature } from './upstream-headers.ts';

export const FEATURES: readonly AnyFeature[] = Object.freeze([
  sslRedirectFeature,
  proxyFeature,
  rewriteFeature,
  backendProtocolFeature,
  loadBalanceFeature,
  canaryFeature,
  affinityFeature,
  tlsSettingsFeature,
  accessLogFeature,
  safetyFeature,
  customErrorsFeature,
  mirrorFeature,
  upstreamHeadersFeature,
  nextUpstreamFeature,
  serviceUpstreamFeature,
  basicAuthFeature,
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
