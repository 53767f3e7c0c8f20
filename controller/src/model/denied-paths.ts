// The paths of an Ingress refused for its annotations, when it asked for a
// protection (authentication, client certificates, allow/deny lists, limits,
// WAF): they answer 503 instead of disappearing. A path that disappears falls
// through to whatever else its host serves: another Ingress's `/` would then
// serve, open, the `/admin` whose auth-url or allow list was refused. As
// ingress-nginx's "location denied" (503, e.g. for an auth-url its URL parser
// refuses); the Ingress stays refused (failures, Events, admission denial) and
// nothing of it reaches a backend: the 503 is answered in the rewrite phase
// (features/access-control.njk). A canary is left out: its paths are its
// main Ingress's, which keeps serving them with its own protections.

import type { V1Ingress } from '@kubernetes/client-node';
import { balancingOf } from './backend-balancing.ts';
import type { BackendRegistry } from './backends.ts';
import { makeWarning } from './failure.ts';
import { INGRESS_NGINX_ANNOTATIONS } from './features/ingress-nginx-names.ts';
import type { IngressFeatures } from './features/parse.ts';
import { translateRules, type LocationCandidate } from './ingress-rules.ts';
import { placeBackendLocation } from './placement.ts';
import type { ServerTable } from './server-table.ts';
import type { Failure, GlobalSettings, IngressRef } from './types.ts';

const PROTECTIVE: ReadonlySet<string> = new Set(INGRESS_NGINX_ANNOTATIONS.filter((item) => item.protective).map((item) => item.name));

/** A value that leaves a protection off (or unset) asks for nothing. */
function switchedOff(value: string): boolean {
  return ['', 'false', '0', 'off'].includes(value.trim().toLowerCase());
}

/** True when one of the Ingress's annotations asks for a protection and it is no canary. */
export function asksForProtection(annotations: Readonly<Record<string, unknown>> | undefined, prefix: string): boolean {
  if (annotations === undefined || annotations === null || typeof annotations !== 'object') return false;
  const canary = annotations[`${prefix}canary`];
  if (typeof canary === 'string' && canary.trim().toLowerCase() === 'true') return false;
  return Object.entries(annotations).some(([key, value]) =>
    key.startsWith(prefix) && PROTECTIVE.has(key.slice(prefix.length)) && (typeof value !== 'string' || !switchedOff(value)));
}

/** The features of a denied Ingress: nothing but an access control that answers 503. */
export function deniedFeatures(settings: GlobalSettings): IngressFeatures {
  return Object.freeze({
    policy: Object.freeze({ accessControl: Object.freeze({ ...settings.accessControl, denied: true }) }),
    dynamic: Object.freeze({}),
  });
}

/** What a refused Ingress still places. */
export interface DeniedPaths {
  readonly hosts: readonly string[];
  readonly candidates: readonly LocationCandidate[];
  /** One warning saying why its paths answer 503 (the refusal's own failures say what to fix). */
  readonly warnings: readonly Failure[];
}

/**
 * The locations a refused Ingress still places (each answering 503), with its rule hosts; none
 * unless it asked for a protection. Paths its rules refuse on their own are not placed (they are
 * reported with the Ingress's other failures once it is fixed).
 */
export function deniedPaths(ingress: V1Ingress, ref: IngressRef, annotationsPrefix: string, settings: GlobalSettings): DeniedPaths {
  if (!asksForProtection(ingress.metadata?.annotations, `${annotationsPrefix}/`)) return { hosts: [], candidates: [], warnings: [] };
  const rules = translateRules(ingress, ref, deniedFeatures(settings), settings);
  if (rules.candidates.length === 0) return { hosts: [], candidates: [], warnings: [] };
  const warning = makeWarning(ref, 'ProtectedPathsDenied', 'metadata.annotations',
    'the Ingress asks for a protection and is refused: its paths answer 503 until it is fixed, never served unprotected');
  return { hosts: rules.hosts, candidates: rules.candidates, warnings: [warning] };
}

/** What placing needs of the build's state. */
export interface DeniedPlacement {
  readonly table: ServerTable;
  readonly registry: BackendRegistry;
  readonly settings: GlobalSettings;
  readonly failures: Failure[];
}

/**
 * Places the denied paths of a refused Ingress (from its translation, whose failures are reported
 * with it; or of one NGINX refused and the sync left out, with `warnings` to report) at its rank,
 * as any other paths: oldest wins, a conflict is a failure.
 */
export function placeDeniedPaths(paths: Pick<DeniedPaths, 'hosts' | 'candidates'> & { readonly warnings?: readonly Failure[] }, rank: number, state: DeniedPlacement): void {
  if (paths.warnings !== undefined) state.failures.push(...paths.warnings);
  if (paths.candidates.length === 0) return;
  for (const host of paths.hosts) state.table.ensure(host);
  const balancing = balancingOf({}, state.settings);
  for (const candidate of paths.candidates) {
    const failure = placeBackendLocation(state.table, state.registry, {
      ...candidate, ...balancing, affinity: null, serviceUpstream: state.settings.serviceUpstream.enabled, rank, serviceField: '.backend.service.name',
    });
    if (failure) state.failures.push(failure);
  }
}
