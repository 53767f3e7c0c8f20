// kube: watching the Kubernetes API.
//
// Owns: loading the KubeConfig, one self-restarting informer per watched kind
// (Ingress, IngressClass, Service, EndpointSlice, Secret) and per ConfigMap the
// flags name (watched by name only: watch-targets.ts), and the Store that turns
// their caches into immutable Snapshots.
// May import: @kubernetes/client-node, pino types, and model/types.ts (the
// Snapshot contract). Nothing of the other steps.
//
// Flow: createStore() starts the informers → every add/update/delete calls
// onChange(kind) → the sync loop calls snapshot() and builds the model from it.
// Resilience: a failed list/watch restarts after a jittered backoff (at most
// ~2 s apart, so the sync follows the API's return quickly); an outage is one
// warning and one "reachable again" line (api-availability.ts); 410 Gone
// relists (and reports objects deleted meanwhile); a silent watch is reopened
// after its timeout; see resilient-informer.ts and bounded-watch.ts.

export { ApiTimeoutError, briefError, createApiAvailability, outageReason } from './api-availability.ts';
export type { ApiAvailability } from './api-availability.ts';
export { createBackoff, DEFAULT_BACKOFF } from './backoff.ts';
export type { Backoff, BackoffOptions } from './backoff.ts';
export { DEFAULT_WATCH_TIMING, WatchStatusError } from './bounded-watch.ts';
export type { WatchTiming } from './bounded-watch.ts';
export { KINDS } from './kinds.ts';
export type { KindName } from './kinds.ts';
export { chooseKubeConfigSource, KubeConfigError, loadKubeConfig } from './kubeconfig.ts';
export type { KubeConfigSource, LoadKubeConfigOptions } from './kubeconfig.ts';
export { createStore } from './store.ts';
export type { Store, StoreOptions } from './store.ts';
export { parseObjectRef } from './watch-targets.ts';
export type { ObjectRef } from './watch-targets.ts';
