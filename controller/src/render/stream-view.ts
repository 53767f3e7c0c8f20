// What stream.njk renders: the stream {} context of the TCP/UDP services
// (Model.streams). One server per listen port, one plain upstream per server
// holding its endpoints: Debian ships no stream-lua module, so endpoints are
// in nginx.conf and an endpoint change reloads (docs/tcp-udp-services.md).
// Every value is checked again here: the template only quotes.

import { isIP } from 'node:net';
import type { Model, StreamService } from '../model/types.ts';
import { RenderError } from './nginx-values.ts';
import type { PassthroughView } from './ssl-passthrough-view.ts';

/** ingress-nginx's defaults of proxy-stream-timeout, proxy-stream-next-upstream-timeout, -tries and proxy-stream-responses. */
export const STREAM_DEFAULTS = Object.freeze({ timeoutSeconds: 600, nextUpstreamTimeoutSeconds: 600, nextUpstreamTries: 3, udpResponses: 1 });

/** One listener and its upstream. */
export interface StreamServerView {
  /** `tcp-<port>` / `udp-<port>`: unique, since a port has one entry per protocol. */
  readonly upstream: string;
  /** `<address>:<port>` NGINX listens on (the public listen address, as the HTTP servers). */
  readonly listen: string;
  readonly udp: boolean;
  /** `listen … proxy_protocol`: the client sends a PROXY header. */
  readonly decodeProxyProtocol: boolean;
  /** `proxy_protocol on`: NGINX sends one to the backend. */
  readonly encodeProxyProtocol: boolean;
  /** `namespace/service:port`, for a comment that says where the port goes. */
  readonly target: string;
  /** `address:port` (IPv6 in brackets); empty = no ready endpoint (a placeholder marked down). */
  readonly endpoints: readonly string[];
}

/** The stream {} context, or null when the model has no TCP/UDP service. */
export interface StreamView {
  /** load_module path of ngx_stream_module.so. */
  readonly module: string;
  readonly servers: readonly StreamServerView[];
  readonly defaults: typeof STREAM_DEFAULTS;
  /** --enable-ssl-passthrough: the HTTPS port's SNI router (ssl-passthrough-view.ts), else null. */
  readonly passthrough: PassthroughView | null;
}

function endpointOf(address: string, port: number): string {
  const family = isIP(address);
  if (family === 0 || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new RenderError('UnsafeValue', `stream endpoint ${JSON.stringify(`${address}:${port}`)} is not an IP address and port`);
  }
  return family === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

function serverOf(service: StreamService, listenAddress: string): StreamServerView {
  const { port, protocol } = service;
  if (!Number.isInteger(port) || port < 1 || port > 65535 || (protocol !== 'TCP' && protocol !== 'UDP')) {
    throw new RenderError('UnsafeValue', `stream service ${JSON.stringify({ port, protocol })} has no valid port and protocol`);
  }
  const udp = protocol === 'UDP';
  return {
    upstream: `${udp ? 'udp' : 'tcp'}-${port}`,
    listen: `${listenAddress}:${port}`,
    udp,
    decodeProxyProtocol: !udp && service.proxyProtocol.decode === true,
    encodeProxyProtocol: !udp && service.proxyProtocol.encode === true,
    target: `${service.namespace}/${service.service}:${service.servicePort}`,
    endpoints: service.endpoints.map((endpoint) => endpointOf(endpoint.address, endpoint.port)),
  };
}

/** The stream view of `model`; null without TCP/UDP services and SSL passthrough. Throws RenderError when the module path is missing. */
export function streamViewOf(model: Model, listenAddress: string, streamModule: string | undefined, passthrough: PassthroughView | null = null): StreamView | null {
  const streams = model.streams ?? [];
  if (streams.length === 0 && passthrough === null) return null;
  if (streamModule === undefined) {
    throw new RenderError('InvalidOptions', 'render options: dataplane.streamModule is needed to render TCP/UDP services');
  }
  return { module: streamModule, servers: streams.map((service) => serverOf(service, listenAddress)), defaults: STREAM_DEFAULTS, passthrough };
}
