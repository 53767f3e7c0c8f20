// The client's address and the forwarded headers (ConfigMap only), with
// ingress-nginx v1.15.1's semantics (nginx.tmpl's real_ip_* lines and header
// list, lua_ingress.lua's rewrite(): $pass_access_scheme, $pass_port,
// $best_http_host; e2e settings/forwarded_headers.go, proxy_protocol.go):
// - the realip module is on with use-forwarded-headers, use-proxy-protocol or
//   enable-real-ip: $remote_addr becomes the address forwarded-for-header (or
//   the PROXY header) names, only for peers in proxy-real-ip-cidr, recursively;
//   allow/deny lists, rate limits, the access log, X-Real-IP and
//   X-Forwarded-For all see that address (render/client-address-view.ts);
// - use-forwarded-headers also takes the client's X-Forwarded-Proto/-Port/-Host
//   for the X-Forwarded-* a backend receives, from any peer, as ingress-nginx;
// - the value printed in nginx.conf is always the canonical text of a parsed
//   value (header names of letters, digits and `-`; canonical CIDRs).
// use-forwarded-headers together with use-proxy-protocol is refused (the
// defaults stay, with an error): ingress-nginx then rewrites a request header
// with headers-more, which the data plane does not have.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { ClientAddressSettings } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseAddressList } from './ip-ranges.ts';
import { parseBoolean } from './values.ts';

/** RFC 9110 token characters: anything else cannot be a header name at all. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/u;
/** What a header name may be here: it becomes `real_ip_header <name>` and the variable `$http_<name>`. */
const HEADER_NAME = /^[A-Za-z][A-Za-z0-9-]{0,63}$/u;

/** A request header name for realip and `$http_…`: letters, digits and `-`, at most 64. */
export function parseHeaderName(raw: string): Checked<string> {
  if (HEADER_NAME.test(raw)) return accept(raw);
  if (!TOKEN.test(raw)) return refuse('expected an HTTP header name');
  return unsupported('expected a header name of at most 64 letters, digits and "-", starting with a letter');
}

const DURATION_UNITS: Readonly<Record<string, number>> = Object.freeze({ ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 });
const DURATION_PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/uy;

/** Go's time.ParseDuration (what ingress-nginx reads), non-negative, up to a day: whole milliseconds. */
export function parseDuration(raw: string): Checked<number> {
  if (raw === '0') return accept(0);
  if (raw === '' || raw.length > 64) return refuse('expected a duration such as 5s, 500ms or 1m30s');
  let total = 0;
  DURATION_PART.lastIndex = 0;
  while (DURATION_PART.lastIndex < raw.length) {
    const at = DURATION_PART.lastIndex;
    const match = DURATION_PART.exec(raw);
    if (match === null || match.index !== at) return refuse('expected a duration such as 5s, 500ms or 1m30s');
    total += Number(match[1]) * (DURATION_UNITS[match[2] as string] as number);
  }
  if (total > 86_400_000) return refuse('expected a duration of at most 24h');
  return accept(Math.round(total));
}

function finish(config: ClientAddressSettings): Checked<ClientAddressSettings> {
  if (config.useForwardedHeaders && config.useProxyProtocol) {
    return unsupported('use-forwarded-headers and use-proxy-protocol together are not supported yet (ingress-nginx rewrites a request header with headers-more, which the data plane lacks)');
  }
  return accept(config);
}

export const clientAddressFeature = defineFeature({
  name: 'clientAddress',
  title: 'Client address and forwarded headers',
  doc: 'Which address is the client\'s and what the X-Forwarded-* headers a backend receives say, as ingress-nginx: by default the '
    + 'connection\'s peer and the request NGINX received. use-forwarded-headers (or enable-real-ip) takes the client address from '
    + 'forwarded-for-header when the peer is in proxy-real-ip-cidr (NGINX\'s realip, recursive); use-proxy-protocol from the PROXY '
    + 'header. Allow/deny lists, rate limits, the access log, X-Real-IP and X-Forwarded-For all use that address. Every backend '
    + 'receives X-Request-ID, X-Real-IP, X-Forwarded-For/-Host/-Port/-Proto/-Scheme, X-Scheme, X-Original-Forwarded-For/-Host; '
    + 'X-Forwarded-Port is 443 for the HTTPS listener, as ingress-nginx\'s.',
  output: { kind: 'global' },
  defaults: {
    useForwardedHeaders: false, forwardedForHeader: 'X-Forwarded-For', forwardedHostHeader: 'X-Forwarded-Host',
    computeFullForwardedFor: false, enableRealIp: false, realIpFrom: Object.freeze(['0.0.0.0/0']), useProxyProtocol: false,
    proxyProtocolHeaderTimeoutMs: 5000, addOriginalUri: false, generateRequestId: true,
  },
  keys: [
    field<ClientAddressSettings, 'useForwardedHeaders'>('useForwardedHeaders', parseBoolean, {
      configKey: 'use-forwarded-headers', defaultText: 'false',
      doc: 'Trust the client\'s X-Forwarded-Proto/-Port/-Host, and take the client address from forwarded-for-header (peers in proxy-real-ip-cidr).',
    }),
    field<ClientAddressSettings, 'forwardedForHeader'>('forwardedForHeader', parseHeaderName, {
      configKey: 'forwarded-for-header', defaultText: 'X-Forwarded-For',
      doc: 'The header that names the client address (realip), also sent on as X-Original-Forwarded-For.',
      difference: 'letters, digits and "-" only, at most 64',
    }),
    field<ClientAddressSettings, 'forwardedHostHeader'>('forwardedHostHeader', parseHeaderName, {
      configKey: 'forwarded-host-header', defaultText: 'X-Forwarded-Host',
      doc: 'The header sent on as X-Original-Forwarded-Host.',
      difference: 'letters, digits and "-" only, at most 64',
    }),
    field<ClientAddressSettings, 'computeFullForwardedFor'>('computeFullForwardedFor', parseBoolean, {
      configKey: 'compute-full-forwarded-for', defaultText: 'false',
      doc: 'With use-forwarded-headers: X-Forwarded-For is the client\'s header plus the peer\'s address, not the client address alone.',
    }),
    field<ClientAddressSettings, 'enableRealIp'>('enableRealIp', parseBoolean, {
      configKey: 'enable-real-ip', defaultText: 'false',
      doc: 'Take the client address from forwarded-for-header (peers in proxy-real-ip-cidr) without trusting the other forwarded headers.',
    }),
    field<ClientAddressSettings, 'realIpFrom'>('realIpFrom', (raw) => parseAddressList(raw, true), {
      configKey: 'proxy-real-ip-cidr', defaultText: '0.0.0.0/0', failClosed: true,
      doc: 'Peers (comma-separated addresses and ranges) trusted to name the client; an invalid list serves no Ingress (its default trusts every IPv4 peer).',
    }),
    field<ClientAddressSettings, 'useProxyProtocol'>('useProxyProtocol', parseBoolean, {
      configKey: 'use-proxy-protocol', defaultText: 'false',
      doc: 'The HTTP and HTTPS listeners expect a PROXY protocol (v1/v2) header; the client address and port come from it (peers in proxy-real-ip-cidr).',
      difference: 'refused together with use-forwarded-headers (the defaults stay, with an error)',
    }),
    field<ClientAddressSettings, 'proxyProtocolHeaderTimeoutMs'>('proxyProtocolHeaderTimeoutMs', parseDuration, {
      configKey: 'proxy-protocol-header-timeout', defaultText: '5s',
      doc: 'A Go duration, validated; as in ingress-nginx it bounds only the SSL-passthrough proxy (NGINX\'s client_header_timeout bounds the PROXY header).',
    }),
    field<ClientAddressSettings, 'addOriginalUri'>('addOriginalUri', parseBoolean, {
      configKey: 'proxy-add-original-uri-header', defaultText: 'false', doc: 'Send X-Original-URI, the request URI as received.',
    }),
    field<ClientAddressSettings, 'generateRequestId'>('generateRequestId', parseBoolean, {
      configKey: 'generate-request-id', defaultText: 'true',
      doc: 'X-Request-ID (sent upstream and logged as $req_id) is the client\'s, else a random one; false: only the client\'s.',
    }),
  ],
  finish,
  proof: ['controller/src/model/features/client-address.test.ts', 'controller/src/render/client-headers.test.ts',
    'controller/src/render/golden.test.ts', 'e2e/client-address.test.ts'],
});
