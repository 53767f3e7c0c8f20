// Is the Kubernetes API there? Every part that talks to it (the informers,
// leader election, status, Events) reports its failures and answers here, so
// that an outage is ONE warning when it begins and ONE info line, with its
// length, when it ends, instead of a stack trace per retry per informer
// (a 60 s outage logged 74 of them). Only failures an outage explains count:
// refused or reset connections, timeouts, 429 and 5xx answers. Anything else
// (403, a decoding bug) is the caller's to log in full, stack included.

import type { Logger } from 'pino';

/** Network error codes an unreachable or restarting API server produces. */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH',
  'EHOSTDOWN', 'ENETDOWN', 'EAI_AGAIN', 'ERR_STREAM_PREMATURE_CLOSE', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT',
]);

/** A request gave up waiting (an informer's list, a watch without response headers). */
export class ApiTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ApiTimeoutError';
  }
}

interface ErrorFields {
  readonly code?: unknown;
  readonly statusCode?: unknown;
  readonly type?: unknown;
  readonly name?: unknown;
  readonly message?: unknown;
  readonly cause?: unknown;
}

/** The HTTP status an error carries (ApiException.code, Watch's statusCode, a watch ERROR event's code), or null. */
function httpStatusOf(err: ErrorFields): number | null {
  for (const value of [err.statusCode, err.code]) {
    if (typeof value === 'number' && value >= 100 && value < 600) return value;
  }
  return null;
}

/** What made the request fail, as a short label ("ECONNREFUSED", "HTTP 503", "timeout"), when an outage explains it; else null. */
export function outageReason(err: unknown): string | null {
  let current: unknown = err;
  // A wrapped error (fetch's `cause`) names the network code one or two levels down.
  for (let depth = 0; depth < 3 && current !== null && typeof current === 'object'; depth++) {
    const fields = current as ErrorFields;
    if (typeof fields.code === 'string' && NETWORK_CODES.has(fields.code)) return fields.code;
    const status = httpStatusOf(fields);
    if (status !== null) return status === 429 || status >= 500 ? `HTTP ${status}` : null;
    if (current instanceof ApiTimeoutError || fields.name === 'TimeoutError' || fields.type === 'request-timeout') return 'timeout';
    current = fields.cause;
  }
  return null;
}

/** The first line of an error's message, without a stack: enough to say what failed. */
export function briefError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n', 1)[0] ?? '';
}

export interface ApiAvailability {
  /**
   * A request to the API failed. True when an outage explains it: it is
   * recorded (the first one of an outage logs the warning) and the caller
   * should log no more than a debug line. False: the caller logs it in full.
   */
  failed(err: unknown, what: string): boolean;
  /** The API answered a request (any HTTP answer but 429/5xx): ends an outage, logging its length. */
  reached(): void;
  /** True between an outage's first failure and the next answer. */
  isDown(): boolean;
}

/** One tracker per process: every API client shares it, so an outage is logged once. */
export function createApiAvailability(logger: Logger, now: () => number = Date.now): ApiAvailability {
  let downSince: number | null = null;
  let failures = 0;
  return {
    failed(err, what): boolean {
      const reason = outageReason(err);
      if (reason === null) return false;
      failures += 1;
      if (downSince === null) {
        downSince = now();
        failures = 1;
        logger.warn({ reason, request: what, error: briefError(err) }, 'Kubernetes API unavailable; retrying (one line when it is back)');
      }
      return true;
    },
    reached(): void {
      if (downSince === null) return;
      const outageMs = now() - downSince;
      downSince = null;
      logger.info({ outageMs, failedRequests: failures }, 'Kubernetes API available again');
    },
    isDown: () => downSince !== null,
  };
}
