// Model types of SSL passthrough (--enable-ssl-passthrough and the
// ssl-passthrough annotation). Part of the model contract (types.ts imports
// them into Model and BuildOptions); every field is documented because the
// steps after the builder read nothing else.

import type { Endpoint } from './types.ts';

/** The ssl-passthrough annotation as parsed (model/features/ssl-passthrough.ts). */
export interface SslPassthroughConfig {
  /** true: TLS connections whose SNI names a host of the Ingress go to its backend undecrypted. */
  readonly enabled: boolean;
}

/**
 * One host whose TLS connections the stream listener on the HTTPS port sends, by the ClientHello's
 * SNI, straight to a Service's endpoints without decrypting them. STATIC but for `endpoints`,
 * as Model.streams: the hostname is in nginx.conf (a change reloads); the endpoints are DYNAMIC,
 * fed to njs with the TCP/UDP services' (DynamicPassthroughPeers, docs/ssl-passthrough.md).
 */
export interface PassthroughHost {
  /** The Ingress host (lowercase, no wildcard), matched exactly against the SNI name. */
  readonly hostname: string;
  /** Backend.name of the host's `/` location: the Service port the connections go to. */
  readonly backend: string;
  /** Namespace, Service and Service port of that backend, for the comment in nginx.conf and Events. */
  readonly namespace: string;
  readonly service: string;
  readonly servicePort: number | string;
  /** The Ingress that made the host passthrough (the oldest naming the host). */
  readonly ingress: { readonly namespace: string; readonly name: string };
  /**
   * Ready endpoints of the backend (a copy of Backend `backend`'s), sorted; empty keeps the host
   * (connections are closed at once). DYNAMIC: the differ blanks them and the sync feeds them to njs.
   */
  readonly endpoints: readonly Endpoint[];
}
