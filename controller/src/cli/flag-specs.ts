// Every flag of the controller's command line, in help order: its commander
// spelling, help text, typed default and strict parser. options.ts builds the
// command from this table and turns what it parsed into ControllerOptions.

import * as metricsFlags from './metrics-flags.ts';
import * as parse from './validators.ts';

/** One flag: its commander spelling, help text, default (already typed) and parser. */
export interface FlagSpec {
  readonly flags: string;
  readonly description: string;
  /** undefined: the flag's absence means ingress-nginx's default, which the option's user owns. */
  readonly defaultValue: string | number | boolean | undefined;
  /** `previous`: the value so far (the default, or what an earlier occurrence gave: slices append). */
  readonly parser: (value: string, previous: never) => unknown;
}

const bool = (flags: string, description: string, defaultValue: boolean): FlagSpec =>
  ({ flags: `${flags} [bool]`, description, defaultValue, parser: parse.parseBoolean });

/** Every flag, in help order. Empty-string defaults mean "not set". */
export const FLAGS: readonly FlagSpec[] = [
  { flags: '--kubeconfig <path>', description: 'kubeconfig file; unset: KUBECONFIG, in-cluster service account, ~/.kube/config', defaultValue: '', parser: parse.parseFilePath },
  { flags: '--apiserver-host <url>', description: 'API server URL, replacing the server of the kubeconfig or the in-cluster one (the credentials stay)', defaultValue: '', parser: parse.parseApiserverHost },
  { flags: '--certificate-authority <path>', description: 'CA file the --apiserver-host server is checked against', defaultValue: '', parser: parse.parseFilePath },
  { flags: '--ingress-class <name>', description: 'value of the kubernetes.io/ingress.class annotation and IngressClass name this controller owns', defaultValue: 'resty', parser: parse.parseObjectName },
  { flags: '--controller-class <class>', description: 'IngressClass spec.controller value this controller owns', defaultValue: 'resty-ingress.dev/controller', parser: parse.parseControllerClass },
  bool('--watch-ingress-without-class', 'also handle Ingresses that name no class at all', false),
  bool('--ingress-class-by-name', 'the IngressClass named --ingress-class is ours whatever its spec.controller', false),
  { flags: '--watch-namespace <namespace>', description: 'watch only this namespace (IngressClasses stay cluster-wide); "" = all', defaultValue: '', parser: parse.parseNamespace },
  { flags: '--configmap <namespace/name>', description: 'ConfigMap with global NGINX settings', defaultValue: '', parser: parse.parseNamespacedName },
  { flags: '--default-ssl-certificate <namespace/name>', description: 'kubernetes.io/tls Secret served for unknown SNI and hosts without a valid certificate; "" = a self-signed one made at start', defaultValue: '', parser: parse.parseNamespacedName },
  bool('--disable-catch-all', 'ignore Ingresses that have a spec.defaultBackend (no tenant can take the catch-all server)', false),
  { flags: '--default-backend-service <namespace/name>', description: 'Service answering requests no rule matches; "" = built-in 404', defaultValue: '', parser: parse.parseNamespacedName },
  { flags: '--annotations-prefix <prefix>', description: 'prefix of the annotations read from Ingresses', defaultValue: 'nginx.ingress.kubernetes.io', parser: parse.parseAnnotationsPrefix },
  { flags: '--http-port <port>', description: 'port NGINX serves HTTP on', defaultValue: 80, parser: parse.parsePort },
  { flags: '--https-port <port>', description: 'port NGINX serves HTTPS on', defaultValue: 443, parser: parse.parsePort },
  { flags: '--status-port <port>', description: 'loopback port of NGINX\'s status and configuration server', defaultValue: 10246, parser: parse.parsePort },
  { flags: '--healthz-port <port>', description: 'port of the controller\'s /healthz and /metrics', defaultValue: 10254, parser: parse.parsePort },
  { flags: '--healthz-host <ip>', description: 'address the /healthz and /metrics server binds to; "" = --bind-address', defaultValue: '', parser: parse.parseOptionalIpAddress },
  { flags: '--health-check-path <path>', description: 'another path liveness answers on (ingress-nginx\'s health path); /healthz always answers', defaultValue: '/healthz', parser: parse.parseHealthPath },
  { flags: '--bind-address <ip>', description: 'address NGINX\'s HTTP and HTTPS listeners bind to', defaultValue: '0.0.0.0', parser: parse.parseIpAddress },
  { flags: '--nginx-prefix <dir>', description: 'NGINX prefix directory for nginx.conf, pid, temp files and logs', defaultValue: '/tmp/resty-ingress', parser: parse.parseSafeAbsolutePath },
  { flags: '--worker-processes <n>', description: 'NGINX worker processes: "auto" (one per core) or a number', defaultValue: 'auto', parser: parse.parseWorkerProcesses },
  // ingress-nginx defaults to 0.3/s because every sync may reload NGINX. Here
  // most syncs only PATCH changed endpoints to Lua, and a reload runs in the
  // background, one at a time (its own duration spaces reloads). So the
  // spacing only adds latency: 50/s (20 ms) lets the coalescing queue, not a
  // timer, bound bursts (every change waits for at most the running sync plus
  // its own), which keeps propagation p99 under 100 ms at 1,000 backends.
  // Cost: under sustained churn syncs run back to back (at most one core).
  { flags: '--sync-rate-limit <per-second>', description: 'most syncs per second (ingress-nginx: 0.3; higher here because endpoint pushes need no reload)', defaultValue: 50, parser: parse.parsePositiveNumber },
  { flags: '--log-level <level>', description: `log level: ${parse.LOG_LEVELS.join(', ')}`, defaultValue: 'info', parser: parse.parseLogLevel },
  { flags: '--publish-service <namespace/name>', description: 'Service whose load-balancer address is written into Ingress status', defaultValue: '', parser: parse.parseNamespacedName },
  { flags: '--election-id <name>', description: 'name of the leader-election Lease', defaultValue: 'ingress-controller-leader', parser: parse.parseObjectName },
  bool('--update-status', 'write the load-balancer address into Ingress status', true),
  { flags: '--publish-status-address <addresses>', description: 'comma list of IPs and DNS names written into Ingress status (wins over --publish-service)', defaultValue: '', parser: parse.parseAddressList },
  bool('--update-status-on-shutdown', 'the leader removes its address from Ingress status when it stops', true),
  { flags: '--election-ttl <duration>', description: 'how long the leader-election Lease stays valid without renewal', defaultValue: '30s', parser: parse.parseDurationMs },
  bool('--disable-leader-election', 'act as the leader without a Lease (one replica only)', false),
  bool('--disable-sync-events', 'write no Normal "Sync" Events (Warning Events stay)', false),
  { flags: '--validating-webhook <[ip]:port>', description: 'serve the validating admission webhook (HTTPS) on this address, e.g. :8443; "" = off', defaultValue: '', parser: parse.parseListenAddress },
  { flags: '--validating-webhook-certificate <path>', description: 'PEM certificate of the admission webhook', defaultValue: '', parser: parse.parseFilePath },
  { flags: '--validating-webhook-key <path>', description: 'PEM private key of the admission webhook', defaultValue: '', parser: parse.parseFilePath },
  { flags: '--validating-webhook-secret <namespace/name>', description: 'Secret where the controller keeps the webhook certificate it issues and renews (instead of --validating-webhook-certificate/-key)', defaultValue: '', parser: parse.parseNamespacedName },
  { flags: '--validating-webhook-configuration <name>', description: 'ValidatingWebhookConfiguration whose caBundle the controller keeps (with --validating-webhook-secret)', defaultValue: '', parser: parse.parseObjectName },
  { flags: '--validating-webhook-service <namespace/name>', description: 'the webhook\'s Service: its DNS names go into the certificate (with --validating-webhook-secret)', defaultValue: '', parser: parse.parseNamespacedName },
  { flags: '--validating-webhook-certificate-validity <duration>', description: 'lifetime of an issued webhook certificate, renewed when a third is left (10s to 87600h)', defaultValue: '8760h', parser: parse.parseCertificateValidityMs },
  // ingress-nginx's switch. Off saves NGINX the per-request metrics work (a `set` and a buffered log line, ~0.35 µs of CPU per request).
  bool('--enable-metrics', 'ingress-nginx\'s metrics (per-request: requests, duration and size by Ingress path; NGINX, controller, certificates); false: NGINX writes no metrics log and /metrics keeps only resty_ingress_*', true),
  bool('--report-status-classes', 'per-request metrics report status classes (2xx, 3xx, ...) instead of status codes', false),
  bool('--metrics-per-host', 'per-request metrics carry the configured host name as label "host"', true),
  bool('--metrics-per-undefined-host', 'with --metrics-per-host, also count requests to hosts no Ingress defines (catch-all, wildcard servers); false drops them', false),
  { flags: '--time-buckets <bounds>', description: 'bucket bounds of the request, response, connect and header duration histograms, increasing; default 0.005,0.01,0.025,0.05,0.1,0.25,0.5,1,2.5,5,10', defaultValue: undefined, parser: metricsFlags.parseBuckets },
  { flags: '--length-buckets <bounds>', description: 'bucket bounds of the request and response size histograms; default 10,20,30,40,50,60,70,80,90,100', defaultValue: undefined, parser: metricsFlags.parseBuckets },
  { flags: '--size-buckets <bounds>', description: 'bucket bounds of the bytes_sent histogram; default 10,100,1000,10000,100000,1e+06,1e+07', defaultValue: undefined, parser: metricsFlags.parseBuckets },
  { flags: '--exclude-socket-metrics <names>', description: 'comma list of per-request metrics neither computed nor exported, e.g. nginx_ingress_controller_header_duration_seconds', defaultValue: undefined, parser: metricsFlags.parseMetricNames },
  { flags: '--tcp-services-configmap <namespace/name>', description: 'ConfigMap of TCP services: "<port>": "<namespace>/<service>:<port>[:PROXY][:PROXY]"; "" = none', defaultValue: '', parser: parse.parseNamespacedName },
  { flags: '--udp-services-configmap <namespace/name>', description: 'ConfigMap of UDP services: "<port>": "<namespace>/<service>:<port>"; "" = none', defaultValue: '', parser: parse.parseNamespacedName },
  bool('--enable-ssl-passthrough', 'the HTTPS port reads each TLS connection\'s SNI: hosts with the ssl-passthrough annotation go undecrypted to their backend, the others to NGINX\'s HTTPS server (docs/ssl-passthrough.md)', false),
  { flags: '--shutdown-grace-period <seconds>', description: 'seconds to keep serving after SIGTERM while /healthz fails, before NGINX quits', defaultValue: 0, parser: parse.parseSeconds },
];
