// Which address goes into `.status.loadBalancer.ingress` of our Ingresses
// (what `kubectl get ingress` shows under ADDRESS), ingress-nginx's rules:
// --publish-status-address wins; else the --publish-service Service's
// load-balancer IPs/hostnames and external IPs, its external name, or, for a
// Service without any, its clusterIP. Results are sorted and deduplicated so
// comparing with the current status never sees a difference in order only.

import { isIP } from 'node:net';
import type { V1IngressLoadBalancerIngress, V1Service } from '@kubernetes/client-node';

/** Where the address comes from; null = no --publish-* flag (status is left alone). */
export type AddressSource =
  | { readonly kind: 'addresses'; readonly addresses: readonly string[] }
  | { readonly kind: 'service'; readonly namespace: string; readonly name: string };

/** One status entry: `ip` for addresses, `hostname` for names. */
export function toLoadBalancerIngress(address: string): V1IngressLoadBalancerIngress {
  return isIP(address) !== 0 ? { ip: address } : { hostname: address };
}

/** The addresses a Service publishes (empty when it has none yet). */
export function serviceAddresses(service: V1Service): string[] {
  if (service.spec?.type === 'ExternalName') return service.spec.externalName ? [service.spec.externalName] : [];
  const found: string[] = [];
  for (const entry of service.status?.loadBalancer?.ingress ?? []) {
    const address = entry.ip || entry.hostname;
    if (address) found.push(address);
  }
  found.push(...(service.spec?.externalIPs ?? []));
  if (found.length === 0) {
    const clusterIP = service.spec?.clusterIP;
    if (clusterIP && clusterIP !== 'None') found.push(clusterIP);
  }
  return found;
}

/** Sorted, deduplicated status entries for these addresses. */
export function normalizeAddresses(addresses: readonly string[]): V1IngressLoadBalancerIngress[] {
  return [...new Set(addresses)].sort().map(toLoadBalancerIngress);
}

/** The addresses an Ingress status currently shows, in the same normal form. */
export function currentAddresses(status: { loadBalancer?: { ingress?: readonly V1IngressLoadBalancerIngress[] } } | undefined): V1IngressLoadBalancerIngress[] {
  const entries = status?.loadBalancer?.ingress ?? [];
  return normalizeAddresses(entries.map((entry) => entry.ip || entry.hostname || '').filter((address) => address !== ''));
}

/** True when two normalised lists are the same. */
export function sameAddresses(a: readonly V1IngressLoadBalancerIngress[], b: readonly V1IngressLoadBalancerIngress[]): boolean {
  return a.length === b.length && a.every((entry, i) => entry.ip === b[i].ip && entry.hostname === b[i].hostname);
}
