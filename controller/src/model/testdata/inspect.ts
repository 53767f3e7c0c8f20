// Test-only lookups into a BuildResult, so assertions name what they check.

import type { Backend, BuildResult, Failure, FeatureConfigs, Location, LocationFeature, Server } from '../types.ts';

/** The server for `hostname`, or undefined. */
export function findServer(result: BuildResult, hostname: string): Server | undefined {
  return result.model.servers.find((server) => server.hostname === hostname);
}

/** The location for host + path (+ match kind when several share the path). */
export function findLocation(
  result: BuildResult,
  hostname: string,
  path: string,
  match?: Location['match'],
): Location | undefined {
  return findServer(result, hostname)?.locations.find(
    (location) => location.path === path && (match === undefined || location.match === match),
  );
}

/** The backend called `name`, or undefined. */
export function findBackend(result: BuildResult, name: string): Backend | undefined {
  return result.model.backends.find((backend) => backend.name === name);
}

/** Hostnames of every server, in model order. */
export function hostnames(result: BuildResult): string[] {
  return result.model.servers.map((server) => server.hostname);
}

/** Failures with a given reason. */
export function failuresWith(result: BuildResult, reason: string): Failure[] {
  return result.failures.filter((failure) => failure.reason === reason);
}

/** The config of feature `name` a location runs with: its Ingress's, else the global one. */
export function configOf<N extends LocationFeature>(result: BuildResult, location: Location | undefined, name: N): FeatureConfigs[N] | undefined {
  if (!location) return undefined;
  return location.policy[name] ?? result.model.settings[name];
}

/** Where a location sends requests, as one comparable string (`backend:<name>` or `not-found`). */
export function targetOf(location: Location | undefined): string | undefined {
  if (!location) return undefined;
  return location.route.kind === 'backend' ? `backend:${location.route.backend}` : 'not-found';
}
