// What stream.njk renders: the stream {} context of the TCP/UDP services
// (Model.streams). One server per listen port whose `proxy_pass` takes the peer
// njs picks (`$resty_stream_peer`, rootfs/etc/nginx/njs/resty_stream.js) from
// the endpoints the controller feeds through a unix socket: endpoints are not
// in nginx.conf, so an endpoint change reloads nothing (docs/tcp-udp-services.md).
// Every value is checked again here: the template only quotes.

import type { Model, StreamService } from '../model/types.ts';
import { RenderError } from './nginx-values.ts';
import { streamFeedSocketPath, type DataplaneValues } from './render-options.ts';

/** ingress-nginx's defaults of proxy-stream-timeout and proxy-stream-responses. */
export const STREAM_DEFAULTS = Object.freeze({ timeoutSeconds: 600, udpResponses: 1 });

/** One listener. */
export interface StreamServerView {
  /** `TCP/<port>` / `UDP/<port>`: the key of its endpoints in the njs dict (resty_stream.js listenerKey). */
  readonly key: string;
  /** `<address>:<port>` NGINX listens on (the public listen address, as the HTTP servers). */
  readonly listen: string;
  readonly udp: boolean;
  /** `listen … proxy_protocol`: the client sends a PROXY header. */
  readonly decodeProxyProtocol: boolean;
  /** `proxy_protocol on`: NGINX sends one to the backend. */
  readonly encodeProxyProtocol: boolean;
  /** `namespace/service:port`, for a comment that says where the port goes. */
  readonly target: string;
}

/** The stream {} context, or null when the model has no TCP/UDP service. */
export interface StreamView {
  /** load_module paths of ngx_stream_module.so, then ngx_stream_js_module.so. */
  readonly modules: readonly string[];
  /** resty_stream.js, for js_import. */
  readonly script: string;
  /** The unix socket the controller feeds the endpoints through (streamFeedSocketPath). */
  readonly feedSocket: string;
  readonly servers: readonly StreamServerView[];
  readonly defaults: typeof STREAM_DEFAULTS;
}

function serverOf(service: StreamService, listenAddress: string): StreamServerView {
  const { port, protocol } = service;
  if (!Number.isInteger(port) || port < 1 || port > 65535 || (protocol !== 'TCP' && protocol !== 'UDP')) {
    throw new RenderError('UnsafeValue', `stream service ${JSON.stringify({ port, protocol })} has no valid port and protocol`);
  }
  const udp = protocol === 'UDP';
  return {
    key: `${protocol}/${port}`,
    listen: `${listenAddress}:${port}`,
    udp,
    decodeProxyProtocol: !udp && service.proxyProtocol.decode === true,
    encodeProxyProtocol: !udp && service.proxyProtocol.encode === true,
    target: `${service.namespace}/${service.service}:${service.servicePort}`,
  };
}

/** The stream view of `model`; null without TCP/UDP services. Throws RenderError when a module or the script is missing. */
export function streamViewOf(model: Model, listenAddress: string, dataplane: DataplaneValues, prefix: string): StreamView | null {
  const streams = model.streams ?? [];
  if (streams.length === 0) return null;
  const { streamModule, streamJsModule, streamScript } = dataplane;
  if (streamModule === undefined || streamJsModule === undefined || streamScript === undefined) {
    throw new RenderError('InvalidOptions', 'render options: dataplane.streamModule, streamJsModule and streamScript are needed to render TCP/UDP services');
  }
  return {
    modules: [streamModule, streamJsModule],
    script: streamScript,
    feedSocket: streamFeedSocketPath(prefix),
    servers: streams.map((service) => serverOf(service, listenAddress)),
    defaults: STREAM_DEFAULTS,
  };
}
