// startSimulator: plays kubelet, the Deployment controller and the
// EndpointSlice controller against any Kubernetes API over HTTP. Pods are echo
// servers on their own loopback addresses. Level-based: every watch event
// kicks one reconcile pass that re-reads the caches and converges.
import { KubeConfig } from '@kubernetes/client-node';
import { createAddressPool } from './address-pool.ts';
import { deploymentStatus, statusFingerprint, type DeploymentStatus } from './deployment-status.ts';
import { maxUnavailableOf, reconcileDeploymentPods, templateHash, type DeploymentObject, type PodTiming } from './deployments.ts';
import { desiredEndpointSlices, MANAGED_BY, MANAGED_BY_LABEL, sliceFingerprint, type EndpointSliceObject, type ServiceObject } from './endpoint-slices.ts';
import { createKubeRest, KubeApiError, type KubeRest } from './kube-rest.ts';
import { createPodRuntime, type PodRuntime, type SimPod, type StartPodServer } from './pod-runtime.ts';
import { startWatchCache, type KubeObject, type WatchCache } from './watch-cache.ts';
import { createWriteMemo, type WriteMemo } from './write-memo.ts';

export interface SimulatorLogger {
  info(message: string): void;
  warn(message: string): void;
}

export interface SimulatorOptions {
  /** Path of a kubeconfig file; or pass `kc`. */
  readonly kubeconfig?: string;
  readonly kc?: KubeConfig;
  /** Loopback CIDR the pods' addresses come from (default 127.0.1.0/24; give parallel simulators disjoint ranges). */
  readonly addressPool?: string;
  readonly logger?: SimulatorLogger;
  /** Delay from a pod's server listening to the pod being ready (default 150 ms). */
  readonly readyDelayMs?: number;
  /** Cap on terminationGracePeriodSeconds, in ms (default 2000). */
  readonly maxGraceMs?: number;
  /** Deployments to leave alone (e.g. the controller's own, run elsewhere). */
  readonly skipDeployment?: (deployment: DeploymentObject) => boolean;
  /** Starts a pod's server (default startEcho, in this process; an echo host's startServer runs them in another). */
  readonly startServer?: StartPodServer;
}

/** A simulated pod as tests see it. */
export interface PodInfo {
  readonly namespace: string;
  readonly name: string;
  readonly deployment: string;
  readonly templateHash: string;
  readonly ip: string;
  readonly port: number;
  readonly state: SimPod['state'];
}

export interface Simulator {
  pods(namespace?: string, deployment?: string): PodInfo[];
  /** The kubelet's readiness probe of pod `name` passes (true) or fails (false) from now on; false when the pod is not ready or unready. */
  setReady(namespace: string, name: string, ready: boolean): boolean;
  stop(): Promise<void>;
}

const SILENT: SimulatorLogger = { info: () => undefined, warn: () => undefined };

interface Caches {
  readonly deployments: WatchCache<DeploymentObject>;
  readonly services: WatchCache<ServiceObject & KubeObject>;
  readonly slices: WatchCache<EndpointSliceObject & KubeObject>;
}

const keyOf = (namespace: string, name: string): string => `${namespace}/${name}`;

async function writeStatuses(rest: KubeRest, caches: Caches, runtime: PodRuntime, memo: WriteMemo, skip: (d: DeploymentObject) => boolean): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  for (const deployment of caches.deployments.list()) {
    if (skip(deployment) || deployment.metadata.deletionTimestamp) continue;
    const namespace = deployment.metadata.namespace ?? 'default';
    const name = deployment.metadata.name;
    const previous = deployment.status as Partial<DeploymentStatus> | undefined;
    const status = deploymentStatus({
      name, generation: deployment.metadata.generation ?? 1, replicas: deployment.spec?.replicas ?? 1,
      maxUnavailable: maxUnavailableOf(deployment), templateHash: templateHash(deployment),
      pods: runtime.pods().filter((pod) => pod.namespace === namespace && pod.deployment === name), previous, now,
    });
    const key = `status:${keyOf(namespace, name)}`;
    const rv = deployment.metadata.resourceVersion;
    const seen = memo.effective(key, { resourceVersion: rv, fingerprint: statusFingerprint(previous) });
    if (seen?.fingerprint === statusFingerprint(status)) continue;
    const path = `/apis/apps/v1/namespaces/${namespace}/deployments/${name}/status`;
    const written = await rest.replace<DeploymentObject>(path, { ...deployment, status });
    memo.remember(key, rv, { resourceVersion: written.metadata.resourceVersion, fingerprint: statusFingerprint(status) });
  }
}

async function writeSlices(rest: KubeRest, caches: Caches, runtime: PodRuntime, memo: WriteMemo): Promise<void> {
  const desired = new Map<string, EndpointSliceObject>();
  for (const service of caches.services.list()) {
    for (const slice of desiredEndpointSlices(service, runtime.pods())) desired.set(keyOf(slice.metadata.namespace, slice.metadata.name), slice);
  }
  const actual = new Map(caches.slices.list().map((slice) => [keyOf(slice.metadata.namespace ?? '', slice.metadata.name), slice]));
  for (const key of new Set([...desired.keys(), ...actual.keys()])) {
    const want = desired.get(key);
    const have = actual.get(key);
    const haveRv = have?.metadata.resourceVersion;
    const seen = memo.effective(`slice:${key}`, have && { resourceVersion: haveRv, fingerprint: sliceFingerprint(have) });
    const [namespace, name] = key.split('/');
    const collection = `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`;
    if (!want) {
      if (seen === undefined) continue;
      await rest.remove(`${collection}/${name}`);
      memo.remember(`slice:${key}`, haveRv, null);
      continue;
    }
    const fingerprint = sliceFingerprint(want);
    if (seen?.fingerprint === fingerprint) continue;
    const written = seen === undefined
      ? await rest.create<EndpointSliceObject>(collection, want)
      : await rest.replace<EndpointSliceObject>(`${collection}/${name}`, { ...want, metadata: { ...want.metadata, resourceVersion: seen.resourceVersion } });
    memo.remember(`slice:${key}`, haveRv, { resourceVersion: written.metadata.resourceVersion, fingerprint });
  }
}

/**
 * client-node refuses to send a bearer token over http:// unless the cluster
 * says skipTLSVerify; on plain HTTP there is no TLS to skip, so a copy of the
 * config with that flag is what a loopback test API needs. https:// is untouched.
 */
export function allowPlainHttp(kc: KubeConfig): KubeConfig {
  const current = kc.getCurrentCluster();
  if (!current || !current.server.startsWith('http:') || current.skipTLSVerify) return kc;
  const copy = new KubeConfig();
  copy.loadFromOptions({
    clusters: kc.getClusters().map((cluster) => (cluster.name === current.name ? { ...cluster, skipTLSVerify: true } : cluster)),
    users: kc.getUsers(),
    contexts: kc.getContexts(),
    currentContext: kc.getCurrentContext(),
  });
  return copy;
}

export async function startSimulator(options: SimulatorOptions): Promise<Simulator> {
  const kc = options.kc ?? new KubeConfig();
  if (!options.kc) {
    if (!options.kubeconfig) throw new Error('startSimulator: give kubeconfig (a path) or kc');
    kc.loadFromFile(options.kubeconfig);
  }
  const log = options.logger ?? SILENT;
  const api = allowPlainHttp(kc);
  const rest = createKubeRest(api);
  const timing: PodTiming = { readyDelayMs: options.readyDelayMs ?? 150, maxGraceMs: options.maxGraceMs ?? 2_000 };
  const skip = options.skipDeployment ?? ((): boolean => false);
  const memo = createWriteMemo();
  const loop = { running: false, again: false, stopped: false, failures: 0, retry: null as NodeJS.Timeout | null };
  const badSpecs = new Set<string>();

  const kick = (): void => {
    if (loop.stopped) return;
    if (loop.running) { loop.again = true; return; }
    loop.running = true;
    setImmediate(() => void pass());
  };
  const runtime = createPodRuntime({ pool: createAddressPool(options.addressPool ?? '127.0.1.0/24'), onChange: kick, log: log.warn, startServer: options.startServer });
  const watchOptions = { kc: api, rest, onChange: kick, onError: (err: unknown) => log.warn(`watch: ${(err as Error).message}`) };
  const caches: Caches = {
    deployments: startWatchCache({ ...watchOptions, path: '/apis/apps/v1/deployments' }),
    services: startWatchCache({ ...watchOptions, path: '/api/v1/services' }),
    slices: startWatchCache({ ...watchOptions, path: '/apis/discovery.k8s.io/v1/endpointslices', labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY}` }),
  };

  function reconcilePods(): void {
    const wanted = new Set<string>();
    for (const deployment of caches.deployments.list()) {
      if (skip(deployment) || deployment.metadata.deletionTimestamp) continue;
      const namespace = deployment.metadata.namespace ?? 'default';
      const key = keyOf(namespace, deployment.metadata.name);
      wanted.add(key);
      const pods = runtime.pods().filter((pod) => keyOf(pod.namespace, pod.deployment) === key);
      try {
        reconcileDeploymentPods(deployment, pods, runtime, timing);
        badSpecs.delete(key);
      } catch (err) {
        // A bad spec is the user's error: report it once, keep the pods it has, go on with the rest.
        if (!badSpecs.has(key)) log.warn(`deployment ${key}: ${(err as Error).message}`);
        badSpecs.add(key);
      }
    }
    for (const pod of runtime.pods()) if (!wanted.has(keyOf(pod.namespace, pod.deployment))) runtime.terminate(pod);
  }

  async function pass(): Promise<void> {
    do {
      loop.again = false;
      try {
        if (caches.deployments.synced()) {
          reconcilePods();
          await writeStatuses(rest, caches, runtime, memo, skip);
        }
        if (caches.services.synced() && caches.slices.synced()) await writeSlices(rest, caches, runtime, memo);
        loop.failures = 0;
      } catch (err) {
        // A conflict means our cache is behind: the watch event on its way kicks us again. Other errors retry.
        if (!(err instanceof KubeApiError && err.status === 409)) {
          log.warn(`reconcile: ${(err as Error).message}`);
          loop.failures++;
          if (!loop.stopped) loop.retry = setTimeout(kick, Math.min(100 * 2 ** loop.failures, 3_000));
        }
      }
    } while (loop.again && !loop.stopped);
    loop.running = false;
  }

  log.info(`simulator watching ${api.getCurrentCluster()?.server ?? '?'}`);
  return {
    pods: (namespace, deployment) => runtime.pods()
      .filter((pod) => (namespace === undefined || pod.namespace === namespace) && (deployment === undefined || pod.deployment === deployment))
      .sort((a, b) => a.sequence - b.sequence)
      .map((pod) => ({ namespace: pod.namespace, name: pod.name, deployment: pod.deployment, templateHash: pod.templateHash, ip: pod.ip, port: pod.port, state: pod.state })),
    setReady(namespace, name, ready): boolean {
      const pod = runtime.pods().find((candidate) => candidate.namespace === namespace && candidate.name === name);
      return pod !== undefined && runtime.setReady(pod, ready);
    },
    async stop(): Promise<void> {
      loop.stopped = true;
      if (loop.retry) clearTimeout(loop.retry);
      for (const cache of Object.values(caches)) cache.stop();
      await runtime.stopAll();
      rest.close();
    },
  };
}
