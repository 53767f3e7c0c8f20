// The EndpointSlice controller's rules, pure: which slices a Service should
// have given the simulated pods, and a fingerprint that says whether a slice
// in the API already holds exactly that (so unchanged slices are never written).
import { createHash } from 'node:crypto';
import type { SimPod } from './pod-runtime.ts';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const MANAGED_BY = 'endpointslice-controller.k8s.io';
/** Kubernetes' default --max-endpoints-per-slice. */
export const MAX_ENDPOINTS_PER_SLICE = 100;

export interface ServicePort {
  name?: string;
  port: number;
  targetPort?: number | string;
  protocol?: string;
  appProtocol?: string;
}

export interface ServiceObject {
  metadata: { name: string; namespace?: string; uid?: string };
  spec?: { selector?: Record<string, string>; type?: string; ports?: ServicePort[] };
}

export interface SlicePort { name: string; port: number; protocol: string; appProtocol?: string }

export interface SliceEndpoint {
  addresses: string[];
  conditions: { ready: boolean; serving: boolean; terminating: boolean };
  targetRef: { kind: 'Pod'; namespace: string; name: string; uid: string };
  nodeName: string;
}

export interface EndpointSliceObject {
  apiVersion: 'discovery.k8s.io/v1';
  kind: 'EndpointSlice';
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller: boolean; blockOwnerDeletion: boolean }[];
    resourceVersion?: string;
  };
  addressType: 'IPv4';
  endpoints: SliceEndpoint[] | null;
  ports: SlicePort[] | null;
}

const NODE_NAME = 'simulator';

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 5);
}

function selects(selector: Readonly<Record<string, string>>, labels: Readonly<Record<string, string>>): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

/** The Service's ports as this pod serves them; a named targetPort the pod lacks drops that port, as in Kubernetes. */
export function resolvePorts(ports: readonly ServicePort[], pod: Pick<SimPod, 'containerPorts'> | null): SlicePort[] {
  const out: SlicePort[] = [];
  for (const servicePort of ports) {
    const protocol = servicePort.protocol ?? 'TCP';
    const target = servicePort.targetPort ?? servicePort.port;
    const port = typeof target === 'number'
      ? target
      : pod?.containerPorts.find((candidate) => candidate.name === target && (candidate.protocol ?? 'TCP') === protocol)?.containerPort;
    if (port === undefined) continue;
    out.push({ name: servicePort.name ?? '', port, protocol, ...(servicePort.appProtocol ? { appProtocol: servicePort.appProtocol } : {}) });
  }
  return out;
}

function endpointOf(pod: SimPod): SliceEndpoint {
  return {
    addresses: [pod.ip],
    conditions: { ready: pod.state === 'ready', serving: pod.serving, terminating: pod.state === 'terminating' },
    targetRef: { kind: 'Pod', namespace: pod.namespace, name: pod.name, uid: pod.uid },
    nodeName: NODE_NAME,
  };
}

/** The slices `service` should have; empty for a Service without selector (its slices are someone else's). */
export function desiredEndpointSlices(service: ServiceObject, pods: readonly SimPod[]): EndpointSliceObject[] {
  const selector = service.spec?.selector ?? {};
  if (Object.keys(selector).length === 0 || service.spec?.type === 'ExternalName') return [];
  const namespace = service.metadata.namespace ?? 'default';
  const name = service.metadata.name;
  const servicePorts = service.spec?.ports ?? [];
  // Pods that resolve the ports differently (a renamed container port mid-rollout) go to different slices.
  const groups = new Map<string, { ports: SlicePort[]; pods: SimPod[] }>();
  for (const pod of pods) {
    if (pod.namespace !== namespace || !selects(selector, pod.labels)) continue;
    const ports = resolvePorts(servicePorts, pod);
    const key = JSON.stringify(ports);
    const group = groups.get(key) ?? { ports, pods: [] };
    group.pods.push(pod);
    groups.set(key, group);
  }
  const ordered = [...groups.entries()].sort(([keyA, a], [keyB, b]) => b.pods.length - a.pods.length || keyA.localeCompare(keyB));
  if (ordered.length === 0) ordered.push(['', { ports: resolvePorts(servicePorts, null), pods: [] }]);
  const slices: EndpointSliceObject[] = [];
  ordered.forEach(([key, group], groupIndex) => {
    const sorted = [...group.pods].sort((a, b) => a.name.localeCompare(b.name));
    const chunks = Math.max(1, Math.ceil(sorted.length / MAX_ENDPOINTS_PER_SLICE));
    for (let chunk = 0; chunk < chunks; chunk++) {
      // The biggest group's first slice keeps one stable name, so a Service keeps its slice across scale 0 and back.
      const suffix = groupIndex === 0 && chunk === 0 ? shortHash(`${namespace}/${name}`) : shortHash(`${namespace}/${name}/${key}/${chunk}`);
      slices.push({
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: `${name}-${suffix}`,
          namespace,
          labels: { [SERVICE_NAME_LABEL]: name, [MANAGED_BY_LABEL]: MANAGED_BY },
          ...(service.metadata.uid
            ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name, uid: service.metadata.uid, controller: true, blockOwnerDeletion: true }] }
            : {}),
        },
        addressType: 'IPv4',
        endpoints: sorted.slice(chunk * MAX_ENDPOINTS_PER_SLICE, (chunk + 1) * MAX_ENDPOINTS_PER_SLICE).map(endpointOf),
        ports: group.ports,
      });
    }
  });
  return slices;
}

/** A slice as read back from the API: fields the server defaults may be absent. */
export interface SliceLike {
  metadata?: { labels?: Record<string, string> };
  addressType?: string;
  endpoints?: { addresses: string[]; conditions?: Partial<SliceEndpoint['conditions']>; targetRef?: { uid?: string } }[] | null;
  ports?: { name?: string; port: number; protocol?: string; appProtocol?: string }[] | null;
}

/** What matters of a slice, in a canonical form: equal fingerprints mean no write is needed. */
export function sliceFingerprint(slice: SliceLike): string {
  const labels = slice.metadata?.labels ?? {};
  return JSON.stringify({
    service: labels[SERVICE_NAME_LABEL] ?? null,
    managedBy: labels[MANAGED_BY_LABEL] ?? null,
    addressType: slice.addressType ?? null,
    endpoints: (slice.endpoints ?? []).map((endpoint) => ({
      addresses: endpoint.addresses,
      ready: endpoint.conditions?.ready ?? null,
      serving: endpoint.conditions?.serving ?? null,
      terminating: endpoint.conditions?.terminating ?? null,
      pod: endpoint.targetRef?.uid ?? null,
    })),
    ports: (slice.ports ?? []).map((port) => [port.name ?? '', port.port, port.protocol ?? 'TCP', port.appProtocol ?? null]),
  });
}
