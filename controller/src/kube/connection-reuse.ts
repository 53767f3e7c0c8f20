// Keep-alive connections to the API server.
//
// client-node (1.4.0, pinned exactly) makes a new https.Agent for every
// request: every list page, Event and status write opened a new TCP + TLS
// connection. Against the local API server a small read took 8–12 ms and
// ~5 ms of CPU that way, 1.8 ms and ~1 ms over one kept-alive connection
// (docs/performance.md, "Controller at scale"). At 10,000 Ingresses the
// controller writes 10,000 statuses after it wins the election.
//
// The agent is reused while the options it is made from (server, CA, client
// certificate, TLS verification) stay the same; when they change (a rotated
// client certificate from an exec plugin) a new one is made. Behind a proxy
// the proxy agents are made per request, as before. Tokens travel in headers,
// never in the agent, so a refreshed token needs no new agent.

import type { Agent } from 'node:http';
import type { Cluster, KubeConfig } from '@kubernetes/client-node';

/** Node's own global agent's settings: idle sockets close after 5 s, before the server's idle timeout would. */
const KEEP_ALIVE = { keepAlive: true, timeout: 5000 } as const;

type CreateAgent = (cluster: Cluster | null, options: Record<string, unknown>) => Agent;

/** What makes two agents interchangeable: the cluster's address and the TLS options (Buffers by content). */
export function agentKey(cluster: Cluster | null, options: Readonly<Record<string, unknown>>): string {
  return JSON.stringify([cluster?.server ?? '', cluster?.skipTLSVerify ?? false, options], (_key, value: unknown) => {
    // JSON.stringify hands a Buffer to the replacer already as { type: 'Buffer', data: [...] }.
    if (value !== null && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer' && Array.isArray((value as { data?: unknown }).data)) {
      return `buffer:${Buffer.from((value as { data: number[] }).data).toString('base64')}`;
    }
    return value;
  });
}

/** Makes `kc` hand every request the same keep-alive agent while its TLS options are unchanged; returns `kc`. */
export function reuseConnections(kc: KubeConfig): KubeConfig {
  // createAgent is private in client-node's types; every request path (applyToFetchOptions, the
  // generated clients' applySecurityAuthentication) goes through it.
  const target = kc as unknown as { createAgent: CreateAgent };
  const create: CreateAgent = target.createAgent.bind(kc);
  let held: { readonly key: string; readonly agent: Agent } | null = null;
  target.createAgent = (cluster, options) => {
    if (cluster?.proxyUrl) return create(cluster, options);
    const key = agentKey(cluster, options);
    if (held?.key !== key) held = { key, agent: create(cluster, { ...options, ...KEEP_ALIVE }) };
    return held.agent;
  };
  return kc;
}
