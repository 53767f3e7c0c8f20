// ingress-nginx v1.15.1's controller flags: its own (pkg/flags/flags.go) and
// klog's, which its main registers on the same command line (klog v2.140.0).
// Data, not behaviour: flag-statuses.ts gives each one a status, and the
// controller's command line (cli/ingress-nginx-args.ts) reads them.
// Source: kubernetes/ingress-nginx tag controller-v1.15.1 (commit 0a5901f3c64f),
// cross-checked with docs/user-guide/cli-arguments.md (which omits klog's).

/**
 * The Go type of the flag's value, which decides how pflag parses it: `bool`
 * flags take no separate value (`--flag` is true; `--flag=false`), the others
 * take `--flag=value` or `--flag value`. `severity` is klog's (INFO, WARNING,
 * ERROR, FATAL or 0–3); `floats` and `strings` are comma lists.
 */
export type IngressNginxFlagType = 'bool' | 'int' | 'uint' | 'float' | 'floats' | 'string' | 'strings' | 'duration' | 'ip' | 'severity';

export interface IngressNginxFlag {
  /** Without the dashes, e.g. `ingress-class`. */
  readonly name: string;
  readonly type: IngressNginxFlagType;
  readonly default: string;
  readonly description: string;
}

export const INGRESS_NGINX_FLAGS: readonly IngressNginxFlag[] = Object.freeze([
  { name: 'add_dir_header', type: 'bool', default: 'false', description: 'klog: include the source directory in log headers.' },
  { name: 'alsologtostderr', type: 'bool', default: 'false', description: 'klog: copy file logs to stderr as well.' },
  { name: 'alsologtostderrthreshold', type: 'severity', default: '0', description: 'klog: lowest severity copied to stderr by alsologtostderr (0 = INFO).' },
  { name: 'annotations-prefix', type: 'string', default: 'nginx.ingress.kubernetes.io', description: 'Prefix of the annotations the controller reads.' },
  { name: 'apiserver-host', type: 'string', default: '', description: 'Kubernetes API server address; in-cluster discovery when empty.' },
  { name: 'bucket-factor', type: 'float', default: '0', description: 'Growth factor for native Prometheus histograms; above 1 enables them.' },
  { name: 'certificate-authority', type: 'string', default: '', description: 'CA file used to trust the API server given by --apiserver-host.' },
  { name: 'configmap', type: 'string', default: '', description: 'ConfigMap (namespace/name) with global nginx settings.' },
  { name: 'controller-class', type: 'string', default: 'k8s.io/ingress-nginx', description: 'IngressClass spec.controller value this controller serves.' },
  { name: 'deep-inspect', type: 'bool', default: 'true', description: 'Refuse Ingresses whose hosts, paths or TLS secret names look like config injection.' },
  { name: 'default-backend-service', type: 'string', default: '', description: 'Service (namespace/name) answering requests that match no Ingress.' },
  { name: 'default-server-port', type: 'int', default: '8181', description: 'Port of the built-in catch-all server.' },
  { name: 'default-ssl-certificate', type: 'string', default: '', description: 'Secret (namespace/name) with the certificate for the catch-all HTTPS server.' },
  { name: 'disable-catch-all', type: 'bool', default: 'false', description: 'Ignore Ingresses that have a spec.defaultBackend (a catch-all).' },
  { name: 'disable-full-test', type: 'bool', default: 'false', description: 'Admission checks only the Ingress being changed, not the whole merged config.' },
  { name: 'disable-leader-election', type: 'bool', default: 'false', description: 'Run without leader election.' },
  { name: 'disable-svc-external-name', type: 'bool', default: 'false', description: 'Refuse Services of type ExternalName as backends.' },
  { name: 'disable-sync-events', type: 'bool', default: 'false', description: 'Do not emit Sync events on Ingresses.' },
  { name: 'dynamic-configuration-retries', type: 'int', default: '15', description: 'Attempts to push dynamic configuration before a sync fails.' },
  { name: 'election-id', type: 'string', default: 'ingress-controller-leader', description: 'Name of the leader election lease.' },
  { name: 'election-ttl', type: 'duration', default: '30s', description: 'How long a leader lease lasts before re-election.' },
  { name: 'enable-annotation-validation', type: 'bool', default: 'true', description: 'Check annotation values against their expected formats.' },
  { name: 'enable-metrics', type: 'bool', default: 'false', description: 'Collect and expose Prometheus metrics.' },
  { name: 'enable-ssl-chain-completion', type: 'bool', default: 'false', description: 'Fetch missing intermediate certificates via the AIA extension.' },
  { name: 'enable-ssl-passthrough', type: 'bool', default: 'false', description: 'Turn on the TLS passthrough proxy (needed by the ssl-passthrough annotation).' },
  { name: 'enable-topology-aware-routing', type: 'bool', default: 'false', description: 'Prefer endpoints in the same zone when the Service asks for topology-aware routing.' },
  { name: 'exclude-socket-metrics', type: 'strings', default: '', description: 'Comma-separated request metrics that are neither computed nor exported.' },
  { name: 'health-check-path', type: 'string', default: '/healthz', description: 'Path of the health endpoint.' },
  { name: 'health-check-timeout', type: 'int', default: '10', description: 'Seconds a health probe may take.' },
  { name: 'healthz-host', type: 'string', default: '', description: 'Address the health endpoint binds to (all when empty).' },
  { name: 'healthz-port', type: 'int', default: '10254', description: 'Port of the health and metrics endpoint.' },
  { name: 'http-port', type: 'int', default: '80', description: 'Port for plain HTTP traffic.' },
  { name: 'https-port', type: 'int', default: '443', description: 'Port for HTTPS traffic.' },
  { name: 'ingress-class', type: 'string', default: 'nginx', description: 'Deprecated class name matched against the kubernetes.io/ingress.class annotation.' },
  { name: 'ingress-class-by-name', type: 'bool', default: 'false', description: 'Also select IngressClasses by name, not only by controller value.' },
  { name: 'internal-logger-address', type: 'string', default: '127.0.0.1:11514', description: 'Address of the internal syslog receiver.' },
  { name: 'kubeconfig', type: 'string', default: '', description: 'kubeconfig file for reaching the API server.' },
  { name: 'legacy_stderr_threshold_behavior', type: 'bool', default: 'true', description: 'klog: ignore stderrthreshold while logtostderr is on.' },
  { name: 'length-buckets', type: 'floats', default: '10,20,30,40,50,60,70,80,90,100', description: 'Histogram buckets for request and response length metrics.' },
  { name: 'log_backtrace_at', type: 'string', default: '', description: 'klog: emit a stack trace when logging at file:line.' },
  { name: 'log_dir', type: 'string', default: '', description: 'klog: directory for log files.' },
  { name: 'log_file', type: 'string', default: '', description: 'klog: single log file to write to.' },
  { name: 'log_file_max_size', type: 'uint', default: '1800', description: 'klog: largest log file size in MB (0 = unlimited).' },
  { name: 'logtostderr', type: 'bool', default: 'true', description: 'klog: log to stderr instead of files.' },
  { name: 'max-buckets', type: 'uint', default: '100', description: 'Maximum buckets of native Prometheus histograms.' },
  { name: 'maxmind-edition-ids', type: 'string', default: 'GeoLite2-City,GeoLite2-ASN', description: 'MaxMind database editions to download.' },
  { name: 'maxmind-license-key', type: 'string', default: '', description: 'MaxMind license key for downloading GeoLite2 databases.' },
  { name: 'maxmind-mirror', type: 'string', default: '', description: 'Mirror URL to download MaxMind databases from.' },
  { name: 'maxmind-retries-count', type: 'int', default: '1', description: 'Attempts to download the GeoIP databases.' },
  { name: 'maxmind-retries-timeout', type: 'duration', default: '0s', description: 'Pause between GeoIP download attempts (0s = no retry).' },
  { name: 'metrics-per-host', type: 'bool', default: 'true', description: 'Label request metrics with the host.' },
  { name: 'metrics-per-undefined-host', type: 'bool', default: 'false', description: 'Keep per-host metrics for hosts no Ingress defines.' },
  { name: 'monitor-max-batch-size', type: 'int', default: '10000', description: 'Largest batch of request metrics processed at once.' },
  { name: 'one_output', type: 'bool', default: 'false', description: 'klog: write each entry only to its own severity file.' },
  { name: 'post-shutdown-grace-period', type: 'int', default: '10', description: 'Seconds the controller waits after nginx has stopped before exiting.' },
  { name: 'profiler-address', type: 'ip', default: '127.0.0.1', description: 'Address of the Go profiler endpoint.' },
  { name: 'profiler-port', type: 'int', default: '10245', description: 'Port of the Go profiler endpoint.' },
  { name: 'profiling', type: 'bool', default: 'true', description: 'Expose the Go profiler.' },
  { name: 'publish-service', type: 'string', default: '', description: 'Service (namespace/name) whose address is written into Ingress status.' },
  { name: 'publish-status-address', type: 'string', default: '', description: 'Fixed address(es), comma-separated, written into Ingress status.' },
  { name: 'report-node-internal-ip-address', type: 'bool', default: 'false', description: 'Write node internal addresses into Ingress status instead of external ones.' },
  { name: 'report-status-classes', type: 'bool', default: 'false', description: 'Label metrics with status classes (2xx, 3xx...) instead of codes.' },
  { name: 'shutdown-grace-period', type: 'int', default: '0', description: 'Seconds to wait after a stop signal before stopping nginx.' },
  { name: 'size-buckets', type: 'floats', default: '10,100,1000,10000,100000,1000000,10000000', description: 'Histogram buckets for bytes-sent metrics.' },
  { name: 'skip_headers', type: 'bool', default: 'false', description: 'klog: omit header prefixes from log lines.' },
  { name: 'skip_log_headers', type: 'bool', default: 'false', description: 'klog: omit headers when opening log files.' },
  { name: 'ssl-passthrough-proxy-port', type: 'int', default: '442', description: 'Internal port nginx listens on behind the TLS passthrough proxy.' },
  { name: 'status-port', type: 'int', default: '10246', description: 'Local port of the Lua configuration endpoint.' },
  { name: 'status-update-interval', type: 'int', default: '60', description: 'Seconds between checks whether Ingress status needs updating.' },
  { name: 'stderrthreshold', type: 'severity', default: '2', description: 'klog: lowest severity also sent to stderr when logging to files (2 = ERROR).' },
  { name: 'stream-port', type: 'int', default: '10247', description: 'Local port of the Lua TCP/UDP configuration endpoint.' },
  { name: 'sync-period', type: 'duration', default: '0s', description: 'Interval for forcing a resync of the informer caches (0 disables).' },
  { name: 'sync-rate-limit', type: 'float', default: '0.3', description: 'Maximum configuration syncs per second.' },
  { name: 'tcp-services-configmap', type: 'string', default: '', description: 'ConfigMap (namespace/name) mapping TCP ports to Services.' },
  { name: 'time-buckets', type: 'floats', default: '0.005,0.01,0.025,0.05,0.1,0.25,0.5,1,2.5,5,10', description: 'Histogram buckets for request and response time metrics.' },
  { name: 'udp-services-configmap', type: 'string', default: '', description: 'ConfigMap (namespace/name) mapping UDP ports to Services.' },
  { name: 'update-status', type: 'bool', default: 'true', description: 'Write the load balancer address into Ingress status.' },
  { name: 'update-status-on-shutdown', type: 'bool', default: 'true', description: 'Update Ingress status when the controller stops.' },
  { name: 'v', type: 'uint', default: '0', description: 'klog: log verbosity level.' },
  { name: 'validating-webhook', type: 'string', default: '', description: 'Address for the admission webhook server (off when empty).' },
  { name: 'validating-webhook-certificate', type: 'string', default: '', description: 'Certificate PEM file of the admission webhook.' },
  { name: 'validating-webhook-key', type: 'string', default: '', description: 'Private key PEM file of the admission webhook.' },
  { name: 'version', type: 'bool', default: 'false', description: 'Print version information and exit.' },
  { name: 'vmodule', type: 'string', default: '', description: 'klog: per-file verbosity, as pattern=N pairs.' },
  { name: 'watch-ingress-without-class', type: 'bool', default: 'false', description: 'Also serve Ingresses that name no class.' },
  { name: 'watch-namespace', type: 'string', default: '', description: 'Only watch this namespace (all when empty).' },
  { name: 'watch-namespace-selector', type: 'string', default: '', description: 'Label selector choosing the namespaces watched.' },
]);
