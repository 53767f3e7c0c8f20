// model: turns a cluster Snapshot into the NGINX Model (pure: no I/O, no
// clock, no globals). Owns class selection, oldest-wins conflicts, path and
// host validation, features (features/: one module per annotation family and
// its ConfigMap keys), backends and endpoints.
// May import: ./types.ts (the contract), @kubernetes/client-node types,
// node:net (pure IP checks). Nothing from other steps.

export { buildModel, createModelBuilder, type ModelBuilder, type RoutingSource } from './build.ts';
export { DEFAULT_SETTINGS, parseIngressFeatures, readSettings } from './features/parse.ts';
export { FEATURES } from './features/registry.ts';
export type * from './types.ts';
