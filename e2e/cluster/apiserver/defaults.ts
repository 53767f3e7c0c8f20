// Server-side defaults and create-time normalisation that clients rely on:
// Secret stringData folded into data, Service ClusterIP allocation,
// Deployment replicas, Namespace phase. Only what tools here read back.
import type { KindInfo } from './kinds.ts';
import type { JsonObject } from './patch.ts';
import { isObject } from './patch.ts';

function specOf(obj: JsonObject): JsonObject {
  if (!isObject(obj.spec)) obj.spec = {};
  return obj.spec as JsonObject;
}

/** Hands out ClusterIPs from 10.96.0.0/16 for one API server's lifetime. */
export class ClusterIpAllocator {
  private next = 10;
  allocate(): string {
    const n = this.next++;
    return `10.96.${(n >> 8) & 255}.${n & 255}`;
  }
}

function defaultService(obj: JsonObject, ips: ClusterIpAllocator): void {
  const spec = specOf(obj);
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  if (spec.type !== 'ExternalName' && (spec.clusterIP === undefined || spec.clusterIP === '')) {
    spec.clusterIP = ips.allocate();
  }
  if (typeof spec.clusterIP === 'string' && spec.clusterIPs === undefined) spec.clusterIPs = [spec.clusterIP];
  if (Array.isArray(spec.ports)) {
    for (const p of spec.ports) {
      if (!isObject(p)) continue;
      p.protocol ??= 'TCP';
      p.targetPort ??= p.port ?? null;
    }
  }
}

function defaultWorkload(obj: JsonObject): void {
  const spec = specOf(obj);
  spec.replicas ??= 1;
  if (obj.kind === 'Deployment') {
    spec.revisionHistoryLimit ??= 10;
    spec.progressDeadlineSeconds ??= 600;
    spec.strategy ??= { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } };
  }
}

/** Container ports default to TCP, as kubectl describe and the simulator read them. */
function defaultPodSpec(spec: unknown): void {
  if (!isObject(spec)) return;
  for (const field of ['containers', 'initContainers']) {
    const containers = spec[field];
    if (!Array.isArray(containers)) continue;
    for (const c of containers) {
      if (isObject(c) && Array.isArray(c.ports)) for (const p of c.ports) if (isObject(p)) p.protocol ??= 'TCP';
    }
  }
}

function foldStringData(obj: JsonObject): void {
  obj.type ??= 'Opaque';
  if (!isObject(obj.stringData)) return;
  const data: JsonObject = isObject(obj.data) ? obj.data : {};
  for (const [k, v] of Object.entries(obj.stringData)) data[k] = Buffer.from(String(v)).toString('base64');
  obj.data = data;
  delete obj.stringData;
}

/** Defaults applied on create and update (idempotent). */
export function applyDefaults(info: KindInfo, obj: JsonObject, ips: ClusterIpAllocator): void {
  switch (info.kind) {
    case 'Service': defaultService(obj, ips); break;
    case 'Deployment': case 'ReplicaSet': defaultWorkload(obj); defaultPodSpec((specOf(obj).template as JsonObject | undefined)?.spec); break;
    case 'DaemonSet': case 'Job': defaultPodSpec((specOf(obj).template as JsonObject | undefined)?.spec); break;
    case 'Pod': defaultPodSpec(obj.spec); break;
    case 'Secret': foldStringData(obj); break;
    case 'Namespace': {
      const meta = obj.metadata as JsonObject;
      meta.labels = { ...(isObject(meta.labels) ? meta.labels : {}), 'kubernetes.io/metadata.name': String(meta.name) };
      specOf(obj).finalizers ??= ['kubernetes'];
      break;
    }
  }
}

/** Status a kind starts with: the status subresource owns it afterwards. */
export function initialStatus(info: KindInfo): JsonObject | undefined {
  switch (info.kind) {
    case 'Namespace': return { phase: 'Active' };
    case 'Pod': return { phase: 'Pending' };
    case 'Service': case 'Ingress': return { loadBalancer: {} };
    default: return info.status ? {} : undefined;
  }
}
