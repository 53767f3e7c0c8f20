// The proxy settings of the TCP/UDP services and SSL passthrough (ConfigMap only),
// as ingress-nginx v1.15.1 prints them into its stream {} servers (nginx.tmpl:
// `proxy_timeout {{ $cfg.ProxyStreamTimeout }}`, `proxy_responses
// {{ $cfg.ProxyStreamResponses }}` for UDP). ingress-nginx pastes both
// unchecked; here each is parsed strictly and a bad value keeps the default
// (Warning), as every ConfigMap key.
//
// proxy-stream-next-upstream, -timeout and -tries are NOT here: each connection's
// peer is the one njs picks (render/stream-view.ts), so NGINX has no other peer to
// retry on and those directives would do nothing (names.ts reports them, with why).

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { StreamProxySettings } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseNginxTime } from './nginx-sizes.ts';
import { atoi } from './values.ts';

/** A week, as upstream-keepalive-time: longer idle TCP sessions than that are kept open by the clients' own keep-alives. */
const MAX_TIMEOUT_MS = 7 * 86_400_000;
const MAX_RESPONSES = 2_147_483_647n;

function parseResponses(raw: string): Checked<number> {
  const read = atoi(raw.trim());
  if (read === null) return refuse('expected an integer');
  if (read < 0n || read > MAX_RESPONSES) return unsupported(`expected 0 to ${MAX_RESPONSES}`);
  return accept(Number(read));
}

export const streamProxyFeature = defineFeature({
  name: 'streamProxy',
  title: 'TCP/UDP proxying',
  doc: 'How NGINX proxies the TCP/UDP services (--tcp-services-configmap, --udp-services-configmap) and the SSL passthrough '
    + 'connections: the idle timeout of a session and the datagrams a UDP backend answers per client datagram. ConfigMap only; '
    + 'docs/tcp-udp-services.md.',
  output: { kind: 'global' },
  defaults: { timeout: '600s', udpResponses: 1 },
  keys: [
    field<StreamProxySettings, 'timeout'>('timeout', (raw) => parseNginxTime(raw, MAX_TIMEOUT_MS), {
      configKey: 'proxy-stream-timeout', defaultText: '600s',
      doc: 'A TCP/UDP session is closed after this long without data either way (NGINX proxy_timeout; one unit: 600s, 10m, 1h; up to 7d).',
      difference: 'it also bounds the SSL passthrough connections (the router on the HTTPS port and its hop), which '
        + 'ingress-nginx\'s Go passthrough proxy never times out',
    }),
    field<StreamProxySettings, 'udpResponses'>('udpResponses', parseResponses, {
      configKey: 'proxy-stream-responses', defaultText: '1',
      doc: 'Datagrams a UDP backend sends back per client datagram before NGINX ends the session (NGINX proxy_responses; 0: none expected).',
    }),
  ],
  proof: ['controller/src/model/features/stream-proxy.test.ts', 'controller/src/render/stream-proxy-properties.test.ts', 'controller/src/render/stream-render.test.ts', 'controller/src/render/ssl-passthrough-render.test.ts'],
});
