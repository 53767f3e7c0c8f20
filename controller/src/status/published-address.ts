// Which address goes into `.status.loadBalancer.ingress` of our Ingresses
// (what `kubectl get ingress` shows under ADDRESS), by ingress-nginx's rules
// (internal/ingress/status/status.go, v1.15.1):
// --publish-status-address wins; else the --publish-service Service, by type:
//   ExternalName  its externalName;
//   ClusterIP     its clusterIP (and nothing else: externalIPs are ignored);
//   NodePort      its externalIPs, or its clusterIP when it has none;
//   LoadBalancer  its load-balancer entries (IP and hostname kept together),
//                 then its externalIPs not already among them. A load balancer
//                 still pending publishes NOTHING (an old address is cleared),
//                 never the clusterIP.
// Where ingress-nginx would write a value the API server refuses (a headless
// Service's clusterIP "None", an ExternalName without a name) or gives up (an
// unknown type), the status is left as it is. Entries are deduplicated and
// sorted as ingress-nginx sorts them (hostname, then IP), so comparing with
// the current status never sees a difference in order only.

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

/** What a Service publishes: entries ([] = nothing yet), or why status must be left alone. */
export type ServicePublication =
  | { readonly kind: 'entries'; readonly entries: readonly V1IngressLoadBalancerIngress[] }
  | { readonly kind: 'unusable'; readonly reason: string };

function entries(list: readonly V1IngressLoadBalancerIngress[]): ServicePublication {
  return { kind: 'entries', entries: list };
}

function clusterIPOf(service: V1Service): ServicePublication {
  const clusterIP = service.spec?.clusterIP ?? '';
  if (isIP(clusterIP) === 0) return { kind: 'unusable', reason: `clusterIP ${JSON.stringify(clusterIP)} is not an IP address` };
  return entries([{ ip: clusterIP }]);
}

/** Same IP or hostname as one of `list` (ingress-nginx's stringInIngresses). */
function listed(address: string, list: readonly V1IngressLoadBalancerIngress[]): boolean {
  return list.some((entry) => entry.ip === address || entry.hostname === address);
}

function loadBalancerOf(service: V1Service): ServicePublication {
  const found: V1IngressLoadBalancerIngress[] = [];
  for (const entry of service.status?.loadBalancer?.ingress ?? []) {
    const published: V1IngressLoadBalancerIngress = {
      ...(entry.ip ? { ip: entry.ip } : {}),
      ...(entry.hostname ? { hostname: entry.hostname } : {}),
    };
    if (published.ip !== undefined || published.hostname !== undefined) found.push(published);
  }
  for (const ip of service.spec?.externalIPs ?? []) {
    if (!listed(ip, found)) found.push({ ip });
  }
  return entries(found);
}

/** What a --publish-service Service publishes, by its type. */
export function serviceAddresses(service: V1Service): ServicePublication {
  // The API server defaults an absent type to ClusterIP.
  const type = service.spec?.type ?? 'ClusterIP';
  switch (type) {
    case 'ExternalName': {
      const name = service.spec?.externalName ?? '';
      return name === '' ? { kind: 'unusable', reason: 'ExternalName Service without externalName' } : entries([{ hostname: name }]);
    }
    case 'ClusterIP':
      return clusterIPOf(service);
    case 'NodePort': {
      const external = service.spec?.externalIPs ?? [];
      return external.length === 0 ? clusterIPOf(service) : entries(external.map((ip) => ({ ip })));
    }
    case 'LoadBalancer':
      return loadBalancerOf(service);
    default:
      return { kind: 'unusable', reason: `Service type ${JSON.stringify(type)} has no address to publish` };
  }
}

/** The identity of an entry (ingress-nginx compares IP and hostname, never ports). */
export function entryKey(entry: V1IngressLoadBalancerIngress): string {
  return `${entry.ip ?? ''}|${entry.hostname ?? ''}`;
}

/** Sorted (hostname, then IP), deduplicated status entries; empty ones dropped; ports left out. */
export function normalizeEntries(list: readonly V1IngressLoadBalancerIngress[]): V1IngressLoadBalancerIngress[] {
  const byKey = new Map<string, V1IngressLoadBalancerIngress>();
  for (const entry of list) {
    const ip = entry.ip || undefined;
    const hostname = entry.hostname || undefined;
    if (ip === undefined && hostname === undefined) continue;
    const clean = { ...(ip !== undefined ? { ip } : {}), ...(hostname !== undefined ? { hostname } : {}) };
    byKey.set(entryKey(clean), clean);
  }
  const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return [...byKey.values()].sort((a, b) => compare(a.hostname ?? '', b.hostname ?? '') || compare(a.ip ?? '', b.ip ?? ''));
}

/** Normalised status entries for these addresses (--publish-status-address). */
export function normalizeAddresses(addresses: readonly string[]): V1IngressLoadBalancerIngress[] {
  return normalizeEntries(addresses.map(toLoadBalancerIngress));
}

/** The entries an Ingress status currently shows, in the same normal form. */
export function currentAddresses(status: { loadBalancer?: { ingress?: readonly V1IngressLoadBalancerIngress[] } } | undefined): V1IngressLoadBalancerIngress[] {
  return normalizeEntries(status?.loadBalancer?.ingress ?? []);
}

/** True when two normalised lists are the same. */
export function sameAddresses(a: readonly V1IngressLoadBalancerIngress[], b: readonly V1IngressLoadBalancerIngress[]): boolean {
  return a.length === b.length && a.every((entry, i) => entryKey(entry) === entryKey(b[i]));
}
