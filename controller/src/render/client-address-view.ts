// What the client-address settings (model/features/client-address.ts) print in
// http {} (features/client-address-http.njk) and on the public listeners. The
// header list (proxy-headers.njk) names only variables defined here, so it is
// the same text whatever the settings: a location that prints it again needs
// nothing of them. Every value is checked again here (a hand-written or old
// model must not put text into nginx.conf the feature's parser would refuse).

import type { ClientAddressSettings, Model } from '../model/types.ts';
import { RenderError } from './nginx-values.ts';

/** http {} and the listeners' part of the client-address settings. */
export interface ClientAddressView {
  /** `real_ip_header`: a header name or `proxy_protocol`; null = the realip module stays off. */
  readonly realIpHeader: string | null;
  /** `set_real_ip_from`, canonical addresses and ranges (printed with qaddr). */
  readonly realIpFrom: readonly string[];
  /** `proxy_protocol` on the public HTTP and HTTPS listeners. */
  readonly proxyProtocol: boolean;
  /** $req_id falls back to $request_id when the client sends no X-Request-ID. */
  readonly generateRequestId: boolean;
  /** The client's X-Forwarded-Proto/-Port/-Host name the scheme, port and host sent on. */
  readonly forwardedHeaders: boolean;
  /** X-Forwarded-For is the client's header plus $realip_remote_addr. */
  readonly fullForwardedFor: boolean;
  /** X-Original-URI is sent. */
  readonly originalUri: boolean;
  /** The `$http_…` variable name (without `$`) of forwarded-for-header, for X-Original-Forwarded-For. */
  readonly forwardedForVariable: string;
  /** The same for forwarded-host-header, for X-Original-Forwarded-Host. */
  readonly forwardedHostVariable: string;
  /** The HTTPS listener's port, which X-Forwarded-Port reports as 443 (ingress-nginx's $pass_port); null without HTTPS. */
  readonly httpsPort: number | null;
  /**
   * SSL passthrough: HTTPS requests arrive on a unix socket from the stream router with a PROXY header
   * naming the client (render/ssl-passthrough-view.ts): `set_real_ip_from unix:`, and the port they
   * came to is the header's ($server_port is empty on a unix socket).
   */
  readonly passthroughSocket: boolean;
}

const HEADER_NAME = /^[A-Za-z][A-Za-z0-9-]{0,63}$/u;

const DEFAULTS: ClientAddressSettings = Object.freeze({
  useForwardedHeaders: false, forwardedForHeader: 'X-Forwarded-For', forwardedHostHeader: 'X-Forwarded-Host',
  computeFullForwardedFor: false, enableRealIp: false, realIpFrom: Object.freeze(['0.0.0.0/0']), useProxyProtocol: false,
  proxyProtocolHeaderTimeoutMs: 5000, addOriginalUri: false, generateRequestId: true,
});

/** `$http_<name>`'s name part: lower case, `-` as `_` (NGINX's own mapping of header names). */
function headerVariable(name: unknown, key: string): string {
  if (typeof name !== 'string' || !HEADER_NAME.test(name)) {
    throw new RenderError('UnsafeValue', `model: settings.clientAddress.${key} must be a header name of letters, digits and "-"`);
  }
  return `http_${name.toLowerCase().replaceAll('-', '_')}`;
}

function flag(settings: ClientAddressSettings, key: keyof ClientAddressSettings): boolean {
  const value = settings[key];
  if (typeof value !== 'boolean') throw new RenderError('UnsafeValue', `model: settings.clientAddress.${key} must be a boolean`);
  return value;
}

/** The view of `model.settings.clientAddress` (ingress-nginx's defaults in a model from before the feature). */
export function clientAddressViewOf(model: Model, httpsPort: number | null, passthrough = false): ClientAddressView {
  const settings = model.settings?.clientAddress ?? DEFAULTS;
  const forwarded = flag(settings, 'useForwardedHeaders');
  const proxyProtocol = flag(settings, 'useProxyProtocol');
  if (forwarded && proxyProtocol) {
    throw new RenderError('UnsafeValue', 'model: settings.clientAddress: useForwardedHeaders with useProxyProtocol is not supported');
  }
  if (!Array.isArray(settings.realIpFrom)) throw new RenderError('UnsafeValue', 'model: settings.clientAddress.realIpFrom must be an array');
  const forwardedForVariable = headerVariable(settings.forwardedForHeader, 'forwardedForHeader');
  const realIp = forwarded || proxyProtocol || flag(settings, 'enableRealIp');
  if (passthrough && realIp && !proxyProtocol) {
    // realip reads one source per request: the PROXY header of the unix socket and a header cannot chain (model/ssl-passthrough.ts drops them).
    throw new RenderError('UnsafeValue', 'model: settings.clientAddress: use-forwarded-headers or enable-real-ip with SSL passthrough is not supported');
  }
  return {
    // As nginx.tmpl: PROXY protocol names the client, else forwarded-for-header. SSL passthrough: the unix socket's PROXY header.
    realIpHeader: realIp || passthrough ? (proxyProtocol || passthrough ? 'proxy_protocol' : settings.forwardedForHeader) : null,
    realIpFrom: realIp ? settings.realIpFrom : [],
    proxyProtocol,
    generateRequestId: flag(settings, 'generateRequestId'),
    forwardedHeaders: forwarded,
    fullForwardedFor: forwarded && flag(settings, 'computeFullForwardedFor'),
    originalUri: flag(settings, 'addOriginalUri'),
    forwardedForVariable,
    forwardedHostVariable: headerVariable(settings.forwardedHostHeader, 'forwardedHostHeader'),
    httpsPort,
    passthroughSocket: passthrough,
  };
}
