// model: turns a cluster Snapshot into the NGINX Model (pure: no I/O, no
// clock, no globals). Owns class selection, oldest-wins conflicts, path and
// host validation, annotations, backends and endpoints.
// May import: ./types.ts (the contract), @kubernetes/client-node types,
// node:net (pure IP checks). Nothing from other steps.

export { buildModel, createModelBuilder, type ModelBuilder } from './build.ts';
export { ANNOTATION_SPECS, DEFAULT_ANNOTATION_VALUES, parseIngressAnnotations } from './annotations/index.ts';
export type { AnnotationSpec, AnnotationValues, AnyAnnotationSpec, AnnotationScope } from './annotations/index.ts';
export type * from './types.ts';
