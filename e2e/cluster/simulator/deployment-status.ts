// Deployment .status as the Deployment controller reports it, pure, so that
// `kubectl rollout status` (which reads only these fields) behaves as on a
// cluster. Condition times are kept while a condition's status stays the same.
import type { SimPod } from './pod-runtime.ts';

export interface DeploymentCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastUpdateTime: string;
  lastTransitionTime: string;
}

export interface DeploymentStatus {
  observedGeneration: number;
  replicas: number;
  updatedReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  unavailableReplicas: number;
  conditions: DeploymentCondition[];
}

export interface StatusInput {
  readonly name: string;
  readonly generation: number;
  readonly replicas: number;
  readonly maxUnavailable: number;
  readonly templateHash: string;
  /** All of this Deployment's pods, terminating ones included. */
  readonly pods: readonly SimPod[];
  readonly previous: Partial<DeploymentStatus> | undefined;
  /** RFC 3339, second precision. */
  readonly now: string;
}

function condition(type: string, status: 'True' | 'False', reason: string, message: string, input: StatusInput): DeploymentCondition {
  const before = input.previous?.conditions?.find((existing) => existing.type === type);
  const sameStatus = before?.status === status;
  const sameReason = sameStatus && before?.reason === reason && before?.message === message;
  return {
    type,
    status,
    reason,
    message,
    lastUpdateTime: sameReason ? before.lastUpdateTime : input.now,
    lastTransitionTime: sameStatus ? before.lastTransitionTime : input.now,
  };
}

export function deploymentStatus(input: StatusInput): DeploymentStatus {
  const active = input.pods.filter((pod) => pod.state !== 'terminating');
  const updated = active.filter((pod) => pod.templateHash === input.templateHash);
  const ready = active.filter((pod) => pod.state === 'ready').length;
  const complete = updated.length === input.replicas && active.length === input.replicas && updated.every((pod) => pod.state === 'ready');
  const replicaSet = `ReplicaSet "${input.name}-${input.templateHash}"`;
  const minimum = ready >= input.replicas - input.maxUnavailable;
  return {
    observedGeneration: input.generation,
    replicas: active.length,
    updatedReplicas: updated.length,
    readyReplicas: ready,
    availableReplicas: ready,
    unavailableReplicas: Math.max(0, input.replicas - ready),
    conditions: [
      minimum
        ? condition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', input)
        : condition('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.', input),
      complete
        ? condition('Progressing', 'True', 'NewReplicaSetAvailable', `${replicaSet} has successfully progressed.`, input)
        : condition('Progressing', 'True', 'ReplicaSetUpdated', `${replicaSet} is progressing.`, input),
    ],
  };
}

/** The status without times: equal fingerprints mean no status write is needed. */
export function statusFingerprint(status: Partial<DeploymentStatus> | undefined): string {
  const conditions = (status?.conditions ?? []).map((item) => [item.type, item.status, item.reason, item.message]);
  return JSON.stringify([
    status?.observedGeneration ?? 0, status?.replicas ?? 0, status?.updatedReplicas ?? 0, status?.readyReplicas ?? 0,
    status?.availableReplicas ?? 0, status?.unavailableReplicas ?? 0, conditions,
  ]);
}
