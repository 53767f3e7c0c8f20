// ConfigMap-only connection settings (ingress-nginx v1.15.1: config/config.go,
// nginx.tmpl's http {} and `upstream upstream_balancer`): how long and how
// large a client's request headers may be, client keep-alive, and the
// keep-alive connections to backends that the balancer upstreams keep. ingress-nginx
// pastes these ConfigMap values unchecked; here each is parsed strictly and a bad
// value keeps the default (Warning), as every ConfigMap key.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { ClientConnectionsSettings } from '../types.ts';
import { defineFeature, field, type FeatureKey } from './feature.ts';
import { parseBufferSize, parseNginxTime } from './nginx-sizes.ts';
import { atoi, parseSeconds } from './values.ts';

const WEEK_SECONDS = 604_800;
/** NGINX refuses large_client_header_buffers smaller than connection_pool_size (512 on 64-bit). */
const MIN_LARGE_HEADER_BUFFER = 512;

/** An integer from `min` to `max` (strconv.Atoi's grammar). */
function integer(min: number, max: number): (raw: string) => Checked<number> {
  return (raw) => {
    const read = atoi(raw.trim());
    if (read === null) return refuse('expected an integer');
    if (read < BigInt(min) || read > BigInt(max)) return unsupported(`expected ${min} to ${max}`);
    return accept(Number(read));
  };
}

/** large-client-header-buffers: `<number> <size>` (NGINX's bufs slot). */
function parseLargeBuffers(raw: string): Checked<ClientConnectionsSettings['largeClientHeaderBuffers']> {
  const match = /^\s*(\S+)[ \t]+(\S+)\s*$/u.exec(raw);
  if (match === null) return refuse('expected "<number> <size>", e.g. 4 8k');
  const number = integer(1, 64)(match[1]!);
  if (!number.ok) return number;
  const size = parseBufferSize(match[2]!, MIN_LARGE_HEADER_BUFFER, 1024 * 1024, '1m');
  return size.ok ? accept({ number: number.value, size: size.value }) : size;
}

const DEFAULTS: ClientConnectionsSettings = {
  clientHeaderBufferSize: '1k', largeClientHeaderBuffers: { number: 4, size: '8k' }, clientHeaderTimeout: 60, clientBodyTimeout: 60,
  keepAlive: 75, keepAliveRequests: 1000,
  upstreamKeepaliveConnections: 320, upstreamKeepaliveTime: '1h', upstreamKeepaliveTimeout: 60, upstreamKeepaliveRequests: 10_000,
};

type Key = keyof ClientConnectionsSettings;

function setting<K extends Key>(
  name: K, configKey: string, parse: (raw: string) => Checked<ClientConnectionsSettings[K]>, defaultText: string, doc: string, difference?: string,
): FeatureKey<ClientConnectionsSettings> {
  return field<ClientConnectionsSettings, K>(name, parse, { configKey, defaultText, doc, ...(difference === undefined ? {} : { difference }) });
}

export const clientConnectionsFeature = defineFeature({
  name: 'clientConnections',
  title: 'Client and backend connections',
  doc: 'Request header buffers and timeouts, client keep-alive (http {}) and the keep-alive connections the balancer upstreams '
    + 'keep to backends (every upstream of this controller is a balancer_by_lua one: `keepalive` follows the balancer). ConfigMap only.',
  output: { kind: 'global' },
  defaults: DEFAULTS,
  keys: [
    setting('clientHeaderBufferSize', 'client-header-buffer-size', (raw) => parseBufferSize(raw, 1, 1024 * 1024, '1m'), '1k',
      'Buffer for a request\'s headers (client_header_buffer_size); longer headers use large-client-header-buffers. At most 1m.'),
    setting('largeClientHeaderBuffers', 'large-client-header-buffers', parseLargeBuffers, '4 8k',
      'Number and size of the buffers for long request headers (large_client_header_buffers): a request line or header longer than one is refused (414 / 400). 1 to 64 buffers of 512 bytes to 1m.'),
    setting('clientHeaderTimeout', 'client-header-timeout', (raw) => parseSeconds(raw.trim(), 1, WEEK_SECONDS), '60',
      'Seconds to receive a request\'s headers (client_header_timeout), 1 to a week.'),
    setting('clientBodyTimeout', 'client-body-timeout', (raw) => parseSeconds(raw.trim(), 1, WEEK_SECONDS), '60',
      'Seconds between two reads of a request body (client_body_timeout), 1 to a week.'),
    setting('keepAlive', 'keep-alive', (raw) => parseSeconds(raw.trim(), 0, WEEK_SECONDS), '75',
      'Seconds an idle client connection stays open (keepalive_timeout); 0 = no keep-alive.'),
    setting('keepAliveRequests', 'keep-alive-requests', integer(1, 1_000_000_000), '1000',
      'Requests served over one client connection (keepalive_requests).'),
    setting('upstreamKeepaliveConnections', 'upstream-keepalive-connections', integer(0, 100_000), '320',
      'Idle keep-alive connections to backends each worker keeps (upstream keepalive); 0 = none (Connection: close to backends).'),
    setting('upstreamKeepaliveTime', 'upstream-keepalive-time', (raw) => parseNginxTime(raw, 7 * 86_400_000), '1h',
      'Longest life of one keep-alive connection to a backend (keepalive_time), an NGINX time of one unit such as 1h.',
      'one unit, at most 7d (NGINX also takes 1h30m): other values keep the default'),
    setting('upstreamKeepaliveTimeout', 'upstream-keepalive-timeout', (raw) => parseSeconds(raw.trim(), 1, WEEK_SECONDS), '60',
      'Seconds an idle keep-alive connection to a backend stays open (keepalive_timeout in the upstream).'),
    setting('upstreamKeepaliveRequests', 'upstream-keepalive-requests', integer(1, 1_000_000_000), '10000',
      'Requests sent over one keep-alive connection to a backend (keepalive_requests in the upstream).'),
  ],
  proof: ['controller/src/model/features/client-connections.test.ts', 'controller/src/render/proxy-tuning-render.test.ts', 'e2e/proxy-tuning.test.ts'],
});
