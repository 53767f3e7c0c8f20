// The Deployment side of a reconcile pass: turn each Deployment into pods
// (via planRollout and the pod runtime), and report its .status.
import { createHash } from 'node:crypto';
import type { ContainerPort, PodRuntime, PodTemplate, SimPod } from './pod-runtime.ts';
import { planRollout, resolveIntOrPercent } from './rollout.ts';
import type { KubeObject } from './watch-cache.ts';

/** Annotations a test may put on a Deployment to tune its pods. */
export const READY_DELAY_ANNOTATION = 'simulator.resty-ingress.io/ready-delay-ms';
export const GRACE_ANNOTATION = 'simulator.resty-ingress.io/termination-grace-ms';

export interface DeploymentObject extends KubeObject {
  spec?: {
    replicas?: number;
    strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string } };
    template?: {
      metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
      spec?: { containers?: { ports?: ContainerPort[] }[]; terminationGracePeriodSeconds?: number };
    };
  };
  metadata: KubeObject['metadata'] & { deletionTimestamp?: string };
  status?: Record<string, unknown>;
}

export interface PodTiming {
  readonly readyDelayMs: number;
  readonly maxGraceMs: number;
}

/** JSON with sorted keys, so equal templates hash equally whatever the key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

// Per Deployment object: the simulator reconciles every Deployment on every
// pass, and its watch cache hands on the same object until the Deployment changes.
const hashes = new WeakMap<DeploymentObject, string>();

/** pod-template-hash: a template change (restartedAt, image) is a new hash, i.e. a new ReplicaSet generation. */
export function templateHash(deployment: DeploymentObject): string {
  let hash = hashes.get(deployment);
  if (hash === undefined) {
    const digest = createHash('sha256').update(canonicalJson(deployment.spec?.template ?? {})).digest();
    // Kubernetes' hashes are short and lowercase alphanumeric; so are these.
    hash = digest.readBigUInt64BE(0).toString(36).slice(0, 10);
    hashes.set(deployment, hash);
  }
  return hash;
}

function annotationMs(deployment: DeploymentObject, key: string): number | undefined {
  const raw = deployment.metadata.annotations?.[key];
  const value = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

export function podTemplateOf(deployment: DeploymentObject, timing: PodTiming): PodTemplate {
  const template = deployment.spec?.template;
  const graceSeconds = template?.spec?.terminationGracePeriodSeconds ?? 30;
  return {
    namespace: deployment.metadata.namespace ?? 'default',
    deployment: deployment.metadata.name,
    templateHash: templateHash(deployment),
    labels: { ...(template?.metadata?.labels ?? {}), 'pod-template-hash': templateHash(deployment) },
    containerPorts: (template?.spec?.containers ?? []).flatMap((container) => container.ports ?? []),
    readyDelayMs: annotationMs(deployment, READY_DELAY_ANNOTATION) ?? timing.readyDelayMs,
    graceMs: annotationMs(deployment, GRACE_ANNOTATION) ?? Math.min(graceSeconds * 1000, timing.maxGraceMs),
  };
}

export function maxUnavailableOf(deployment: DeploymentObject): number {
  const replicas = deployment.spec?.replicas ?? 1;
  const rolling = deployment.spec?.strategy?.rollingUpdate;
  if (deployment.spec?.strategy?.type === 'Recreate') return replicas;
  const surge = resolveIntOrPercent(rolling?.maxSurge, '25%', replicas, true);
  const unavailable = Math.min(resolveIntOrPercent(rolling?.maxUnavailable, '25%', replicas, false), replicas);
  return surge === 0 && unavailable === 0 ? 1 : unavailable;
}

/** One step toward the Deployment's desired pods; throws RolloutSpecError for a bad strategy. */
export function reconcileDeploymentPods(deployment: DeploymentObject, pods: readonly SimPod[], runtime: PodRuntime, timing: PodTiming): void {
  const template = podTemplateOf(deployment, timing);
  const live = pods.filter((pod) => pod.state !== 'terminating');
  const oldTerminating = pods.filter((pod) => pod.state === 'terminating' && pod.templateHash !== template.templateHash).length;
  const strategy = deployment.spec?.strategy?.type === 'Recreate' ? 'Recreate' : 'RollingUpdate';
  const rolling = deployment.spec?.strategy?.rollingUpdate;
  const plan = planRollout(
    { replicas: deployment.spec?.replicas ?? 1, strategy, maxSurge: rolling?.maxSurge, maxUnavailable: rolling?.maxUnavailable },
    template.templateHash,
    live.map((pod) => ({ name: pod.name, templateHash: pod.templateHash, ready: pod.state === 'ready', sequence: pod.sequence })),
    oldTerminating,
  );
  const stopping = new Set(plan.terminate);
  for (const pod of live) if (stopping.has(pod.name)) runtime.terminate(pod);
  for (let index = 0; index < plan.create; index++) if (runtime.start(template) === null) break;
}
