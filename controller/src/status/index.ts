// status: what the controller writes back to the cluster. Owns: Events on
// Ingresses (failures, reload failures, Sync) with dedupe and token-bucket
// rate limits; Lease-based leader election; the Ingress status publisher
// (leader only); the failure reporter that turns model Failures into log
// lines and Events once per appearance. cluster-reporting.ts composes them.
// May import: model/types.ts, the writer interfaces in kube/cluster-writer.ts
// and the ApiAvailability type (kube/api-availability.ts),
// SyncHooks and ControllerOptions types, pino. Never the model builder.

export { createClusterReporting } from './cluster-reporting.ts';
export type { ClusterReporting, ClusterReportingOptions } from './cluster-reporting.ts';
export { createEventRecorder } from './event-recorder.ts';
export type { EventRecorder, EventRecorderOptions, EventTarget, EventType } from './event-recorder.ts';
export { createFailureReporter } from './failure-reporter.ts';
export type { FailureReporter } from './failure-reporter.ts';
export { createIngressEvents, ingressTarget } from './ingress-events.ts';
export { createLeaderElector, microTime } from './leader-election.ts';
export type { LeaderElector, LeaderElectorOptions } from './leader-election.ts';
export { createStatusPublisher } from './status-publisher.ts';
export type { StatusPublisher } from './status-publisher.ts';
