// What render needs besides the Model: where NGINX lives and how it runs.
// Everything here comes from the command line or the data-plane runtime
// (controller/src/nginx/dataplane.ts); render receives plain values and
// imports nothing of nginx/.

import { isAbsolute, resolve } from 'node:path';
import { RenderError, quoteLuaSearchPath } from './nginx-values.ts';

/** The parts of the data-plane runtime that appear in nginx.conf (see Dataplane in CONTRACTS.md). */
export interface DataplaneValues {
  /** Absolute paths for `load_module`, in load order (ndk before lua). */
  readonly modules: readonly string[];
  /** Absolute path of ngx_stream_module.so, loaded only when the model has TCP/UDP services (absent: none can be rendered). */
  readonly streamModule?: string;
  /** Absolute path of ngx_stream_js_module.so (njs), loaded with the stream module: it picks the TCP/UDP endpoints. */
  readonly streamJsModule?: string;
  /** Absolute path of resty_stream.js, the njs module stream {} imports. */
  readonly streamScript?: string;
  /** Value for `lua_package_path` (our lua/ dir first, ending in `;;`). */
  readonly luaPackagePath: string;
  /** Value for `lua_package_cpath` (cjson). */
  readonly luaPackageCPath: string;
}

/** NGINX error_log levels, least to most severe. */
export const ERROR_LOG_LEVELS = ['debug', 'info', 'notice', 'warn', 'error', 'crit', 'alert', 'emerg'] as const;
export type ErrorLogLevel = (typeof ERROR_LOG_LEVELS)[number];

/** Everything about the NGINX instance that shapes nginx.conf, apart from the Model. */
export interface RenderOptions {
  /** Folder holding the `*.njk` templates (rootfs/etc/nginx/template in the repo and the image). */
  readonly templateDir: string;
  /** Absolute NGINX prefix folder (`nginx -p`): pid, logs and every temp path are put inside it. */
  readonly prefix: string;
  /** Address the public server(s) listen on: `0.0.0.0` in a pod, `127.0.0.1` in tests. */
  readonly listenAddress: string;
  /** Port of the public HTTP listener (ingress-nginx: --http-port, 80). */
  readonly httpPort: number;
  /**
   * Port of the public HTTPS listener (ingress-nginx: --https-port, 443); absent = no HTTPS.
   * Its placeholder certificate is `<prefix>/ssl/default.crt` + `.key` (see defaultCertificatePaths),
   * which the caller writes before NGINX starts; Lua serves the real ones by SNI.
   */
  readonly httpsPort?: number;
  /** Port of the Lua configuration/status server; it always listens on 127.0.0.1 (ingress-nginx: 10246). */
  readonly statusPort: number;
  /** `worker_processes`: a count or `auto` (one per CPU). */
  readonly workerProcesses: number | 'auto';
  /** `worker_shutdown_timeout` in seconds: how long old workers may finish requests after a reload (default 240). */
  readonly workerShutdownTimeout?: number;
  /** Module and Lua paths of the data-plane runtime. */
  readonly dataplane: DataplaneValues;
  /** `error_log` level (default `notice`). */
  readonly errorLogLevel?: ErrorLogLevel;
  /** Write `<prefix>/access.log` (true) or `access_log off` (false; default true). */
  readonly accessLog?: boolean;
  /**
   * Per-request metrics (--enable-metrics; default true): NGINX writes a line per
   * proxied request to `metricsLogPath(prefix)`. false renders no such log, so
   * requests pay nothing for metrics ($resty_route stays: the balancer reads it).
   */
  readonly requestMetrics?: boolean;
}

/** RenderOptions with every default filled in; what the templates and the version hash see. */
export interface ResolvedRenderOptions extends Required<Omit<RenderOptions, 'templateDir' | 'httpsPort'>> {
  readonly templateDir: string;
  /** null = no HTTPS listener. */
  readonly httpsPort: number | null;
}

/** Where NGINX's placeholder certificate (the controller's self-signed default) lives in the prefix. */
export function defaultCertificatePaths(prefix: string): { readonly certificate: string; readonly key: string } {
  const dir = `${resolve(prefix)}/ssl`;
  return { certificate: `${dir}/default.crt`, key: `${dir}/default.key` };
}

/**
 * The per-request metrics log: NGINX writes it (one line per proxied request,
 * format in docs/CONTRACTS.md), the controller tails it and, to rotate it,
 * renames it to `<this>.old` and has NGINX reopen its logs.
 */
export function metricsLogPath(prefix: string): string {
  return `${resolve(prefix)}/metrics.log`;
}

/**
 * The unix sockets of NGINX's own fallback servers (http.njk), peers the Lua
 * balancer picks for a request it has no backend peer for: `unavailable`
 * answers 503, `httpsRedirect` the ssl-redirect (docs/CONTRACTS.md). They
 * live in `dir`, which NGINX creates reachable by its workers only (http.njk
 * says how): NGINX makes every unix socket 0666.
 */
export function fallbackSocketPaths(prefix: string): { readonly dir: string; readonly unavailable: string; readonly httpsRedirect: string } {
  const dir = `${resolve(prefix)}/sockets`;
  return { dir, unavailable: `${dir}/unavailable.sock`, httpsRedirect: `${dir}/https-redirect.sock` };
}

/**
 * The unix socket of the stream endpoint feed (stream.njk, njs): in the same directory as the
 * fallback sockets, so only NGINX's workers' user (the controller's) can connect to it.
 */
export function streamFeedSocketPath(prefix: string): string {
  return `${fallbackSocketPaths(prefix).dir}/stream-feed.sock`;
}

/** A unix socket path's limit on Linux (sun_path, 108 bytes with its NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

/** ingress-nginx's `worker-shutdown-timeout` default. */
export const DEFAULT_WORKER_SHUTDOWN_TIMEOUT_SECONDS = 240;

const IPV4_ADDRESS = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/u;

function invalid(field: string, value: unknown, expected: string): never {
  throw new RenderError('InvalidOptions', `render options: ${field} must be ${expected}, got ${JSON.stringify(value)}`);
}

function checkPort(field: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65535) {
    invalid(field, value, 'an integer port 1..65535');
  }
}

function checkAbsolutePath(field: string, value: unknown): void {
  if (typeof value !== 'string' || !isAbsolute(value)) invalid(field, value, 'an absolute path');
}

/** Checks options and fills defaults; throws RenderError('InvalidOptions') naming the bad field. */
export function resolveRenderOptions(options: RenderOptions): ResolvedRenderOptions {
  checkAbsolutePath('templateDir', options.templateDir);
  checkAbsolutePath('prefix', options.prefix);
  const sockets = fallbackSocketPaths(options.prefix);
  if (Buffer.byteLength(sockets.httpsRedirect) > MAX_SOCKET_PATH_BYTES) {
    invalid('prefix', options.prefix, `short enough for its unix sockets (${sockets.httpsRedirect} is over ${MAX_SOCKET_PATH_BYTES} bytes)`);
  }
  if (typeof options.listenAddress !== 'string' || !IPV4_ADDRESS.test(options.listenAddress)) {
    invalid('listenAddress', options.listenAddress, 'an IPv4 address');
  }
  checkPort('httpPort', options.httpPort);
  checkPort('statusPort', options.statusPort);
  if (options.httpPort === options.statusPort) invalid('statusPort', options.statusPort, 'different from httpPort');
  const httpsPort = options.httpsPort ?? null;
  if (httpsPort !== null) {
    checkPort('httpsPort', httpsPort);
    if (httpsPort === options.httpPort || httpsPort === options.statusPort) invalid('httpsPort', httpsPort, 'different from httpPort and statusPort');
  }
  const workers = options.workerProcesses;
  if (workers !== 'auto' && (typeof workers !== 'number' || !Number.isInteger(workers) || workers < 1)) {
    invalid('workerProcesses', workers, "a positive integer or 'auto'");
  }
  const shutdown = options.workerShutdownTimeout ?? DEFAULT_WORKER_SHUTDOWN_TIMEOUT_SECONDS;
  if (!Number.isInteger(shutdown) || shutdown < 0) {
    invalid('workerShutdownTimeout', shutdown, 'a non-negative integer (seconds)');
  }
  const level = options.errorLogLevel ?? 'notice';
  if (!(ERROR_LOG_LEVELS as readonly string[]).includes(level)) {
    invalid('errorLogLevel', level, `one of ${ERROR_LOG_LEVELS.join(', ')}`);
  }
  const dataplane = options.dataplane;
  if (dataplane === undefined || !Array.isArray(dataplane.modules)) {
    invalid('dataplane.modules', dataplane?.modules, 'an array of absolute paths');
  }
  dataplane.modules.forEach((module, i) => checkAbsolutePath(`dataplane.modules[${i}]`, module));
  for (const field of ['streamModule', 'streamJsModule', 'streamScript'] as const) {
    if (dataplane[field] !== undefined) checkAbsolutePath(`dataplane.${field}`, dataplane[field]);
  }
  for (const field of ['luaPackagePath', 'luaPackageCPath'] as const) {
    try {
      quoteLuaSearchPath(dataplane[field]);
    } catch {
      invalid(`dataplane.${field}`, dataplane[field], 'a ;-separated Lua search path of safe entries');
    }
  }
  return {
    templateDir: options.templateDir,
    // resolve() drops a trailing slash so `${prefix}/nginx.pid` stays clean
    prefix: resolve(options.prefix),
    listenAddress: options.listenAddress,
    httpPort: options.httpPort,
    httpsPort,
    statusPort: options.statusPort,
    workerProcesses: workers,
    workerShutdownTimeout: shutdown,
    dataplane: {
      modules: [...dataplane.modules],
      ...(dataplane.streamModule === undefined ? {} : { streamModule: dataplane.streamModule }),
      ...(dataplane.streamJsModule === undefined ? {} : { streamJsModule: dataplane.streamJsModule }),
      ...(dataplane.streamScript === undefined ? {} : { streamScript: dataplane.streamScript }),
      luaPackagePath: dataplane.luaPackagePath,
      luaPackageCPath: dataplane.luaPackageCPath,
    },
    errorLogLevel: level,
    accessLog: options.accessLog ?? true,
    requestMetrics: options.requestMetrics ?? true,
  };
}
