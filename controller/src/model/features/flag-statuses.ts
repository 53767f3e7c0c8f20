// What resty-ingress does with each ingress-nginx v1.15.1 controller flag
// (ingress-nginx-flags.ts), so that an ingress-nginx command line (a Helm
// values file's extraArgs) starts the controller or says why not:
// - supported: the controller parses it with the same meaning (names its tests);
// - different: parsed, with the difference written;
// - ignored: accepted with one Warning log line (says why it is harmless);
// - refused: the controller exits 2 with what to do instead, unless the value
//   is ingress-nginx's default (then it asks for nothing: accepted, warned).
// Data: cli/ingress-nginx-args.ts applies it; cli/flag-statuses.test.ts checks
// that "supported" is exactly what the command line parses.

import type { CatalogueEntry } from './catalogue.ts';
import { INGRESS_NGINX_FLAGS } from './ingress-nginx-flags.ts';

export type FlagStatus =
  | { readonly kind: 'supported'; readonly proof: readonly string[] }
  | { readonly kind: 'different'; readonly difference: string; readonly proof: readonly string[] }
  | { readonly kind: 'ignored'; readonly why: string }
  | { readonly kind: 'refused'; readonly instead: string };

const OPTIONS_TEST = 'controller/src/cli/options.test.ts';
const ARGS_TEST = 'controller/src/cli/ingress-nginx-args.test.ts';
const FLAGS_E2E = 'e2e/ingress-nginx-flags.test.ts';

const supported = (...proof: string[]): FlagStatus => ({ kind: 'supported', proof: [OPTIONS_TEST, ...proof] });
const different = (difference: string, ...proof: string[]): FlagStatus => ({ kind: 'different', difference, proof: [OPTIONS_TEST, ...proof] });
const ignored = (why: string): FlagStatus => ({ kind: 'ignored', why });
const refused = (instead: string): FlagStatus => ({ kind: 'refused', instead });

const KLOG = 'a klog setting: resty-ingress writes JSON log lines to stdout, and --log-level (or --v) chooses what is logged';
const PROFILER = 'there is no Go profiler to expose';
const GEOIP = 'GeoIP2 databases are not downloaded: the use-geoip2 ConfigMap key is not supported';
const METRICS_FLAGS = ['controller/src/cli/metrics-flags.test.ts', 'controller/src/server/metrics-flags.test.ts'];
const BUCKETS = 'bounds must be increasing numbers greater than 0, written in decimal (ingress-nginx took any Go float list, and crashed on bounds out of order)';

/** Every ingress-nginx flag by name (the test checks the names are ingress-nginx's, all of them). */
export const FLAG_STATUSES: Readonly<Record<string, FlagStatus>> = Object.freeze({
  'add_dir_header': ignored(KLOG),
  'alsologtostderr': ignored(KLOG),
  'alsologtostderrthreshold': ignored(KLOG),
  'annotations-prefix': supported('controller/src/model/model-builder.test.ts'),
  'apiserver-host': different('an http:// or https:// URL (client-go also takes host:port, read as https)', 'controller/src/kube/kubeconfig.test.ts', FLAGS_E2E),
  'bucket-factor': ignored('native histograms are not exported; classic histograms are'),
  'certificate-authority': different('the client certificate of the kubeconfig, if any, is kept (ingress-nginx drops the whole TLS configuration for this CA)', 'controller/src/kube/kubeconfig.test.ts', FLAGS_E2E),
  'configmap': supported('e2e/header-settings.test.ts'),
  'controller-class': different('the default is resty-ingress.dev/controller; pass k8s.io/ingress-nginx to serve ingress-nginx\'s IngressClasses', 'controller/src/model/ingress-class.test.ts', 'e2e/ingress-nginx-compat.test.ts'),
  'deep-inspect': ignored('the inspection cannot be turned off here: every host, path and value is validated strictly before it reaches nginx.conf'),
  'default-backend-service': supported('controller/src/model/default-backends.test.ts', 'e2e/custom-errors.test.ts'),
  'default-server-port': ignored('the catch-all server listens on the HTTP and HTTPS ports; there is no separate default-server port'),
  'default-ssl-certificate': supported('controller/src/model/tls-hosts.test.ts', 'e2e/tls.test.ts'),
  'disable-catch-all': supported('controller/src/model/ingress-class.test.ts'),
  'disable-full-test': ignored('the admission webhook checks an Ingress against the model built with it and never runs nginx -t on user input, so there is no full test to disable'),
  'disable-leader-election': supported(),
  'disable-svc-external-name': ignored('ExternalName Services are never used as backends (requests get 503 with a Warning Event), which is what true asks for'),
  'disable-sync-events': supported('controller/src/status/ingress-events.test.ts'),
  'dynamic-configuration-retries': ignored('configuration pushes to NGINX are retried with backoff until they succeed'),
  'election-id': supported('controller/src/metrics/controller-metrics.test.ts', FLAGS_E2E),
  'election-ttl': different('one unit only (30s, 1m, 500ms), not Go\'s compound durations such as 1m30s, which are refused', 'e2e/status-events-admission.test.ts'),
  'enable-annotation-validation': ignored('annotation values are always validated (false does not turn it off)'),
  'enable-metrics': different('the default is true (the chart passes metrics.enabled); false serves none of ingress-nginx\'s metrics, as ingress-nginx, and NGINX writes no metrics log; /metrics keeps resty-ingress\'s own (resty_ingress_*) where ingress-nginx kept its Go runtime and process metrics', 'controller/src/server/observability.test.ts', 'controller/src/render/request-metrics-render.test.ts', ...METRICS_FLAGS),
  'enable-ssl-chain-completion': ignored('certificates are served as the Secret holds them: put the intermediate certificates in tls.crt'),
  'enable-ssl-passthrough': different('the HTTPS port always belongs to the SNI router while the flag is on; use-forwarded-headers and enable-real-ip without use-proxy-protocol are dropped with a Warning (docs/ssl-passthrough.md)',
    'controller/src/model/ssl-passthrough.test.ts', 'e2e/ssl-passthrough.test.ts'),
  'enable-topology-aware-routing': ignored('every ready endpoint receives traffic whatever its zone'),
  'exclude-socket-metrics': different('a value that is not a list of metric names is refused (ingress-nginx ignored it); a name that is no per-request metric excludes nothing, with one Warning log line', 'controller/src/metrics/request-metrics.test.ts', ...METRICS_FLAGS),
  'health-check-path': different('/healthz answers as well (resty-ingress\'s chart probes it); the path may not be /readyz or /metrics', 'controller/src/server/health-server.test.ts', FLAGS_E2E),
  'health-check-timeout': ignored('/healthz answers from memory; the probe\'s timeoutSeconds bounds it'),
  'healthz-host': different('an IP address, not a host name; unset, the endpoint binds to --bind-address (0.0.0.0 by default, as ingress-nginx\'s unset value)', FLAGS_E2E),
  'healthz-port': supported('e2e/observability.test.ts'),
  'http-port': supported(FLAGS_E2E),
  'https-port': supported(FLAGS_E2E),
  'ingress-class': different('the default is resty; pass nginx to serve Ingresses with the kubernetes.io/ingress.class: nginx annotation', 'controller/src/model/ingress-class.test.ts', 'e2e/ingress-nginx-compat.test.ts'),
  'ingress-class-by-name': supported('controller/src/model/ingress-class.test.ts'),
  'internal-logger-address': ignored('NGINX\'s logs reach the controller through files, not a syslog listener'),
  'kubeconfig': supported('e2e/chart-rbac-controller.test.ts'),
  'legacy_stderr_threshold_behavior': ignored(KLOG),
  'length-buckets': different(BUCKETS, 'controller/src/metrics/metrics-log-lines.test.ts', ...METRICS_FLAGS),
  'log_backtrace_at': ignored(KLOG),
  'log_dir': ignored(KLOG),
  'log_file': ignored(KLOG),
  'log_file_max_size': ignored(KLOG),
  'logtostderr': ignored(KLOG),
  'max-buckets': ignored('native histograms are not exported; classic histograms are'),
  'maxmind-edition-ids': ignored(GEOIP),
  'maxmind-license-key': ignored(GEOIP),
  'maxmind-mirror': ignored(GEOIP),
  'maxmind-retries-count': ignored(GEOIP),
  'maxmind-retries-timeout': ignored(GEOIP),
  'metrics-per-host': supported('controller/src/server/observability.test.ts'),
  'metrics-per-undefined-host': different('true labels such requests with the server that answered them ("" for the catch-all, the wildcard such as *.example.com), not the Host the client sent: clients cannot mint label values. A request through a wildcard server-alias of a named host counts as defined', 'controller/src/metrics/request-metrics.test.ts', ...METRICS_FLAGS),
  'monitor-max-batch-size': ignored('request metrics are read from NGINX\'s log in batches of their own size'),
  'one_output': ignored(KLOG),
  'post-shutdown-grace-period': ignored('the controller exits as soon as NGINX has stopped'),
  'profiler-address': ignored(PROFILER),
  'profiler-port': ignored(PROFILER),
  'profiling': ignored(PROFILER),
  'publish-service': supported('controller/src/status/published-address.test.ts'),
  'publish-status-address': supported('controller/src/status/published-address.test.ts', 'e2e/status-events-admission.test.ts'),
  'report-node-internal-ip-address': ignored('Ingress status is written from --publish-service or --publish-status-address only, never from node addresses'),
  'report-status-classes': supported('controller/src/server/observability.test.ts'),
  'shutdown-grace-period': supported('e2e/shutdown.test.ts'),
  'size-buckets': different(BUCKETS, 'controller/src/metrics/metrics-log-lines.test.ts', ...METRICS_FLAGS),
  'skip_headers': ignored(KLOG),
  'skip_log_headers': ignored(KLOG),
  'ssl-passthrough-proxy-port': ignored('the passthrough router reaches NGINX\'s HTTPS server on a unix socket, not a port'),
  'status-port': supported('e2e/observability.test.ts'),
  'status-update-interval': ignored('Ingress status is rewritten when the published address changes and checked every 60 seconds'),
  'stderrthreshold': ignored(KLOG),
  'stream-port': ignored('TCP and UDP services are configured through --status-port; there is no separate stream port'),
  'sync-period': ignored('the informers relist after any watch error; a periodic resync adds nothing'),
  'sync-rate-limit': different('the default is 50 per second (ingress-nginx: 0.3): most syncs push endpoints without a reload', 'controller/src/sync/queue.test.ts'),
  'tcp-services-configmap': supported('controller/src/model/stream-services.test.ts', 'e2e/tcp-udp-services.test.ts'),
  'time-buckets': different(BUCKETS, 'controller/src/metrics/metrics-log-lines.test.ts', ...METRICS_FLAGS),
  'udp-services-configmap': supported('controller/src/model/stream-services.test.ts', 'e2e/tcp-udp-services.test.ts'),
  'update-status': supported('e2e/status-events-admission.test.ts'),
  'update-status-on-shutdown': supported('e2e/shutdown-status.test.ts'),
  'v': different('resty-ingress logs by level: 0–2 is --log-level info, 3–4 debug, 5 and above trace; an explicit --log-level wins', ARGS_TEST, FLAGS_E2E),
  'validating-webhook': supported('e2e/status-events-admission.test.ts'),
  'validating-webhook-certificate': supported('e2e/status-events-admission.test.ts'),
  'validating-webhook-key': supported('e2e/status-events-admission.test.ts'),
  'version': supported(),
  'vmodule': ignored(KLOG),
  'watch-ingress-without-class': supported('controller/src/model/ingress-class.test.ts', FLAGS_E2E),
  'watch-namespace': supported('controller/src/kube/watch-targets.test.ts'),
  'watch-namespace-selector': refused('watch one namespace with --watch-namespace, or all of them (and select Ingresses by class)'),
});

/** The catalogue's entries for the flags, in ingress-nginx's name order. */
export function buildFlagCatalogue(): readonly CatalogueEntry[] {
  return INGRESS_NGINX_FLAGS.map((flag): CatalogueEntry => {
    const base = { name: flag.name, scope: null, risk: null, default: flag.default };
    const status = FLAG_STATUSES[flag.name];
    switch (status?.kind) {
      case 'supported': return { ...base, status: 'supported', feature: null, note: flag.description, proof: status.proof, failsClosed: false };
      case 'different': return { ...base, status: 'different', feature: null, note: `${flag.description} Difference: ${status.difference}.`, proof: status.proof, failsClosed: false };
      case 'ignored': return { ...base, status: 'ignored', feature: null, note: `accepted and ignored with a Warning log line: ${status.why}`, proof: [], failsClosed: false };
      case 'refused': return { ...base, status: 'not-supported', feature: null, note: `the controller does not start (exit 2) unless the value is ingress-nginx's default: ${status.instead}`, proof: [], failsClosed: true };
      default: throw new Error(`ingress-nginx flag --${flag.name} has no status in flag-statuses.ts`);
    }
  });
}
