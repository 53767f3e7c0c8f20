// Server-side printing: the meta.k8s.io/v1 Table that `kubectl get` asks
// for, with NAME and AGE columns (plus a few kind-specific ones), each row
// carrying the object's metadata as kubectl expects.
import type { KindInfo } from './kinds.ts';
import type { JsonObject } from './patch.ts';
import { isObject } from './patch.ts';

interface Column { readonly name: string; readonly type: string; readonly format: string; readonly cell: (obj: JsonObject) => string | number }

/** Age as kubectl prints it: 45s, 12m, 3h, 2d. */
export function formatAge(created: unknown, nowMs: number): string {
  const t = typeof created === 'string' ? Date.parse(created) : NaN;
  if (Number.isNaN(t)) return '<unknown>';
  const s = Math.max(0, Math.floor((nowMs - t) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const sub = (obj: JsonObject, key: string): JsonObject => (isObject(obj[key]) ? obj[key] as JsonObject : {});
const list = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isObject) as JsonObject[] : []);

const EXTRA: Readonly<Record<string, readonly Column[]>> = {
  Deployment: [
    { name: 'Ready', type: 'string', format: '', cell: (o) => `${num(sub(o, 'status').readyReplicas)}/${num(sub(o, 'spec').replicas)}` },
    { name: 'Up-to-date', type: 'integer', format: '', cell: (o) => num(sub(o, 'status').updatedReplicas) },
    { name: 'Available', type: 'integer', format: '', cell: (o) => num(sub(o, 'status').availableReplicas) },
  ],
  Pod: [{ name: 'Status', type: 'string', format: '', cell: (o) => String(sub(o, 'status').phase ?? '') }],
  Service: [
    { name: 'Type', type: 'string', format: '', cell: (o) => String(sub(o, 'spec').type ?? '') },
    { name: 'Cluster-IP', type: 'string', format: '', cell: (o) => String(sub(o, 'spec').clusterIP ?? '') },
  ],
  Namespace: [{ name: 'Status', type: 'string', format: '', cell: (o) => String(sub(o, 'status').phase ?? '') }],
  // kubectl's Ingress columns: ADDRESS is what controllers publish into status (resty-ingress e2e checks it).
  Ingress: [
    { name: 'Class', type: 'string', format: '', cell: (o) => String(sub(o, 'spec').ingressClassName ?? '<none>') },
    { name: 'Hosts', type: 'string', format: '', cell: (o) => list(sub(o, 'spec').rules).map((r) => String(r.host ?? '*')).join(',') || '*' },
    { name: 'Address', type: 'string', format: '', cell: (o) => list(sub(sub(o, 'status'), 'loadBalancer').ingress).map((e) => String(e.ip ?? e.hostname ?? '')).join(',') },
    { name: 'Ports', type: 'string', format: '', cell: (o) => (list(sub(o, 'spec').tls).length > 0 ? '80, 443' : '80') },
  ],
};

export function toTable(info: KindInfo, items: readonly JsonObject[], listMeta: JsonObject, nowMs: number): JsonObject {
  const columns: Column[] = [
    { name: 'Name', type: 'string', format: 'name', cell: (o) => String(sub(o, 'metadata').name ?? '') },
    ...(EXTRA[info.kind] ?? []),
    { name: 'Age', type: 'string', format: '', cell: (o) => formatAge(sub(o, 'metadata').creationTimestamp, nowMs) },
  ];
  return {
    kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: listMeta,
    columnDefinitions: columns.map((c) => ({ name: c.name, type: c.type, format: c.format, description: c.name, priority: 0 })),
    rows: items.map((o) => ({
      cells: columns.map((c) => c.cell(o)),
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata ?? {} },
    })),
  };
}

/** metadata-only form (Accept ...;as=PartialObjectMetadata[List]) used by metadata informers and helm. */
export function toPartial(obj: JsonObject): JsonObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata ?? {} };
}
