// Model types of layer 4: the TCP and UDP services of --tcp-services-configmap
// and --udp-services-configmap (ingress-nginx's format). Part of the model
// contract (types.ts imports them into Model and BuildOptions); every field is
// documented because the steps after the builder read nothing else.

import type { Endpoint } from './types.ts';

/** The transport of a stream service: which ConfigMap named it, and how NGINX listens (`udp` or not). */
export type StreamProtocol = 'TCP' | 'UDP';

/** PROXY protocol (v1) on either side of a TCP service: the two optional `:PROXY` fields of an entry. */
export interface StreamProxyProtocol {
  /** First `:PROXY`: the listener expects a PROXY header from the client (`listen … proxy_protocol`). */
  readonly decode: boolean;
  /** Second `:PROXY`: NGINX sends a PROXY header to the backend (`proxy_protocol on`). */
  readonly encode: boolean;
}

/**
 * One listener of the stream {} context: one ConfigMap entry that passed every check.
 * STATIC but for `endpoints`: port, protocol and PROXY flags are in nginx.conf (a change
 * reloads); the endpoints are DYNAMIC, fed to njs in NGINX (DynamicStream, docs/tcp-udp-services.md).
 */
export interface StreamService {
  /** The port NGINX listens on: the entry's key, 1..65535, never one of the controller's own ports. */
  readonly port: number;
  /** TCP (--tcp-services-configmap) or UDP (--udp-services-configmap). */
  readonly protocol: StreamProtocol;
  /** Namespace of the Service (a DNS-1123 label). */
  readonly namespace: string;
  /** Name of the Service (a DNS-1035 label). */
  readonly service: string;
  /**
   * The Service port as the entry names it: its number (`spec.ports[].port`) or its name
   * (`spec.ports[].name`); in both cases a port of this protocol.
   */
  readonly servicePort: number | string;
  /** PROXY protocol flags; always both false for UDP (ingress-nginx ignores them there). */
  readonly proxyProtocol: StreamProxyProtocol;
  /**
   * Ready endpoints of the Service port (EndpointSlices), sorted by address then port. Empty
   * (scaled to zero, none ready) keeps the listener: connections are closed at once. DYNAMIC:
   * the differ blanks them and the sync feeds them to njs, never a reload.
   */
  readonly endpoints: readonly Endpoint[];
}

/** What njs receives for one listener (the dynamic part of a StreamService): the feed's unit. */
export interface DynamicStream {
  readonly protocol: StreamProtocol;
  readonly port: number;
  /** Round robin over these, in this order (IP addresses only). */
  readonly endpoints: readonly Endpoint[];
}

/** A port NGINX or the controller already listens on, which no stream service may take. */
export interface ReservedPort {
  readonly port: number;
  /** The flag that set it, for the failure message, e.g. `--http-port`. */
  readonly flag: string;
}
