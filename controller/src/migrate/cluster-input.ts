// The objects of a live cluster, read once through client-node as kubectl
// would: the kubeconfig (--kubeconfig, else KUBECONFIG, else ~/.kube/config)
// and --context; Ingresses and Services of one namespace (-n, else the
// context's, else `default`) or of all (-A); IngressClasses (cluster-wide);
// and the ingress-nginx ConfigMap: the one --configmap names, else one named
// like ingress-nginx's, found by listing ConfigMaps in every namespace (it
// lives in the controller's namespace, not the apps'; without the right to
// list them the report goes on without it, and says so). Secrets and
// EndpointSlices are never read. Any other failure to read is an error
// (exit 2), not an empty report.

import { CoreV1Api, type KubeConfig, type KubernetesObject, type V1ConfigMap } from '@kubernetes/client-node';
import { CommandLineExit } from '../cli/command-line-exit.ts';
import { apiStatusOf } from '../kube/cluster-writer.ts';
import { KINDS, type KindName } from '../kube/kinds.ts';
import { KubeConfigError, loadKubeConfig } from '../kube/kubeconfig.ts';
import { listAllPages } from '../kube/paged-list.ts';
import type { Snapshot } from '../model/types.ts';
import { chooseConfigMap, looksLikeIngressNginx } from './config-map-choice.ts';

export interface ClusterRequest {
  readonly kubeconfig: string | null;
  readonly context: string | null;
  readonly namespace: string | null;
  readonly allNamespaces: boolean;
  readonly configMap: string | null;
}

export interface ClusterInput {
  readonly snapshot: Snapshot;
  readonly context: string;
  /** The namespace read, or null for all. */
  readonly namespace: string | null;
  readonly configMapKey: string | null;
  readonly notes: readonly string[];
}

/** A read that failed, as one line: the HTTP status and the API's message when there is one. */
function describeApiError(what: string, err: unknown): string {
  const status = apiStatusOf(err);
  const body = (err as { body?: unknown } | null)?.body;
  let message = err instanceof Error ? err.message.split('\n')[0] ?? String(err) : String(err);
  if (typeof body === 'string') {
    try {
      const parsed = JSON.parse(body) as { message?: unknown };
      if (typeof parsed.message === 'string') message = parsed.message;
    } catch {
      // Not a Status object: keep the exception's first line.
    }
  }
  return `cannot ${what}: ${status === null ? '' : `HTTP ${status}: `}${message}`;
}

async function list(kc: KubeConfig, kind: KindName, namespace: string | null): Promise<KubernetesObject[]> {
  const descriptor = KINDS.find((item) => item.kind === kind);
  if (descriptor === undefined) throw new Error(`no kind ${kind}`);
  try {
    return (await listAllPages((page) => descriptor.list(kc, { namespace: descriptor.namespaced ? namespace : null }, page))).items;
  } catch (err) {
    throw CommandLineExit.usage(describeApiError(`list ${descriptor.plural}${namespace === null || !descriptor.namespaced ? '' : ` in namespace ${namespace}`}`, err));
  }
}

/** The ConfigMaps to choose from, and a note when they could not be looked for. */
async function readConfigMaps(kc: KubeConfig, explicit: string | null): Promise<{ configMaps: V1ConfigMap[]; note: string | null }> {
  const api = kc.makeApiClient(CoreV1Api);
  if (explicit !== null) {
    const [namespace = '', name = ''] = explicit.split('/');
    try {
      return { configMaps: [await api.readNamespacedConfigMap({ name, namespace })], note: null };
    } catch (err) {
      if (apiStatusOf(err) === 404) return { configMaps: [], note: null };
      throw CommandLineExit.usage(describeApiError(`read ConfigMap ${explicit}`, err));
    }
  }
  try {
    const all = (await listAllPages((page) => api.listConfigMapForAllNamespaces(page.continueToken === undefined ? { limit: page.limit } : { limit: page.limit, _continue: page.continueToken }))).items as V1ConfigMap[];
    return { configMaps: all.filter((item) => looksLikeIngressNginx(item.metadata?.name ?? '')), note: null };
  } catch (err) {
    // Someone allowed only their own namespace can still get a report, without the ConfigMap.
    if (apiStatusOf(err) !== 403) throw CommandLineExit.usage(describeApiError('list configmaps', err));
    return { configMaps: [], note: 'ConfigMaps could not be listed across namespaces (forbidden): --configmap namespace/name reads one by name' };
  }
}

function loadConfig(request: ClusterRequest): KubeConfig {
  try {
    const kc = loadKubeConfig(request.kubeconfig === null ? {} : { kubeconfig: request.kubeconfig });
    if (request.context !== null) {
      if (kc.getContextObject(request.context) === null) throw CommandLineExit.usage(`--context ${request.context}: no such context in the kubeconfig`);
      kc.setCurrentContext(request.context);
    }
    return kc;
  } catch (err) {
    if (err instanceof KubeConfigError) throw CommandLineExit.usage(err.message);
    throw err;
  }
}

/** Reads what a report needs from the cluster. Throws CommandLineExit (exit 2) when something cannot be read. */
export async function readCluster(request: ClusterRequest): Promise<ClusterInput> {
  const kc = loadConfig(request);
  const context = kc.getCurrentContext();
  const namespace = request.allNamespaces ? null : request.namespace ?? kc.getContextObject(context)?.namespace ?? 'default';
  const reads = [list(kc, 'Ingress', namespace), list(kc, 'IngressClass', null), list(kc, 'Service', namespace), readConfigMaps(kc, request.configMap)] as const;
  // All in parallel, but the error named is the first in this order, not the first to arrive.
  const settled = await Promise.allSettled(reads);
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  const [ingresses, ingressClasses, services, found] = await Promise.all(reads);
  const { configMaps, note } = found;
  const choice = note === null ? chooseConfigMap(configMaps, request.configMap) : { key: null, notes: [note] };
  return {
    snapshot: { ingresses, ingressClasses, services, endpointSlices: [], secrets: [], configMaps } as Snapshot,
    context, namespace, configMapKey: choice.key, notes: choice.notes,
  };
}
