// What the rate limits (model/features/rate-limit.ts) print: per location,
// the key and the limit_req / limit_conn / limit_rate lines; at http level,
// the zones and, per Ingress with limit-allowlist, a geo + map that empties
// the key of listed clients (NGINX counts no request with an empty key).
//
// Zones per rate, not per Ingress. ingress-nginx makes up to three 5 MB
// zones per Ingress (`<ns>_<name>_<uid>_rps`…): measured with this data
// plane, 1,000 Ingresses so limited (3,000 zones) take `nginx -t` 0.88 s and
// 134 MB of RSS, and the master maps 15 GB; the same limits in three shared
// zones take 0.09 s and 17 MB (each `nginx -t` and reload pays this). Here the rate is the zone's only Ingress-specific setting (a
// burst, a connection count are the location's), so Ingresses with the same
// rate share one zone and the key says which Ingress: `<id><client address>`,
// id = 12 hex digits of SHA-256 of `<namespace>/<name>`. Zones are as many as
// distinct rates in use (1 for limit-connections), whatever the Ingress count.
// A changed rate moves the Ingress to another zone (its counters restart):
// that is a reload, as NGINX's limit_req_zone fixes the rate at load.

import { createHash } from 'node:crypto';
import type { IngressRef, Location, Model, RateLimitConfig } from '../model/types.ts';
import { RenderError } from './nginx-values.ts';

// Each zone has 10m of shared memory (features/rate-limit-http.njk): ~80,000 client × Ingress
// states of 128 bytes; when it is full NGINX drops the least recently used states.

/** One location's limits (features/rate-limit.njk). */
export interface RateLimitLocationView {
  /**
   * The Ingress's id (12 hex digits) when the location counts requests or connections, else null:
   * `set $resty_limit_key "<id>$binary_remote_addr"`, or `$resty_limit_<id>` (allowlisted).
   */
  readonly id: string | null;
  readonly allowlisted: boolean;
  /** `limit_conn resty_conn <n>`, or null. */
  readonly connections: number | null;
  /** `limit_req zone=resty_<unit>_<rate> burst=<burst> nodelay`, rps then rpm (ingress-nginx's order). */
  readonly requests: readonly RequestLimit[];
  /** `limit_rate_after <n>k` / `limit_rate <n>k`, 0 = not printed. */
  readonly rateAfter: number;
  readonly rate: number;
}

/** One limit_req: its zone is `resty_<unit>_<rate>` (`rate=<rate>r/s` or `r/m`). */
export interface RequestLimit {
  readonly unit: 'rps' | 'rpm';
  readonly rate: number;
  readonly burst: number;
}

/** http {}: the zones, the allowlists and the statuses (features/rate-limit-http.njk). */
export interface RateLimitHttpView {
  /** `limit_req_zone … zone=resty_<unit>_<rate>:<size> rate=<rate>r/<s|m>`, sorted. */
  readonly requestZones: readonly { readonly unit: 'rps' | 'rpm'; readonly rate: number }[];
  /** `limit_conn_zone … zone=resty_conn:<size>` is needed. */
  readonly connectionZone: boolean;
  /** Per Ingress with limit-allowlist: `geo $resty_limit_allow_<id>` and `map … $resty_limit_<id>`. */
  readonly allowlists: readonly { readonly id: string; readonly ranges: readonly string[] }[];
  readonly reqStatus: number;
  readonly connStatus: number;
}

const RANGE = /^[0-9a-f.:]+(?:\/[0-9]{1,3})?$/u;

/** The key's Ingress part: printed bare in variable names, so 12 hex digits and nothing else. */
export function limitId(ingress: IngressRef): string {
  const id = createHash('sha256').update(`${String(ingress.namespace)}/${String(ingress.name)}`).digest('hex').slice(0, 12);
  if (!/^[0-9a-f]{12}$/u.test(id)) throw new RenderError('UnsafeValue', 'rate limit: the Ingress id is not 12 hex digits');
  return id;
}

function counts(config: RateLimitConfig): boolean {
  return config.rps > 0 || config.rpm > 0 || config.connections > 0;
}

function checkedInteger(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new RenderError('UnsafeValue', `rate limit: ${what} must be a non-negative integer`);
  }
  return value;
}

/** The limits of `location` given its effective config, or null when it prints nothing. */
export function rateLimitLocationView(location: Pick<Location, 'ingress' | 'path'>, config: RateLimitConfig | undefined): RateLimitLocationView | null {
  if (config === undefined) return null;
  const rate = checkedInteger(config.rate, 'limit-rate');
  const rateAfter = checkedInteger(config.rateAfter, 'limit-rate-after');
  if (!counts(config) || location.ingress === null) {
    return rate > 0 || rateAfter > 0 ? { id: null, allowlisted: false, connections: null, requests: [], rate, rateAfter } : null;
  }
  const multiplier = checkedInteger(config.burstMultiplier, 'limit-burst-multiplier');
  const requests: RequestLimit[] = [];
  const rps = checkedInteger(config.rps, 'limit-rps');
  const rpm = checkedInteger(config.rpm, 'limit-rpm');
  if (rps > 0) requests.push({ unit: 'rps', rate: rps, burst: rps * multiplier });
  if (rpm > 0) requests.push({ unit: 'rpm', rate: rpm, burst: rpm * multiplier });
  const connections = checkedInteger(config.connections, 'limit-connections');
  return {
    id: limitId(location.ingress),
    allowlisted: Array.isArray(config.allowlist) && config.allowlist.length > 0,
    connections: connections > 0 ? connections : null,
    requests,
    rate,
    rateAfter,
  };
}

/** The http-level part for every location of the model, or null when no location counts requests. */
export function rateLimitHttpView(model: Model): RateLimitHttpView | null {
  const zones = new Map<string, { unit: 'rps' | 'rpm'; rate: number }>();
  let connectionZone = false;
  const allowlists = new Map<string, readonly string[]>();
  for (const server of model.servers) {
    for (const location of server.locations) {
      const config = location.policy.rateLimit ?? model.settings.rateLimit;
      if (!counts(config) || location.ingress === null) continue;
      if (config.rps > 0) zones.set(`rps ${config.rps}`, { unit: 'rps', rate: config.rps });
      if (config.rpm > 0) zones.set(`rpm ${config.rpm}`, { unit: 'rpm', rate: config.rpm });
      if (config.connections > 0) connectionZone = true;
      if (config.allowlist.length === 0) continue;
      if (!config.allowlist.every((range) => typeof range === 'string' && RANGE.test(range))) {
        throw new RenderError('UnsafeValue', `location ${location.path}: limit-allowlist holds a value that is not an address or range`);
      }
      const id = limitId(location.ingress);
      const known = allowlists.get(id);
      if (known !== undefined && known.join(',') !== config.allowlist.join(',')) {
        throw new RenderError('UnsafeValue', `Ingress ${location.ingress.namespace}/${location.ingress.name}: two limit-allowlists for one Ingress`);
      }
      allowlists.set(id, config.allowlist);
    }
  }
  if (zones.size === 0 && !connectionZone) return null;
  return {
    requestZones: [...zones.values()].sort((a, b) => (a.unit === b.unit ? a.rate - b.rate : a.unit < b.unit ? -1 : 1)),
    connectionZone,
    allowlists: [...allowlists].map(([id, ranges]) => ({ id, ranges })).sort((a, b) => (a.id < b.id ? -1 : 1)),
    reqStatus: model.settings.rateLimit.reqStatus,
    connStatus: model.settings.rateLimit.connStatus,
  };
}
