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
 * SNI, straight to a Service's endpoints without decrypting them. STATIC as a whole (endpoints
 * included, as Model.streams): a change renders nginx.conf and reloads. The endpoints are a copy
 * of Backend `backend`'s, so a reload-free stream mechanism can later take them from there.
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
  /** Ready endpoints of the backend, sorted; empty keeps the host (connections are closed at once). */
  readonly endpoints: readonly Endpoint[];
}
