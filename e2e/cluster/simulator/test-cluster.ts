// Test helpers: a local API server with a simulator on it, plain-JSON calls
// as the admin, and polling. Used by the simulator's tests only.
import { KubeConfig } from '@kubernetes/client-node';
import { Agent, fetch, type Response } from 'undici';
import { waitFor as pollUntil } from '../../harness/wait.ts';
import { startApiServer, type ApiServer } from '../apiserver/server.ts';
import type { EndpointSliceObject } from './endpoint-slices.ts';
import { startSimulator, type Simulator } from './simulator.ts';

export interface TestCluster {
  readonly api: ApiServer;
  readonly sim: Simulator;
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** The managed EndpointSlices of a Service. */
  slices(namespace: string, service: string): Promise<EndpointSliceObject[]>;
  stop(): Promise<void>;
}

export async function startTestCluster(addressPool: string): Promise<TestCluster> {
  const api = await startApiServer();
  const kc = new KubeConfig();
  kc.loadFromString(api.kubeconfigFor());
  const sim = await startSimulator({ kc, addressPool, readyDelayMs: 100 });
  // The API may serve HTTPS with a self-signed certificate: trust exactly that one.
  const dispatcher = new Agent(api.caPem ? { connect: { ca: api.caPem } } : {});
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { authorization: `Bearer ${api.adminToken}` };
    if (body !== undefined) headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    const send = (): Promise<Response> => fetch(api.url + path, { dispatcher, method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    // After api.restart() the first request may ride a keep-alive socket the old listener closed: one retry.
    const res = await send().catch(send);
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };
  return {
    api,
    sim,
    call,
    async slices(namespace, service): Promise<EndpointSliceObject[]> {
      const selector = encodeURIComponent(`kubernetes.io/service-name=${service}`);
      const list = await call<{ items: EndpointSliceObject[] }>('GET', `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices?labelSelector=${selector}`);
      return list.items;
    },
    async stop(): Promise<void> {
      await sim.stop();
      await api.stop();
      await dispatcher.close();
    },
  };
}

/** Polls `probe` until it returns a value other than undefined; fails with `what` after `timeoutMs`. */
export function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 8_000): Promise<T> {
  return pollUntil(what, probe, { timeoutMs });
}

export interface DeploymentInput {
  readonly name: string;
  readonly replicas: number;
  readonly ports?: readonly { name?: string; containerPort: number }[];
  readonly maxSurge?: number | string;
  readonly maxUnavailable?: number | string;
  readonly annotations?: Record<string, string>;
}

export function deploymentManifest(input: DeploymentInput): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: input.name, annotations: input.annotations ?? {} },
    spec: {
      replicas: input.replicas,
      selector: { matchLabels: { app: input.name } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: input.maxSurge ?? '25%', maxUnavailable: input.maxUnavailable ?? '25%' } },
      template: {
        metadata: { labels: { app: input.name } },
        spec: { containers: [{ name: 'echo', image: 'echo:1', ports: input.ports ?? [{ name: 'http', containerPort: 8080 }] }] },
      },
    },
  };
}

export function serviceManifest(name: string, ports: readonly { name?: string; port: number; targetPort?: number | string }[]): object {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: name }, ports } };
}
