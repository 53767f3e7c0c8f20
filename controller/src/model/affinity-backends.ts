// Backend.affinity from the claims on one Service port. Affinity is set per
// Ingress and applied per backend, as in ingress-nginx: the oldest Ingress
// with affinity: cookie that routes here decides the cookie and the mode
// (ingress-nginx takes the type and mode of the first Ingress it sees with a
// type); every Ingress with affinity: cookie that routes here sets the cookie
// on its own locations (ingress-nginx's per-backend list of locations). A
// canary's backend (only a canary split routes to it) takes its main
// backend's affinity unless the canary Ingress says
// affinity-canary-behavior: legacy, so that a client sent to the canary stays
// there.

import type { AffinityConfig, BackendAffinity, IngressRef } from './types.ts';

/** What a claim on a backend says about affinity (model/backends.ts BackendClaim). */
export interface AffinityClaim {
  /** The claiming Ingress's affinity config, or null/absent (none, or a generated location). */
  readonly affinity?: AffinityConfig | null;
  /** For a canary split's claim with affinity-canary-behavior sticky: the main location's backend. */
  readonly affinityFrom?: string;
  readonly rank: number;
  readonly routed: boolean;
  readonly ingress: IngressRef | null;
}

/** The affinity the claims give their backend by themselves (before canaries inherit), or null. */
export function ownAffinity(claims: readonly AffinityClaim[]): BackendAffinity | null {
  let winner: AffinityClaim | undefined;
  const ingresses = new Set<string>();
  for (const claim of claims) {
    if (claim.affinity?.enabled !== true || claim.ingress === null) continue;
    ingresses.add(`${claim.ingress.namespace}/${claim.ingress.name}`);
    if (winner === undefined || claim.rank < winner.rank) winner = claim;
  }
  const config = winner?.affinity;
  if (config === undefined || config === null) return null;
  return Object.freeze({
    mode: config.mode,
    cookie: config.cookieName,
    path: config.cookiePath,
    domain: config.cookieDomain,
    expires: config.cookieExpires,
    maxAge: config.cookieMaxAge,
    secure: config.cookieSecure,
    sameSite: config.cookieSameSite,
    conditionalSameSiteNone: config.cookieConditionalSameSiteNone,
    changeOnFailure: config.cookieChangeOnFailure,
    ingresses: Object.freeze([...ingresses].sort()),
  });
}

/** The main backend whose affinity a canary's backend takes: that of its oldest sticky canary claim, when no claim of its own sets one. */
export function inheritedFrom(claims: readonly AffinityClaim[]): string | null {
  let from: AffinityClaim | undefined;
  for (const claim of claims) {
    if (claim.affinityFrom === undefined) continue;
    if (from === undefined || claim.rank < from.rank) from = claim;
  }
  return from?.affinityFrom ?? null;
}
