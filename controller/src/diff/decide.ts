// The decision: what must change in NGINX to go from the running model to the
// next one. This is the ONE place that knows which parts of the model are
// dynamic (applied by Lua at run time) and which need a reload: it blanks the
// dynamic parts of both models and compares the rest.
//
// May import: model/types.ts and fast-deep-equal. Nothing else of the flow.

import deepEqual from 'fast-deep-equal';
import type { Backend, DynamicBackend, Model } from '../model/types.ts';

/** Why a decision was taken, for the sync log line and metrics. */
export type Decision =
  /** Nothing to do: NGINX already runs this model. */
  | { readonly kind: 'skip' }
  /** Only dynamic parts changed: POST `backends` (the full set) to Lua, no reload. */
  | { readonly kind: 'dynamic'; readonly backends: readonly DynamicBackend[]; readonly changed: readonly string[] }
  /** nginx.conf changes: POST `backends` first (new backends must be known before traffic reaches them), then reload. */
  | { readonly kind: 'reload'; readonly backends: readonly DynamicBackend[]; readonly changed: readonly string[] };

/** What NGINX currently runs, as far as the controller knows. */
export interface RunningState {
  /** The model whose static part NGINX runs (or is reloading to), null before the first reload. */
  readonly model: Model | null;
  /** True when the data plane reported an empty backend store (NGINX just (re)started): push again. */
  readonly dataplaneEmpty: boolean;
}

/** The part of a backend Lua receives. */
export function toDynamicBackend(backend: Backend): DynamicBackend {
  return { name: backend.name, endpoints: backend.endpoints, loadBalance: backend.loadBalance };
}

/** The full dynamic state of a model, in model order (sorted by name). */
export function dynamicBackends(model: Model): DynamicBackend[] {
  return model.backends.map(toDynamicBackend);
}

/** The model with every dynamic field blanked: what nginx.conf depends on. */
export function staticPart(model: Model): Model {
  return {
    ...model,
    backends: model.backends.map((b) => ({ ...b, endpoints: [], loadBalance: 'round_robin' })),
  };
}

/** Names of backends whose dynamic part differs (added, removed or changed), sorted. */
export function changedBackends(before: Model | null, after: Model): string[] {
  const old = new Map((before?.backends ?? []).map((b) => [b.name, toDynamicBackend(b)]));
  const changed = new Set<string>();
  for (const b of after.backends) {
    const prev = old.get(b.name);
    if (!prev || !deepEqual(prev, toDynamicBackend(b))) changed.add(b.name);
    old.delete(b.name);
  }
  for (const name of old.keys()) changed.add(name);
  return [...changed].sort();
}

/** Decide how to apply `next` given what runs. Pure. */
export function decideApply(running: RunningState, next: Model): Decision {
  const backends = dynamicBackends(next);
  if (running.model === null || !deepEqual(staticPart(running.model), staticPart(next))) {
    return { kind: 'reload', backends, changed: changedBackends(running.model, next) };
  }
  const changed = changedBackends(running.model, next);
  if (running.dataplaneEmpty) return { kind: 'dynamic', backends, changed: next.backends.map((b) => b.name) };
  if (changed.length === 0) return { kind: 'skip' };
  return { kind: 'dynamic', backends, changed };
}
