// metrics: Prometheus metrics under ingress-nginx's names (so existing
// dashboards work) plus resty-ingress's own. Owns: controller metrics fed
// from sync hooks (controller-metrics.ts), per-request metrics tailed from
// NGINX's metrics log (metrics-log-tail.ts, tailed-file.ts,
// metrics-log-lines.ts → request-aggregate.ts → request-metrics.ts,
// aggregated-histogram.ts), stub_status connections (nginx-status.ts), the
// NGINX processes' CPU and memory from /proc (process-stats.ts →
// nginx-process.ts), build and certificate info (build-info.ts). Every
// function takes the Registry it registers in; no global registry. May
// import: model/types.ts, prom-client, pino types.

export { createControllerMetrics, configHashValue } from './controller-metrics.ts';
export type { ControllerMetrics, ControllerMetricsOptions, SyncOutcome } from './controller-metrics.ts';
export { createCertificateExpiryMetric, DEFAULT_CERTIFICATE_HOST } from './certificate-expiry.ts';
export type { CertificateExpiryMetric, CertificateExpiryOptions } from './certificate-expiry.ts';
export { createAdmissionMetrics, MAX_CHECKED_INGRESSES, OVERFLOW_LABEL } from './admission-metrics.ts';
export type { AdmissionMetrics, AdmissionMetricsOptions, AdmissionOutcome } from './admission-metrics.ts';
export { createRequestMetrics, excludesUpstreamTimes, isDefinedHost, socketMetricName, SOCKET_METRIC_NAMES } from './request-metrics.ts';
export type { RequestMetrics, RequestMetricsOptions } from './request-metrics.ts';
export { parseRoute, requestBuckets, REQUEST_BUCKETS, HISTOGRAMS, LENGTH_BUCKETS, SIZE_BUCKETS, TIME_BUCKETS } from './request-aggregate.ts';
export type { BucketFlags, LocationLabels, ParsedPayload, RequestAggregate, RequestBuckets, RouteLabels } from './request-aggregate.ts';
export { parseMetricsLog, METRIC_METHODS } from './metrics-log-lines.ts';
export { startMetricsLogTail } from './metrics-log-tail.ts';
export type { MetricsLogTail, MetricsLogTailOptions } from './metrics-log-tail.ts';
export { fetchStubStatus, parseStubStatus, registerNginxStatusMetrics } from './nginx-status.ts';
export type { StubStatus } from './nginx-status.ts';
export { AggregatedHistogram } from './aggregated-histogram.ts';
export { registerNginxProcessMetrics } from './nginx-process.ts';
export { currentBuildInfo, registerBuildInfo } from './build-info.ts';
export type { BuildInfo } from './build-info.ts';
export { certificateFacts, createCertificateInfoMetric } from './certificate-info.ts';
export { readProcessGroup } from './process-stats.ts';
export type { GroupReading } from './process-stats.ts';
