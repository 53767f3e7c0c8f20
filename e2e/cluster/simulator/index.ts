// The cluster simulator: kubelet + Deployment controller + EndpointSlice
// controller for the local (or any) Kubernetes API, talking to it only over
// HTTP(S) with a kubeconfig. Pods are echo servers (../echo) on loopback
// addresses from a pool. May import: @kubernetes/client-node, ../echo, node.
//
//   watch-cache ─▶ simulator (one level-based reconcile pass per kick)
//                    ├─ deployments + rollout  → pod-runtime (echo servers)
//                    ├─ deployment-status      → PUT …/deployments/NAME/status
//                    └─ endpoint-slices        → create / replace / delete slices
//   write-memo: our own writes not yet seen on the watch (no double writes)
export { startSimulator, allowPlainHttp } from './simulator.ts';
export type { PodInfo, Simulator, SimulatorLogger, SimulatorOptions } from './simulator.ts';
export { GRACE_ANNOTATION, READY_DELAY_ANNOTATION } from './deployments.ts';
export type { StartPodServer } from './pod-runtime.ts';
