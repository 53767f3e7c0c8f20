// The controller's command line. Flag names and defaults follow ingress-nginx
// wherever the concept is the same, so existing manifests keep working; the
// differences are the class defaults (`resty`, `resty-ingress.dev/controller`)
// and --sync-rate-limit (see below). Every value is validated here, before
// anything starts.

import { Command, Option } from 'commander';

import type { BuildOptions, ReservedPort } from '../model/types.ts';
import packageJson from '../../../package.json' with { type: 'json' };
import { CommandLineExit, parseCommand } from './command-line-exit.ts';
import { logLevelOfVerbosity, takeIngressNginxArgs, type FlagNotice, type IngressNginxArgs } from './ingress-nginx-args.ts';
import * as parse from './validators.ts';
import { FLAGS } from './flag-specs.ts';
import type { LogLevel } from './validators.ts';

/** Everything the controller process is configured with. `null` = flag not set. */
export interface ControllerOptions extends BuildOptions {
  /** --kubeconfig: kubeconfig file; null = KUBECONFIG, in-cluster, or ~/.kube/config. */
  readonly kubeconfig: string | null;
  /** --apiserver-host: the API server's URL, replacing the kubeconfig's (or in-cluster) server; null = not set. */
  readonly apiserverHost: string | null;
  /** --certificate-authority: CA file for --apiserver-host (read only with it); null = not set. */
  readonly certificateAuthority: string | null;
  /**
   * --ingress-class-by-name: the IngressClass named --ingress-class is ours
   * whatever its spec.controller (ingress-nginx's meaning; model/ingress-class.ts).
   */
  readonly ingressClassByName: boolean;
  /** --disable-catch-all: Ingresses with a spec.defaultBackend are ignored (model/ingress-class.ts). */
  readonly disableCatchAll: boolean;
  /** --watch-namespace: the only namespace watched for namespaced kinds; null = all. */
  readonly watchNamespace: string | null;
  /** --configmap: `namespace/name` of the controller's ConfigMap, or null. */
  readonly configMap: string | null;
  /** --default-ssl-certificate: `namespace/name` of the TLS Secret served for unknown SNI, or null (self-signed). */
  readonly defaultSslCertificate: string | null;
  /** --http-port: NGINX's HTTP listener. */
  readonly httpPort: number;
  /** --https-port: NGINX's HTTPS listener. */
  readonly httpsPort: number;
  /** --status-port: NGINX's loopback status server (Lua configuration API). */
  readonly statusPort: number;
  /** --healthz-port: the controller's /healthz and /metrics server. */
  readonly healthzPort: number;
  /** --healthz-host: the address that server binds to; null = --bind-address. */
  readonly healthzHost: string | null;
  /** --health-check-path: liveness answers on this path too (/healthz always). */
  readonly healthCheckPath: string;
  /** --bind-address: address NGINX's HTTP/HTTPS listeners bind to. */
  readonly bindAddress: string;
  /** --nginx-prefix: NGINX prefix directory, holding nginx.conf, pid, temp paths and logs. */
  readonly nginxPrefix: string;
  /** --worker-processes: NGINX `worker_processes`. */
  readonly workerProcesses: number | 'auto';
  /** --sync-rate-limit: most syncs per second. */
  readonly syncRateLimit: number;
  /** --log-level: pino level. */
  readonly logLevel: LogLevel;
  /** --publish-service: `namespace/name` of the Service whose address goes into Ingress status, or null. */
  readonly publishService: string | null;
  /** --election-id: name of the leader-election Lease. */
  readonly electionId: string;
  /** --update-status: write the load-balancer address into Ingress status. */
  readonly updateStatus: boolean;
  /** --publish-status-address: addresses (IPs or DNS names) written into Ingress status; wins over --publish-service. Empty = not set. */
  readonly publishStatusAddress: readonly string[];
  /** --update-status-on-shutdown: the leader removes its address from Ingress status when it stops. */
  readonly updateStatusOnShutdown: boolean;
  /** --election-ttl: how long the leader Lease stays valid without renewal, in ms. */
  readonly electionTtlMs: number;
  /** --disable-leader-election: this replica always acts as the leader. */
  readonly disableLeaderElection: boolean;
  /** --disable-sync-events: no Normal `Sync` Events (Warnings are still written). */
  readonly disableSyncEvents: boolean;
  /** --validating-webhook: `[ip]:port` of the admission webhook's HTTPS server, or null (off). */
  readonly validatingWebhook: string | null;
  /** --validating-webhook-certificate / --validating-webhook-key: PEM files for the webhook's TLS. */
  readonly validatingWebhookCertificate: string | null;
  readonly validatingWebhookKey: string | null;
  /**
   * --validating-webhook-secret: `namespace/name` of the Secret holding the webhook's certificate, which
   * the controller then manages (issues, stores, renews; webhook-cert/); null = certificate files.
   */
  readonly validatingWebhookSecret: string | null;
  /** --validating-webhook-configuration: the ValidatingWebhookConfiguration whose caBundle the controller keeps. */
  readonly validatingWebhookConfiguration: string | null;
  /** --validating-webhook-service: `namespace/name` of the webhook's Service; its DNS names go into the certificate. */
  readonly validatingWebhookService: string | null;
  /** --validating-webhook-certificate-validity: lifetime of an issued serving certificate (renewed with a third left). */
  readonly validatingWebhookCertificateValidityMs: number;
  /**
   * --enable-metrics: per-request metrics. false = NGINX writes no metrics log and sets no labels per
   * request, and /metrics serves none of ingress-nginx's metrics (nginx_ingress_controller_*, as its
   * dummy collector) nor resty_ingress_monitor_rejected_total; resty-ingress's own resty_ingress_* stay.
   * The other metrics flags then do nothing.
   */
  readonly enableMetrics: boolean;
  /** --report-status-classes: per-request metrics label `status` as `2xx`/`3xx`/… instead of the code. */
  readonly reportStatusClasses: boolean;
  /** --metrics-per-host: per-request metrics carry the configured server name as label `host`. */
  readonly metricsPerHost: boolean;
  /**
   * --metrics-per-undefined-host: with --metrics-per-host, also count requests to hosts no Ingress
   * defines (the catch-all server's, a wildcard server's); false drops them, as ingress-nginx.
   */
  readonly metricsPerUndefinedHost: boolean;
  /** --time-buckets, --length-buckets, --size-buckets: histogram bounds, increasing; null = ingress-nginx's default. */
  readonly timeBuckets: readonly number[] | null;
  readonly lengthBuckets: readonly number[] | null;
  readonly sizeBuckets: readonly number[] | null;
  /** --exclude-socket-metrics: per-request metric names neither computed nor exported (the prefix optional). */
  readonly excludeSocketMetrics: readonly string[];
  /** --shutdown-grace-period: seconds between SIGTERM (health checks fail at once) and NGINX quitting. */
  readonly shutdownGracePeriod: number;
  /** --tcp-services-configmap: `namespace/name` of the ConfigMap of TCP services (ingress-nginx's format), or null. */
  readonly tcpServicesConfigMap: string | null;
  /** --udp-services-configmap: `namespace/name` of the ConfigMap of UDP services, or null. */
  readonly udpServicesConfigMap: string | null;
  /** --enable-ssl-passthrough: the ssl-passthrough annotation takes effect; the HTTPS port belongs to the stream SNI router. */
  readonly enableSslPassthrough: boolean;
  /** The ports above that NGINX or the controller listen on (and the webhook's), refused to TCP/UDP services. */
  readonly reservedPorts: readonly ReservedPort[];
  /** ingress-nginx flags accepted without a flag of ours (ignored ones, --v): main logs each once. */
  readonly flagNotices: readonly FlagNotice[];
}

/** Port flags that must all differ (NGINX and the controller listen on each). */
const PORT_KEYS = [
  ['httpPort', '--http-port'], ['httpsPort', '--https-port'],
  ['statusPort', '--status-port'], ['healthzPort', '--healthz-port'],
] as const;

function buildCommand(output: { out: string; err: string }): Command {
  const command = new Command('resty-ingress')
    .description('Kubernetes Ingress controller driving an OpenResty (NGINX + ngx_lua) data plane.\n`resty-ingress migrate --help`: what resty-ingress would do with an ingress-nginx install\'s Ingresses.')
    .version(packageJson.version, '--version', 'print the version and exit')
    .helpOption('-h, --help', 'list the flags and exit')
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => { output.out += text; },
      writeErr: (text) => { output.err += text; },
      outputError: () => {}, // the CommanderError carries the same message
    });
  for (const spec of FLAGS) {
    // A bare boolean flag (no value) is true: commander skips the parser for it.
    command.addOption(new Option(spec.flags, spec.description).default(spec.defaultValue).argParser(spec.parser as (value: string, previous: unknown) => unknown));
  }
  return command;
}

const orNull = (value: string): string | null => (value === '' ? null : value);

function toControllerOptions(raw: Record<string, unknown>, logLevelGiven: boolean, ingressNginx: IngressNginxArgs): ControllerOptions {
  const options: ControllerOptions = {
    kubeconfig: orNull(raw.kubeconfig as string),
    apiserverHost: orNull(raw.apiserverHost as string),
    certificateAuthority: orNull(raw.certificateAuthority as string),
    ingressClass: raw.ingressClass as string,
    controllerClass: raw.controllerClass as string,
    watchIngressWithoutClass: raw.watchIngressWithoutClass as boolean,
    ingressClassByName: raw.ingressClassByName as boolean,
    disableCatchAll: raw.disableCatchAll as boolean,
    watchNamespace: orNull(raw.watchNamespace as string),
    configMap: orNull(raw.configmap as string),
    defaultSslCertificate: orNull(raw.defaultSslCertificate as string),
    defaultBackendService: orNull(raw.defaultBackendService as string),
    annotationsPrefix: raw.annotationsPrefix as string,
    httpPort: raw.httpPort as number,
    httpsPort: raw.httpsPort as number,
    statusPort: raw.statusPort as number,
    healthzPort: raw.healthzPort as number,
    healthzHost: orNull(raw.healthzHost as string),
    healthCheckPath: raw.healthCheckPath as string,
    bindAddress: raw.bindAddress as string,
    nginxPrefix: raw.nginxPrefix as string,
    workerProcesses: raw.workerProcesses as number | 'auto',
    syncRateLimit: raw.syncRateLimit as number,
    // klog's --v stands for a level unless --log-level says one.
    logLevel: logLevelGiven || ingressNginx.verbosity === null ? raw.logLevel as LogLevel : logLevelOfVerbosity(ingressNginx.verbosity),
    publishService: orNull(raw.publishService as string),
    electionId: raw.electionId as string,
    updateStatus: raw.updateStatus as boolean,
    publishStatusAddress: (raw.publishStatusAddress as string).split(',').filter((entry) => entry !== ''),
    updateStatusOnShutdown: raw.updateStatusOnShutdown as boolean,
    // commander does not parse defaults: the default stays the text shown in --help.
    electionTtlMs: typeof raw.electionTtl === 'string' ? parse.parseDurationMs(raw.electionTtl) : raw.electionTtl as number,
    disableLeaderElection: raw.disableLeaderElection as boolean,
    disableSyncEvents: raw.disableSyncEvents as boolean,
    validatingWebhook: orNull(raw.validatingWebhook as string),
    validatingWebhookCertificate: orNull(raw.validatingWebhookCertificate as string),
    validatingWebhookKey: orNull(raw.validatingWebhookKey as string),
    validatingWebhookSecret: orNull(raw.validatingWebhookSecret as string),
    validatingWebhookConfiguration: orNull(raw.validatingWebhookConfiguration as string),
    validatingWebhookService: orNull(raw.validatingWebhookService as string),
    validatingWebhookCertificateValidityMs: typeof raw.validatingWebhookCertificateValidity === 'string'
      ? parse.parseCertificateValidityMs(raw.validatingWebhookCertificateValidity) : raw.validatingWebhookCertificateValidity as number,
    enableMetrics: raw.enableMetrics as boolean,
    reportStatusClasses: raw.reportStatusClasses as boolean,
    metricsPerHost: raw.metricsPerHost as boolean,
    metricsPerUndefinedHost: raw.metricsPerUndefinedHost as boolean,
    timeBuckets: (raw.timeBuckets as readonly number[] | undefined) ?? null,
    lengthBuckets: (raw.lengthBuckets as readonly number[] | undefined) ?? null,
    sizeBuckets: (raw.sizeBuckets as readonly number[] | undefined) ?? null,
    excludeSocketMetrics: (raw.excludeSocketMetrics as readonly string[] | undefined) ?? [],
    shutdownGracePeriod: raw.shutdownGracePeriod as number,
    tcpServicesConfigMap: orNull(raw.tcpServicesConfigmap as string),
    udpServicesConfigMap: orNull(raw.udpServicesConfigmap as string),
    enableSslPassthrough: raw.enableSslPassthrough as boolean,
    reservedPorts: [],
    flagNotices: ingressNginx.notices,
  };
  checkWebhookCertificateFlags(options);
  if (options.metricsPerUndefinedHost && !options.metricsPerHost) {
    // ingress-nginx refuses this pair too: without the host label there is no per-host metric to keep.
    throw CommandLineExit.usage('--metrics-per-undefined-host=true must be passed with --metrics-per-host=true');
  }
  for (const [i, [key, flag]] of PORT_KEYS.entries()) {
    const clash = PORT_KEYS.slice(0, i).find(([other]) => options[other] === options[key]);
    if (clash) throw CommandLineExit.usage(`${flag} ${options[key]} is the same port as ${clash[1]}`);
  }
  return Object.freeze({ ...options, reservedPorts: reservedPortsOf(options) });
}

/** The webhook's certificate comes from files or from the Secret the controller manages: exactly one. */
function checkWebhookCertificateFlags(options: ControllerOptions): void {
  const files = options.validatingWebhookCertificate !== null || options.validatingWebhookKey !== null;
  const managed = options.validatingWebhookSecret !== null;
  if (managed && files) {
    throw CommandLineExit.usage('--validating-webhook-secret and --validating-webhook-certificate/--validating-webhook-key exclude each other: the controller manages the certificate, or reads it from files');
  }
  if (managed && (options.validatingWebhookConfiguration === null || options.validatingWebhookService === null)) {
    throw CommandLineExit.usage('--validating-webhook-secret needs --validating-webhook-configuration (whose caBundle to keep) and --validating-webhook-service (the names to certify)');
  }
  if (managed && options.validatingWebhook === null) throw CommandLineExit.usage('--validating-webhook-secret needs --validating-webhook (the address to serve on)');
  if (options.validatingWebhook !== null && !managed && (options.validatingWebhookCertificate === null || options.validatingWebhookKey === null)) {
    throw CommandLineExit.usage('--validating-webhook needs --validating-webhook-certificate and --validating-webhook-key, or --validating-webhook-secret (the API server calls webhooks over HTTPS only)');
  }
}

/** The ports no TCP/UDP service may take: every port flag, and the webhook's when it is on. */
function reservedPortsOf(options: ControllerOptions): readonly ReservedPort[] {
  const ports: ReservedPort[] = PORT_KEYS.map(([key, flag]) => ({ port: options[key], flag }));
  const webhookPort = /:(\d+)$/u.exec(options.validatingWebhook ?? '')?.[1];
  if (webhookPort !== undefined) ports.push({ port: Number(webhookPort), flag: '--validating-webhook' });
  return Object.freeze(ports.map((entry) => Object.freeze(entry)));
}

/**
 * Parses the user's arguments (process.argv.slice(2)) into validated options.
 * Throws CommandLineExit for --help/--version (exit 0) and for any unknown
 * flag, refused ingress-nginx flag or bad value (exit 2, a one-line message
 * naming the flag). ingress-nginx flags we have no flag for are taken first
 * (ingress-nginx-args.ts).
 */
export function parseOptions(argv: readonly string[]): ControllerOptions {
  const output = { out: '', err: '' };
  const command = buildCommand(output);
  const ingressNginx = takeIngressNginxArgs(argv, (name) => name === 'version' || hasFlag(name));
  parseCommand(command, ingressNginx.rest, output);
  return toControllerOptions(command.opts(), command.getOptionValueSource('logLevel') === 'cli', ingressNginx);
}

/** True when the controller has the flag `--<name>` (`resty-ingress migrate` checks Helm extraArgs with it). */
export function hasFlag(name: string): boolean {
  return FLAGS.some((spec) => spec.flags.split(' ')[0] === `--${name}`);
}

/** The --help text (what `resty-ingress --help` prints). */
export function helpText(): string {
  return buildCommand({ out: '', err: '' }).helpInformation();
}
