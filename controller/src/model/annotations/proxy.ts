// Proxy tuning annotations: body size, the three timeouts, the upstream
// protocol, and the balancing algorithm (which lives on the Backend, applied
// by Lua without a reload).

import { accept, refuse, type Checked } from '../checked.ts';
import type { LoadBalance } from '../types.ts';
import type { AnnotationSpec } from './types.ts';
import { parseOneOf, parseSeconds } from './values.ts';

/** An hour is the longest timeout we accept: longer ones hide broken backends. */
const MAX_TIMEOUT_SECONDS = 3600;

function parseBodySize(value: string): Checked<string> {
  // `0` disables the limit in NGINX; units k/m/g in either case.
  return /^\d{1,12}[kKmMgG]?$/.test(value) ? accept(value) : refuse('expected an NGINX size such as 0, 512k, 8m or 1g');
}

/** Protocols ingress-nginx knows but this controller does not proxy yet. */
const UNSUPPORTED_PROTOCOLS = new Set(['GRPC', 'GRPCS', 'AUTO_HTTP', 'FCGI']);

function parseProtocol(value: string): Checked<'HTTP' | 'HTTPS'> {
  const upper = value.toUpperCase();
  if (upper === 'HTTP' || upper === 'HTTPS') return accept(upper);
  if (UNSUPPORTED_PROTOCOLS.has(upper)) return refuse(`backend protocol ${upper} is unsupported (HTTP or HTTPS)`);
  return refuse('expected HTTP or HTTPS');
}

type TimeoutField = 'connectTimeout' | 'readTimeout' | 'sendTimeout';

function timeout<F extends TimeoutField>(key: string, field: F): AnnotationSpec<F> {
  return { key, scope: 'location', field, parse: (value) => parseSeconds(value, 1, MAX_TIMEOUT_SECONDS) };
}

/** proxy-body-size → client_max_body_size. */
export const proxyBodySizeAnnotation: AnnotationSpec<'bodySize'> = {
  key: 'proxy-body-size',
  scope: 'location',
  field: 'bodySize',
  parse: parseBodySize,
};

/** proxy-connect-timeout / proxy-read-timeout / proxy-send-timeout, in seconds. */
export const proxyConnectTimeoutAnnotation = timeout('proxy-connect-timeout', 'connectTimeout');
export const proxyReadTimeoutAnnotation = timeout('proxy-read-timeout', 'readTimeout');
export const proxySendTimeoutAnnotation = timeout('proxy-send-timeout', 'sendTimeout');

/** backend-protocol: HTTP or HTTPS (case-insensitive). */
export const backendProtocolAnnotation: AnnotationSpec<'protocol'> = {
  key: 'backend-protocol',
  scope: 'location',
  field: 'protocol',
  parse: parseProtocol,
};

const LOAD_BALANCE_ALGORITHMS: readonly LoadBalance[] = ['round_robin', 'ewma'];

/** load-balance: round_robin or ewma. */
export const loadBalanceAnnotation: AnnotationSpec<'loadBalance'> = {
  key: 'load-balance',
  scope: 'location',
  field: 'loadBalance',
  parse: (value) => parseOneOf(value, LOAD_BALANCE_ALGORITHMS),
};
