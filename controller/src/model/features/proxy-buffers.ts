// Response and request buffering (ingress-nginx v1.15.1: annotations/proxy and
// annotations/clientbodybuffersize, defaults/main.go, nginx.tmpl): proxy-buffering,
// proxy-buffer-size, proxy-buffers-number, proxy-busy-buffers-size,
// proxy-max-temp-file-size, proxy-request-buffering, proxy-http-version and
// client-body-buffer-size, each an annotation and the ConfigMap key of the same
// name. ingress-nginx prints `proxy_buffers <number> <proxy-buffer-size>` and
// pastes the values unchecked: a combination NGINX refuses (proxy-buffers-number
// 2 with the default busy size) fails its `nginx -t` for every Ingress. Here
// `finish` checks NGINX's own rules on the location's whole config, so such an
// Ingress alone is refused. The proxy parser ignores an invalid value (the
// ConfigMap's applies); client-body-buffer-size's parser refuses the Ingress.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { ProxyBuffersConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseBufferSize, parseOnOff, sizeBytes } from './nginx-sizes.ts';
import { atoi } from './values.ts';

/** A proxy buffer is allocated per request: 16m each is far above the 4k-256k users set. */
const MAX_BUFFER = 16 * 1024 * 1024;
const MAX_BODY_BUFFER = 64 * 1024 * 1024;
const MAX_BUFFERS = 256;
/** A temp file is on disk, not in memory: 1 TiB bounds it far above ingress-nginx's 1024m. */
const MAX_TEMP_FILE = 1024 ** 4;

function parseBuffersNumber(raw: string): Checked<number> {
  const read = atoi(raw);
  if (read === null) return refuse('expected an integer');
  if (read < 2n) return unsupported('NGINX needs at least 2 proxy buffers');
  if (read > BigInt(MAX_BUFFERS)) return unsupported(`at most ${MAX_BUFFERS} buffers`);
  return accept(Number(read));
}

/** proxy-busy-buffers-size: empty (ingress-nginx's default, nothing printed) or a size. */
function parseBusySize(raw: string): Checked<string | null> {
  return raw.trim() === '' ? accept(null) : parseBufferSize(raw, 1, MAX_BUFFER, '16m');
}

function parseHttpVersion(raw: string): Checked<'1.0' | '1.1'> {
  const value = raw.trim();
  return value === '1.0' || value === '1.1' ? accept(value) : refuse('expected 1.0 or 1.1');
}

/**
 * NGINX's checks when it merges a location (ngx_http_proxy_merge_loc_conf): the busy size is at
 * least one buffer and below all buffers minus one, the temp file 0 or at least one buffer.
 */
export function checkBuffers(config: ProxyBuffersConfig): Checked<ProxyBuffersConfig> {
  const size = sizeBytes(config.bufferSize);
  const busy = config.busyBuffersSize === null ? 2 * size : sizeBytes(config.busyBuffersSize);
  const which = config.busyBuffersSize === null ? 'NGINX\'s busy buffers size (two buffers)' : `proxy-busy-buffers-size ${config.busyBuffersSize}`;
  if (busy < size) return unsupported(`${which} is below proxy-buffer-size ${config.bufferSize}: NGINX refuses it`);
  if (busy > (config.buffersNumber - 1) * size) {
    return unsupported(`${which} must be at most proxy-buffers-number - 1 buffers of proxy-buffer-size (${config.buffersNumber} × ${config.bufferSize}): NGINX refuses it`);
  }
  const temp = sizeBytes(config.maxTempFileSize);
  if (temp !== 0 && temp < size) return unsupported(`proxy-max-temp-file-size ${config.maxTempFileSize} must be 0 or at least proxy-buffer-size: NGINX refuses it`);
  return accept(config);
}

const DEFAULTS: ProxyBuffersConfig = {
  buffering: 'off', bufferSize: '4k', buffersNumber: 4, busyBuffersSize: null, maxTempFileSize: '1024m',
  requestBuffering: 'on', httpVersion: '1.1', bodyBufferSize: '8k',
};

export const proxyBuffersFeature = defineFeature({
  name: 'proxyBuffers',
  title: 'Proxy buffers and HTTP version',
  doc: 'Response buffering (proxy_buffering and its buffers), request buffering, the HTTP version spoken to backends and the '
    + 'request body buffer, per location; the ConfigMap keys of the same names set the global values, printed once in http {}. '
    + 'A combination NGINX refuses (e.g. proxy-buffers-number 2 with NGINX\'s busy size of two buffers) refuses the Ingress, '
    + 'where ingress-nginx would fail its reload for every Ingress. limit-rate turns proxy buffering on where it applies, '
    + 'whatever proxy-buffering says (NGINX throttles no unbuffered response).',
  output: { kind: 'location', template: 'features/proxy-buffers.njk' },
  defaults: DEFAULTS,
  finish: checkBuffers,
  keys: [
    field<ProxyBuffersConfig, 'buffering'>('buffering', parseOnOff, {
      annotation: { name: 'proxy-buffering', scope: 'location', risk: 'Low' }, configKey: 'proxy-buffering', defaultText: 'off', invalid: 'ignore',
      doc: 'Buffer backend responses (proxy_buffering): on or off. limit-rate turns it on where it applies.',
    }),
    field<ProxyBuffersConfig, 'bufferSize'>('bufferSize', (raw) => parseBufferSize(raw, 1, MAX_BUFFER, '16m'), {
      annotation: { name: 'proxy-buffer-size', scope: 'location', risk: 'Low' }, configKey: 'proxy-buffer-size', defaultText: '4k', invalid: 'ignore',
      doc: 'Buffer for the response headers (proxy_buffer_size), also the size of each of proxy_buffers: e.g. 16k.',
      difference: 'at most 16m, in bytes, k or m (ingress-nginx takes any size, which NGINX allocates per request or refuses): larger refuses the Ingress',
    }),
    field<ProxyBuffersConfig, 'buffersNumber'>('buffersNumber', parseBuffersNumber, {
      annotation: { name: 'proxy-buffers-number', scope: 'location', risk: 'Low' }, configKey: 'proxy-buffers-number', defaultText: '4', invalid: 'ignore',
      doc: `Number of proxy-buffer-size buffers for one response (proxy_buffers), 2 to ${MAX_BUFFERS}.`,
      difference: `at most ${MAX_BUFFERS}; below 2, or with a busy size NGINX refuses, the Ingress is refused (ingress-nginx fails its reload)`,
    }),
    field<ProxyBuffersConfig, 'busyBuffersSize'>('busyBuffersSize', parseBusySize, {
      annotation: { name: 'proxy-busy-buffers-size', scope: 'location', risk: 'Low' }, configKey: 'proxy-busy-buffers-size', defaultText: '', invalid: 'ignore',
      doc: 'Buffers that may be busy sending to the client (proxy_busy_buffers_size); empty = NGINX\'s, two buffers.',
      difference: 'at most 16m, and one buffer to proxy-buffers-number - 1 buffers as NGINX requires: otherwise the Ingress is refused',
    }),
    field<ProxyBuffersConfig, 'maxTempFileSize'>('maxTempFileSize', (raw) => parseBufferSize(raw, 0, MAX_TEMP_FILE, '1048576m'), {
      annotation: { name: 'proxy-max-temp-file-size', scope: 'location', risk: 'Low' }, configKey: 'proxy-max-temp-file-size', defaultText: '1024m', invalid: 'ignore',
      doc: 'Largest temp file for one buffered response (proxy_max_temp_file_size), in bytes, k or m; 0 = none.',
      difference: 'NGINX\'s size takes no g (ingress-nginx\'s check does, and nginx -t then fails): write 2048m for 2g; a g refuses the Ingress',
    }),
    field<ProxyBuffersConfig, 'requestBuffering'>('requestBuffering', parseOnOff, {
      annotation: { name: 'proxy-request-buffering', scope: 'location', risk: 'Low' }, configKey: 'proxy-request-buffering', defaultText: 'on', invalid: 'ignore',
      doc: 'Read the whole request body before sending it to the backend (proxy_request_buffering): on or off.',
    }),
    field<ProxyBuffersConfig, 'httpVersion'>('httpVersion', parseHttpVersion, {
      annotation: { name: 'proxy-http-version', scope: 'location', risk: 'Low' }, configKey: 'proxy-http-version', defaultText: '1.1', invalid: 'ignore',
      doc: 'HTTP version spoken to the backend (proxy_http_version): 1.0 or 1.1 (1.0: no keep-alive to backends).',
    }),
    field<ProxyBuffersConfig, 'bodyBufferSize'>('bodyBufferSize', (raw) => parseBufferSize(raw, 1, MAX_BODY_BUFFER, '64m'), {
      annotation: { name: 'client-body-buffer-size', scope: 'location', risk: 'Low' }, configKey: 'client-body-buffer-size', defaultText: '8k',
      doc: 'Buffer for the request body before it goes to a temp file (client_body_buffer_size): e.g. 1m.',
      difference: 'at most 64m, in bytes, k or m (ingress-nginx takes any size): larger refuses the Ingress',
    }),
  ],
  proof: ['controller/src/model/features/proxy-buffers.test.ts', 'controller/src/render/proxy-tuning-render.test.ts', 'e2e/proxy-tuning.test.ts'],
});
