// startStack: the usual e2e start in one call — a cluster, our IngressClass,
// and the controller — with both stopped by the test's `after` hook, so a
// scenario file begins with what it is about.
import { startCluster, type Cluster, type ClusterOptions } from './cluster.ts';
import { startController, type ControllerHandle, type ControllerHarnessOptions } from './controller.ts';
import { ingressClassManifest } from './manifests.ts';

/** The part of node:test's TestContext (or `after` hook holder) the stack needs. */
export interface AfterHook {
  after(fn: () => Promise<void>): void;
}

export interface StackOptions {
  readonly cluster?: ClusterOptions;
  readonly controller?: ControllerHarnessOptions;
  /** IngressClass to create before the controller starts: [name, controller]; null for none. Default resty's. */
  readonly ingressClass?: readonly [string, string] | null;
}

export interface Stack {
  readonly cluster: Cluster;
  readonly controller: ControllerHandle;
}

export async function startStack(t: AfterHook, options: StackOptions = {}): Promise<Stack> {
  const cluster = await startCluster(options.cluster);
  // Registered at once: if anything below throws, the cluster still stops.
  t.after(() => cluster.stop());
  const ingressClass = options.ingressClass === undefined ? (['resty', 'resty-ingress.dev/controller'] as const) : options.ingressClass;
  if (ingressClass) await cluster.apply(ingressClassManifest(...ingressClass));
  const controller = await startController(cluster, options.controller);
  t.after(() => controller.stop());
  return { cluster, controller };
}
