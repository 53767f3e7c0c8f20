// Rate limits as ingress-nginx v1.15.1 applies them (annotations/ratelimit,
// nginx.tmpl's buildRateLimit/buildRateLimitZones): limit-rps, limit-rpm and
// limit-connections count per client address per Ingress, with a burst of
// rate × limit-burst-multiplier and `nodelay`; limit-allowlist (alias
// limit-whitelist) exempts addresses from those three; limit-rate and
// limit-rate-after throttle each response (in KiB, as ingress-nginx prints
// `limit_rate <n>k`), the ConfigMap's values applying where an Ingress sets
// none. Rendered as NGINX's own limit_req / limit_conn (render/rate-limit-view.ts
// says why: zones per rate, not per Ingress): a changed limit reloads.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { RateLimitConfig } from '../types.ts';
import { defineFeature, field, type Draft, type FeatureKey } from './feature.ts';
import { parseAddressList } from './ip-ranges.ts';
import { atoi } from './values.ts';

/** NGINX's limit_conn refuses 65536 and above ("connection limit must be less 65536"). */
const MAX_CONNECTIONS = 65_535;
/** Bounds that keep rate × 1000 and burst × 1000 (NGINX's fixed point) far inside its integers. */
const MAX_RPS = 1_000_000;
const MAX_RPM = 60_000_000;
const MAX_MULTIPLIER = 1000;
/** limit_rate in KiB/s: 2^31 KiB/s, far above any link, well inside size_t. */
const MAX_RATE_KIB = 2_147_483_647;

/**
 * An integer as ingress-nginx's GetIntAnnotation reads it; a value of 0 or below is "no limit"
 * (its template prints a limit only when it is above 0). Above `max` is unsupported.
 */
function limit(max: number): (raw: string) => Checked<number> {
  return (raw) => {
    const read = atoi(raw);
    if (read === null) return refuse('expected an integer');
    if (read <= 0n) return accept(0);
    if (read > BigInt(max)) return unsupported(`at most ${max}`);
    return accept(Number(read));
  };
}

function parseMultiplier(raw: string): Checked<number> {
  const read = atoi(raw);
  if (read === null) return refuse('expected an integer');
  // ingress-nginx prints burst=<negative>, which NGINX refuses: no Ingress can mean that.
  if (read < 0n || read > BigInt(MAX_MULTIPLIER)) return unsupported(`expected 0 to ${MAX_MULTIPLIER}`);
  return accept(Number(read));
}

function parseStatus(raw: string): Checked<number> {
  const read = atoi(raw);
  if (read === null) return refuse('expected an HTTP status code');
  // limit_req_status / limit_conn_status take 400..599 only (nginx -t fails otherwise).
  if (read < 400n || read > 599n) return unsupported('NGINX answers a limit with a status from 400 to 599');
  return accept(Number(read));
}

/** limit-allowlist was read (a non-empty value): limit-whitelist, its alias, is then not looked at. */
const ALLOWLIST_GIVEN: unique symbol = Symbol('limit-allowlist given');
type LimitDraft = Draft<RateLimitConfig> & { [ALLOWLIST_GIVEN]?: true };

/** limit-allowlist and its alias limit-whitelist (read only when limit-allowlist gave nothing, as ingress-nginx's alias lookup). */
function allowlistKey(name: 'limit-allowlist' | 'limit-whitelist', doc: string): FeatureKey<RateLimitConfig> {
  return {
    annotation: { name, scope: 'location', risk: 'Low' },
    defaultText: '',
    doc,
    invalid: 'fail',
    set(draft, raw) {
      const limits = draft as LimitDraft;
      if (limits[ALLOWLIST_GIVEN] === true) return null;
      const parsed = parseAddressList(raw);
      if (!parsed.ok) return { reason: parsed.reason, unsupported: parsed.unsupported === true };
      limits.allowlist = parsed.value;
      if (name === 'limit-allowlist') limits[ALLOWLIST_GIVEN] = true;
      return null;
    },
  };
}

/** The config without the draft's alias mark. */
function finishLimits(config: RateLimitConfig): Checked<RateLimitConfig> {
  const { rps, rpm, connections, burstMultiplier, rate, rateAfter, allowlist, reqStatus, connStatus } = config;
  return accept({ rps, rpm, connections, burstMultiplier, rate, rateAfter, allowlist, reqStatus, connStatus });
}

const DEFAULTS: RateLimitConfig = {
  rps: 0, rpm: 0, connections: 0, burstMultiplier: 5, rate: 0, rateAfter: 0, allowlist: Object.freeze([]), reqStatus: 503, connStatus: 503,
};

export const rateLimitFeature = defineFeature({
  name: 'rateLimit',
  title: 'Rate limits',
  doc: 'Requests per second / minute and concurrent connections per client address ($remote_addr) and Ingress, '
    + 'answered with limit-req-status-code / limit-conn-status-code (503) once the burst (limit × limit-burst-multiplier) is spent; '
    + 'limit-allowlist exempts addresses; limit-rate throttles each response. NGINX\'s limit_req / limit_conn do the counting: '
    + 'changing a limit reloads NGINX, and the counters of an Ingress whose rate changed start again.',
  output: { kind: 'location', template: 'features/rate-limit.njk' },
  defaults: DEFAULTS,
  finish: finishLimits,
  keys: [
    field<RateLimitConfig, 'rps'>('rps', limit(MAX_RPS), {
      annotation: { name: 'limit-rps', scope: 'location', risk: 'Low' }, defaultText: '0',
      doc: `Requests per second from one client address to this Ingress (burst: this × limit-burst-multiplier); 0 = none, at most ${MAX_RPS}.`,
    }),
    field<RateLimitConfig, 'rpm'>('rpm', limit(MAX_RPM), {
      annotation: { name: 'limit-rpm', scope: 'location', risk: 'Low' }, defaultText: '0',
      doc: `Requests per minute from one client address to this Ingress (burst: this × limit-burst-multiplier); 0 = none, at most ${MAX_RPM}.`,
    }),
    field<RateLimitConfig, 'connections'>('connections', limit(MAX_CONNECTIONS), {
      annotation: { name: 'limit-connections', scope: 'location', risk: 'Low' }, defaultText: '0',
      doc: `Concurrent requests from one client address to this Ingress; 0 = none, at most ${MAX_CONNECTIONS}.`,
    }),
    field<RateLimitConfig, 'burstMultiplier'>('burstMultiplier', parseMultiplier, {
      annotation: { name: 'limit-burst-multiplier', scope: 'location', risk: 'Low' }, defaultText: '5', invalid: 'ignore',
      doc: `Burst allowed above limit-rps / limit-rpm, as a multiple of the limit (0 to ${MAX_MULTIPLIER}).`,
    }),
    field<RateLimitConfig, 'rate'>('rate', limit(MAX_RATE_KIB), {
      annotation: { name: 'limit-rate', scope: 'location', risk: 'Low' }, configKey: 'limit-rate', defaultText: '0', invalid: 'ignore',
      doc: 'Response bandwidth per request in KiB per second (ingress-nginx prints `limit_rate <n>k`, whatever its docs say); 0 = none.',
      difference: 'turns proxy buffering on where it applies, whatever proxy-buffering says: NGINX throttles no unbuffered response '
        + '(ingress-nginx\'s docs ask users to set proxy-buffering on beside limit-rate)',
    }),
    field<RateLimitConfig, 'rateAfter'>('rateAfter', limit(MAX_RATE_KIB), {
      annotation: { name: 'limit-rate-after', scope: 'location', risk: 'Low' }, configKey: 'limit-rate-after', defaultText: '0', invalid: 'ignore',
      doc: 'KiB of each response sent at full speed before limit-rate applies; 0 = from the first byte.',
    }),
    allowlistKey('limit-allowlist', 'Client addresses and ranges (comma-separated, IPv4 and IPv6) that limit-rps, limit-rpm and limit-connections do not count.'),
    allowlistKey('limit-whitelist', 'Old name of limit-allowlist, read only when limit-allowlist is not set.'),
    field<RateLimitConfig, 'reqStatus'>('reqStatus', parseStatus, {
      configKey: 'limit-req-status-code', defaultText: '503', doc: 'The answer to a request over limit-rps / limit-rpm (400 to 599).',
    }),
    field<RateLimitConfig, 'connStatus'>('connStatus', parseStatus, {
      configKey: 'limit-conn-status-code', defaultText: '503', doc: 'The answer to a request over limit-connections (400 to 599).',
    }),
  ],
  proof: ['controller/src/model/features/rate-limit.test.ts', 'controller/src/render/rate-limit-render.test.ts', 'e2e/rate-limit.test.ts'],
});
