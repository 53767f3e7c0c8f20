// An Ingress backend reference (`service: {name, port: {number|name}}`),
// validated, and the Backend name derived from it. The name is what
// locations route by and what Lua keys its balancers on.

import type { V1IngressBackend } from '@kubernetes/client-node';
import { accept, refuse, type Checked } from './checked.ts';
import { checkNamespace, checkServiceName, checkServicePort } from './names.ts';

/** A validated reference to one Service port. */
export interface ServiceRef {
  readonly namespace: string;
  readonly service: string;
  /** The Service port as referenced: number or name. */
  readonly port: number | string;
}

/** `<namespace>-<service>-<port>`, ingress-nginx's upstream naming. */
export function backendName(ref: ServiceRef): string {
  return `${ref.namespace}-${ref.service}-${ref.port}`;
}

/** Validates an Ingress backend (rule path or spec.defaultBackend) in the Ingress's namespace. */
export function checkIngressBackend(backend: V1IngressBackend | undefined, namespace: string): Checked<ServiceRef> {
  if (backend?.resource) return refuse('resource backends are not supported; use a Service');
  const service = backend?.service;
  if (!service) return refuse('backend has no service');
  const name = checkServiceName(service.name);
  if (!name.ok) return refuse(`service.name ${name.reason}`);
  const hasNumber = service.port?.number !== undefined && service.port?.number !== null;
  const hasName = service.port?.name !== undefined && service.port?.name !== null && service.port?.name !== '';
  if (hasNumber === hasName) return refuse('service.port needs exactly one of number or name');
  const port = checkServicePort(hasNumber ? service.port?.number : service.port?.name);
  if (!port.ok) return refuse(`service.port ${port.reason}`);
  return accept({ namespace, service: name.value, port: port.value });
}

/** Parses --default-backend-service (`namespace/name`) into its parts. */
export function parseServiceKey(value: string): Checked<{ namespace: string; name: string }> {
  const parts = value.split('/');
  if (parts.length !== 2) return refuse('expected namespace/name');
  const namespace = checkNamespace(parts[0]);
  if (!namespace.ok) return refuse(namespace.reason);
  const name = checkServiceName(parts[1]);
  if (!name.ok) return refuse(name.reason);
  return accept({ namespace: namespace.value, name: name.value });
}
