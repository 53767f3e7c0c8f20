// migrate: `resty-ingress migrate`, the answer to "can I switch from
// ingress-nginx, and what breaks?". Reads manifests (YAML files and folders),
// or a live cluster through client-node, and optionally ingress-nginx Helm
// values; runs the controller's own builder over them (model/build.ts) and
// reports per Ingress served as is / served with differences / not served,
// per annotation and ConfigMap key its catalogue status
// (model/features/catalogue.ts). One-shot: nothing is watched or written.
// May import: model (builder, features, types), kube (kubeconfig, kinds,
// paged lists), cli (validators, the controller's flag parser), yaml,
// commander, @kubernetes/client-node. Nothing imports it but the launcher
// (bin/resty-ingress.js, through main.ts), its tests, and the model's test
// YAML loader (model/testdata/load-yaml.ts reads documents with manifests.ts).
//
// Shape of the report: report-types.ts (documented in docs/migration.md).

export { migrate, runMigrate, type MigrateStreams } from './run.ts';
export { parseMigrateOptions, migrateHelpText, type MigrateOptions } from './options.ts';
export { buildReport, type ReportRequest } from './report.ts';
export type * from './report-types.ts';
