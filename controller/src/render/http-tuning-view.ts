// What the http- and main-level ConfigMap keys print (features/http-tuning.njk,
// features/tls-session.njk, nginx.conf.njk): gzip, HTTP/2, the hash table
// sizes, the access log's escaping and skipped URIs, the workers and the error
// log's level. A worker or error-log key the ConfigMap leaves unset keeps the
// command line's value (the render options). Hash sizes never go below what
// this nginx.conf needs: a table too small fails nginx -t, every reload with it.

import type { AccessLogSettings, GzipSettings, HashSizeSettings, Http2Settings, Model, TlsSessionSettings, WorkerSettings } from '../model/types.ts';
import { parseTicketKey } from '../model/features/tls-session.ts';
import { readDhParams } from '../model/dh-params.ts';
import { dhParamFile, ticketKeyFile } from '../model/tls-session-files.ts';
import { RenderError } from './nginx-values.ts';
import type { ErrorLogLevel, ResolvedRenderOptions } from './render-options.ts';

/** NGINX's own defaults on x86-64, which this nginx.conf is known to fit. */
const MIN_VARIABLES_BUCKET = 64;
const MIN_VARIABLES_TABLE = 1024;
const MIN_MAP_BUCKET = 64;

export interface HttpTuningView {
  /** null: gzip off (NGINX's default, nothing printed). */
  readonly gzip: (Omit<GzipSettings, 'enabled'> & { readonly types: readonly string[] }) | null;
  readonly http2: Http2Settings;
  readonly hash: { readonly variablesBucketSize: number; readonly variablesMaxSize: number; readonly mapBucketSize: number };
  /** `escape=` of log_format upstreaminfo, or null (NGINX's default escaping). */
  readonly logEscape: 'json' | 'none' | null;
  /** The log format reads $namespace, $ingress_name, $service_name or $service_port: their maps are printed. */
  readonly locationLogVariables: boolean;
  /** skip-access-log-urls: `map $request_uri $resty_loggable` entries; empty = no map, no `if=`. */
  readonly skipUrls: readonly string[];
  readonly tlsSession: TlsSessionSettings;
  /** ssl-session-ticket-key: the file the controller writes (model/tls-session-files.ts), or null. */
  readonly ticketKeyPath: string | null;
  /** ssl-dh-param: the parameters' file the controller writes, or null. */
  readonly dhParamPath: string | null;
}

export interface MainView {
  readonly workerProcesses: 'auto' | number;
  readonly workerConnections: number;
  readonly workerShutdownTimeout: number;
  readonly errorLogLevel: ErrorLogLevel;
}

function required<T>(value: T | undefined, name: string): T {
  if (value === undefined || value === null || typeof value !== 'object') {
    throw new RenderError('UnsafeValue', `model: settings.${name} is missing`);
  }
  return value;
}

/** ingress-nginx's per-location log variables (features/http-tuning.njk maps them from $resty_route). */
const LOCATION_LOG_VARIABLE = /\$\{?(?:namespace|ingress_name|service_name|service_port)(?![A-Za-z0-9_])/u;

function escapeOf(accessLog: AccessLogSettings): HttpTuningView['logEscape'] {
  // ingress-nginx: escape=none wins over escape=json.
  if (accessLog.escapeNone === true) return 'none';
  return accessLog.escapeJson ? 'json' : null;
}

/**
 * The longest whole-string key of a map the ConfigMap fills (block-user-agents, block-referers,
 * skip-access-log-urls; regex keys are not hashed).
 */
function longestMapKey(model: Model): number {
  const access = model.settings?.accessControl;
  const patterns = [...(access?.blockUserAgents ?? []), ...(access?.blockReferers ?? [])].filter((p) => p.kind === 'exact').map((p) => p.value);
  return Math.max(0, ...patterns.map((key) => key.length), ...(model.settings?.accessLog?.skipUrls ?? []).map((key) => key.length));
}

/**
 * The map_hash_bucket_size that holds a key of `length` bytes: NGINX's hash element (an 8-byte value
 * pointer, the key and its 2-byte length aligned to 8) plus the bucket's 8-byte end mark, as a power
 * of two; a smaller bucket fails nginx -t ("could not build map_hash") and so every reload.
 */
export function mapBucketFor(length: number): number {
  const needed = 8 + Math.ceil((length + 2) / 8) * 8 + 8;
  return 2 ** Math.ceil(Math.log2(needed));
}

/** The ticket key file's path; a key the model did not validate stops the render (it names a file the controller writes). */
function ticketKeyPathOf(tlsSession: TlsSessionSettings, prefix: string): string | null {
  const key = tlsSession.ticketKey;
  if (key === undefined || key === null) return null;
  if (typeof key !== 'string' || !parseTicketKey(key).ok) throw new RenderError('UnsafeValue', 'model: settings.tlsSession.ticketKey is not a valid key');
  return ticketKeyFile(prefix, tlsSession)?.path ?? null;
}

/** The DH parameters' file path; parameters the model did not rebuild from validated numbers stop the render. */
function dhParamPathOf(tlsSession: TlsSessionSettings, prefix: string): string | null {
  const pem = tlsSession.dhParam;
  if (pem === undefined || pem === null) return null;
  if (typeof pem !== 'string' || !readDhParams(pem).ok) throw new RenderError('UnsafeValue', 'model: settings.tlsSession.dhParam is not valid DH parameters');
  return dhParamFile(prefix, tlsSession)?.path ?? null;
}

/** The http-level view of `model`'s settings (`prefix`: where the ticket key file is). */
export function httpTuningView(model: Model, prefix: string): HttpTuningView {
  const gzip = required<GzipSettings>(model.settings?.gzip, 'gzip');
  const hash = required<HashSizeSettings>(model.settings?.hashSizes, 'hashSizes');
  const accessLog = required<AccessLogSettings>(model.settings?.accessLog, 'accessLog');
  const tlsSession = required<TlsSessionSettings>(model.settings?.tlsSession, 'tlsSession');
  return {
    gzip: gzip.enabled ? { level: gzip.level, minLength: gzip.minLength, types: gzip.types, disable: gzip.disable } : null,
    http2: required<Http2Settings>(model.settings?.http2, 'http2'),
    hash: {
      variablesBucketSize: Math.max(MIN_VARIABLES_BUCKET, hash.variablesBucketSize),
      variablesMaxSize: Math.max(MIN_VARIABLES_TABLE, hash.variablesMaxSize),
      mapBucketSize: Math.max(MIN_MAP_BUCKET, hash.mapBucketSize, mapBucketFor(longestMapKey(model))),
    },
    logEscape: escapeOf(accessLog),
    locationLogVariables: LOCATION_LOG_VARIABLE.test(accessLog.format),
    skipUrls: accessLog.skipUrls ?? [],
    tlsSession,
    ticketKeyPath: ticketKeyPathOf(tlsSession, prefix),
    dhParamPath: dhParamPathOf(tlsSession, prefix),
  };
}

/** The main context: the ConfigMap's worker and error-log keys over the command line's. */
export function mainView(model: Model, options: ResolvedRenderOptions): MainView {
  const workers = required<WorkerSettings>(model.settings?.workers, 'workers');
  const accessLog = required<AccessLogSettings>(model.settings?.accessLog, 'accessLog');
  return {
    // `auto` is ingress-nginx's default: the command line's --worker-processes (also auto by default) stays in charge.
    workerProcesses: workers.processes === 'auto' ? options.workerProcesses : workers.processes,
    workerConnections: workers.connections,
    workerShutdownTimeout: workers.shutdownTimeout,
    errorLogLevel: accessLog.errorLogLevel ?? options.errorLogLevel,
  };
}

/** server_names_hash_* : the ConfigMap's values where they exceed what the host names need (as ingress-nginx). */
export function withConfiguredServerNames(computed: { readonly maxSize: number; readonly bucketSize: number }, model: Model): { readonly maxSize: number; readonly bucketSize: number } {
  const hash = required<HashSizeSettings>(model.settings?.hashSizes, 'hashSizes');
  return {
    maxSize: Math.max(computed.maxSize, hash.serverNamesMaxSize),
    bucketSize: Math.max(computed.bucketSize, hash.serverNamesBucketSize),
  };
}
