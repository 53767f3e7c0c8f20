// The in-process local API server (e2e/cluster/apiserver) loaded with a
// synthetic cluster, plus its kubeconfig on disk for the controller process.
// Writes go straight to the in-process store: the timestamp taken just before
// a write is the start of every propagation measurement.
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '../../e2e/cluster/apiserver/index.ts';
import { asJson, BENCH_NAMESPACE, type SyntheticCluster } from './synthetic-cluster.ts';

export interface LocalCluster {
  readonly api: ApiServer;
  readonly kubeconfigPath: string;
  /** Creates every object of `cluster` (the IngressClass only if missing). */
  load(cluster: SyntheticCluster): void;
  stop(): Promise<void>;
}

export async function startLocalCluster(workDir: string): Promise<LocalCluster> {
  // A large window: bursts of writes must never force the controller to relist.
  const api = await startApiServer({ eventWindow: 200_000 });
  api.store.create('namespaces', { metadata: { name: BENCH_NAMESPACE } });
  const kubeconfigPath = await api.writeKubeconfig(join(workDir, 'kubeconfig'));
  let classCreated = false;
  return {
    api,
    kubeconfigPath,
    load(cluster: SyntheticCluster): void {
      if (!classCreated) api.store.create('ingressclasses.networking.k8s.io', asJson(cluster.ingressClass));
      classCreated = true;
      for (const service of cluster.services) api.store.create('services', asJson(service));
      for (const slice of cluster.endpointSlices) api.store.create('endpointslices.discovery.k8s.io', asJson(slice));
      for (const ingress of cluster.ingresses) api.store.create('ingresses.networking.k8s.io', asJson(ingress));
    },
    stop: () => api.stop(),
  };
}
