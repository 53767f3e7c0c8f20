// How a location's claim balances its backend: the load-balance algorithm
// and the consistent hash (upstream-hash-by), from its Ingress's annotations
// over the ConfigMap's values. Both are dynamic (pushed to Lua with the
// endpoints); the oldest claim on a backend decides them (backends.ts).

import type { DynamicConfigs } from './features/parse.ts';
import type { BackendHash, GlobalSettings, LoadBalance, UpstreamHashConfig } from './types.ts';

export interface Balancing {
  readonly loadBalance: LoadBalance;
  readonly hash: BackendHash | null;
}

/** The Backend.hash of an upstream-hash config: null without upstream-hash-by. */
export function backendHash(config: UpstreamHashConfig): BackendHash | null {
  if (config.by === null) return null;
  return Object.freeze({ by: config.by, subsetSize: config.subset ? config.subsetSize : null });
}

/** The balancing of an Ingress's locations (`dynamic`: its annotations' dynamic configs; null for generated locations). */
export function balancingOf(dynamic: DynamicConfigs | null, settings: GlobalSettings): Balancing {
  return {
    loadBalance: (dynamic?.loadBalance ?? settings.loadBalance).algorithm,
    hash: backendHash(dynamic?.upstreamHash ?? settings.upstreamHash),
  };
}

/** Whether two hashes are the same (null = none). */
export function sameHash(a: BackendHash | null, b: BackendHash | null): boolean {
  return a === b || (a !== null && b !== null && a.by === b.by && a.subsetSize === b.subsetSize);
}
