// What stream-passthrough.njk renders (--enable-ssl-passthrough): the stream
// server that owns the HTTPS port, reads the ClientHello's SNI (ssl_preread)
// and sends each TLS connection on, undecrypted:
// - a passthrough host (Model.sslPassthrough) through a second, local stream
//   hop to its backend's endpoints;
// - every other name to the HTTP servers' TLS listener on a unix socket.
// The first hop always sends a PROXY header, so the HTTP side knows the
// client's address (client-address-view.ts trusts it from `unix:` alone);
// NGINX's proxy_protocol is per server, not per target, so the passthrough
// connections get their own hop, which reads the header back and sends none
// to the backend. That hop takes the peer njs picks by the SNI name from the
// endpoints the controller feeds (resty_stream.js pickSni, `SNI/<hostname>`):
// endpoints are not in nginx.conf, so an endpoint change reloads nothing, as
// for the TCP/UDP services (stream-view.ts). Both sockets sit in NGINX's private socket directory
// (render-options.ts fallbackSocketPaths). Every value is checked again here:
// the template only quotes.

import type { Model, PassthroughHost } from '../model/types.ts';
import { RenderError } from './nginx-values.ts';
import { fallbackSocketPaths, type ResolvedRenderOptions } from './render-options.ts';

/** One passthrough host: the SNI name (its endpoints are fed to njs, not rendered). */
export interface PassthroughHostView {
  /** The exact SNI name (map key, and `SNI/<hostname>` in the njs feed). */
  readonly hostname: string;
  /** `namespace/service:port`, for a comment that says where the host goes. */
  readonly target: string;
}

/** The passthrough part of the stream {} context. */
export interface PassthroughView {
  /** `<address>:<https port>`: the public HTTPS listener. */
  readonly listen: string;
  /** use-proxy-protocol: the balancer in front sends a PROXY header, read here (and trusted from realIpFrom). */
  readonly decodeProxyProtocol: boolean;
  /** `set_real_ip_from` of that header: proxy-real-ip-cidr (printed with qaddr); empty without decodeProxyProtocol. */
  readonly realIpFrom: readonly string[];
  /** proxy-protocol-header-timeout in ms. */
  readonly proxyProtocolTimeoutMs: number;
  /** `unix:<dir>/https.sock`: the HTTP servers' TLS listener (server.njk via TlsView.listen). */
  readonly httpsSocket: string;
  /** `unix:<dir>/passthrough.sock`: the second hop of the passthrough hosts. */
  readonly passthroughSocket: string;
  /** Sorted by hostname. */
  readonly hosts: readonly PassthroughHostView[];
  /** map_hash_max_size / map_hash_bucket_size of the SNI maps: NGINX's defaults hold no long or many names. */
  readonly mapHash: { readonly maxSize: number; readonly bucketSize: number };
}

const HOSTNAME = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)*$/u;

/** The unix sockets of SSL passthrough, beside the fallback servers' (NGINX's private directory). */
export function passthroughSocketPaths(prefix: string): { readonly https: string; readonly passthrough: string } {
  const { dir } = fallbackSocketPaths(prefix);
  return { https: `unix:${dir}/https.sock`, passthrough: `unix:${dir}/passthrough.sock` };
}

function hostOf(host: PassthroughHost): PassthroughHostView {
  if (typeof host.hostname !== 'string' || host.hostname.length > 253 || !HOSTNAME.test(host.hostname)) {
    throw new RenderError('UnsafeValue', `passthrough host ${JSON.stringify(host.hostname)} is not a lowercase DNS name`);
  }
  return { hostname: host.hostname, target: `${host.namespace}/${host.service}:${host.servicePort}` };
}

/**
 * The passthrough view; null without --enable-ssl-passthrough (then Model.sslPassthrough must be absent).
 * `sizeHash`: how the server names' hash is sized (config-view.ts), used for the SNI maps.
 */
export function passthroughViewOf(
  model: Model,
  options: ResolvedRenderOptions,
  sizeHash: (names: readonly string[]) => { readonly maxSize: number; readonly bucketSize: number },
): PassthroughView | null {
  const hosts = model.sslPassthrough ?? [];
  if (options.sslPassthrough !== true) {
    if (hosts.length > 0) throw new RenderError('UnsafeValue', 'model: sslPassthrough hosts need the sslPassthrough render option');
    return null;
  }
  if (options.httpsPort === null) throw new RenderError('InvalidOptions', 'render options: sslPassthrough needs httpsPort');
  const address = model.settings?.clientAddress;
  const decode = address?.useProxyProtocol === true;
  const seen = new Set<string>();
  const views = hosts.map((host) => {
    const view = hostOf(host);
    if (seen.has(view.hostname)) throw new RenderError('UnsafeValue', `model: passthrough host ${view.hostname} appears twice`);
    seen.add(view.hostname);
    return view;
  });
  const sockets = passthroughSocketPaths(options.prefix);
  return {
    listen: `${options.listenAddress}:${options.httpsPort}`,
    decodeProxyProtocol: decode,
    realIpFrom: decode ? address.realIpFrom : [],
    proxyProtocolTimeoutMs: address?.proxyProtocolHeaderTimeoutMs ?? 5000,
    httpsSocket: sockets.https,
    passthroughSocket: sockets.passthrough,
    hosts: views,
    mapHash: sizeHash(views.map((view) => view.hostname)),
  };
}
