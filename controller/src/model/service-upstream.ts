// service-upstream (features/service-upstream.ts) for one backend: its one
// endpoint is the Service's ClusterIP and the Service port, as ingress-nginx
// builds it (the port a named Ingress port resolves to, never the
// targetPort: kube-proxy translates). A Service without a ClusterIP (headless,
// "None") keeps the endpoints of its EndpointSlices, as in ingress-nginx, with
// a warning to the Ingresses that asked; an ExternalName Service is refused
// before this (backends.ts).

import { isIPv4, isIPv6 } from 'node:net';
import type { V1Service, V1ServicePort } from '@kubernetes/client-node';
import { isPortNumber } from './names.ts';
import type { Endpoint } from './types.ts';

/** The ClusterIP endpoint, or why the Service has none (the backend then keeps its EndpointSlices' endpoints). */
export type ClusterEndpoint =
  | { readonly ok: true; readonly endpoints: readonly Endpoint[] }
  | { readonly ok: false; readonly reason: string; readonly message: string };

/** The address as the model writes endpoint addresses (IPv6 lowercased), or null for anything else. */
function clusterAddress(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (isIPv4(value)) return value;
  if (isIPv6(value) && !value.includes('%')) return value.toLowerCase();
  return null;
}

/** The endpoint service-upstream gives `servicePort` of `service`. */
export function clusterEndpointOf(service: V1Service, servicePort: V1ServicePort): ClusterEndpoint {
  const key = `${service.metadata?.namespace ?? ''}/${service.metadata?.name ?? ''}`;
  const raw: unknown = service.spec?.clusterIP;
  if (raw === undefined || raw === null || raw === '' || raw === 'None') {
    return {
      ok: false, reason: 'ServiceUpstreamWithoutClusterIP',
      message: `Service ${key} has no ClusterIP (headless): service-upstream uses its endpoints`,
    };
  }
  const address = clusterAddress(raw);
  if (address === null || !isPortNumber(servicePort.port)) {
    return {
      ok: false, reason: 'ServiceUpstreamWithoutClusterIP',
      message: `Service ${key} has no usable ClusterIP and port: service-upstream uses its endpoints`,
    };
  }
  return { ok: true, endpoints: Object.freeze([Object.freeze({ address, port: servicePort.port })]) };
}
