// HTTP/2 on the public listeners (ConfigMap only): use-http2 and the one
// http2-max-* key NGINX 1.26 still reads. http2-max-field-size,
// http2-max-header-size and http2-max-requests are obsolete since NGINX 1.19.7
// (it ignores them with a warning): names.ts lists them as harmless.

import { accept, refuse, type Checked } from '../checked.ts';
import type { Http2Settings } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { atoi, parseBoolean } from './values.ts';

const MAX_STREAMS = 2_147_483_647n;

function parseStreams(value: string): Checked<number> {
  const streams = atoi(value);
  // 0 would refuse every stream of every HTTP/2 connection; NGINX takes it, no client could be served.
  if (streams === null || streams < 1n || streams > MAX_STREAMS) return refuse(`expected an integer from 1 to ${MAX_STREAMS}`);
  return accept(Number(streams));
}

export const http2Feature = defineFeature({
  name: 'http2',
  title: 'HTTP/2',
  doc: 'HTTP/2 on the public listeners (ALPN on TLS, prior knowledge on plain HTTP) and its concurrent streams per connection. '
    + 'With use-http2 false the balancer\'s fallback servers keep HTTP/2 (gRPC locations reach them over h2c).',
  output: { kind: 'global' },
  defaults: { enabled: true, maxConcurrentStreams: 128 },
  keys: [
    field<Http2Settings, 'enabled'>('enabled', parseBoolean, { configKey: 'use-http2', defaultText: 'true', doc: 'false serves HTTP/1.x only.' }),
    field<Http2Settings, 'maxConcurrentStreams'>('maxConcurrentStreams', parseStreams, {
      configKey: 'http2-max-concurrent-streams', defaultText: '128', doc: 'Concurrent HTTP/2 streams per connection.',
    }),
  ],
  proof: ['controller/src/model/features/http-tuning.test.ts', 'controller/src/render/http-tuning-render.test.ts'],
});
