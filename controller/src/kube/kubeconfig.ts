// Where the controller finds its API server credentials, in kubectl's order of
// precedence: --kubeconfig, then $KUBECONFIG, then the pod's service account
// when running in a cluster, then ~/.kube/config (client-node's default).

import { delimiter } from 'node:path';

import { KubeConfig } from '@kubernetes/client-node';

import { reuseConnections } from './connection-reuse.ts';

/** Raised when no usable kubeconfig can be loaded; the message says which source failed. */
export class KubeConfigError extends Error {
  readonly source: string;
  constructor(source: string, detail: string) {
    super(`cannot load kubeconfig from ${source}: ${detail}`);
    this.name = 'KubeConfigError';
    this.source = source;
  }
}

/** Options of loadKubeConfig. */
export interface LoadKubeConfigOptions {
  /** --kubeconfig: path to a kubeconfig file; wins over everything else. */
  readonly kubeconfig?: string;
  /** Environment to read KUBECONFIG / KUBERNETES_SERVICE_* from (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * --apiserver-host: replaces the server of the loaded config's current cluster, whichever source it
   * came from (client-go's override, as ingress-nginx uses it): credentials stay the source's.
   */
  readonly apiserverHost?: string;
  /** --certificate-authority: the CA file that server is checked against; read only with apiserverHost, as in ingress-nginx. */
  readonly certificateAuthority?: string;
}

/** Which source loadKubeConfig would use for these options. */
export type KubeConfigSource =
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'env'; readonly paths: readonly string[] }
  | { readonly kind: 'in-cluster' }
  | { readonly kind: 'default' };

/** Picks the source without touching the file system (kubectl's precedence). */
export function chooseKubeConfigSource(options: LoadKubeConfigOptions = {}): KubeConfigSource {
  const env = options.env ?? process.env;
  if (options.kubeconfig !== undefined && options.kubeconfig !== '') {
    return { kind: 'file', path: options.kubeconfig };
  }
  // KUBECONFIG may list several files, merged with the first one winning (as kubectl does).
  const paths = (env.KUBECONFIG ?? '').split(delimiter).filter((path) => path !== '');
  if (paths.length > 0) return { kind: 'env', paths };
  // The kubelet sets these in every pod; outside a pod they are absent.
  if (env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT) return { kind: 'in-cluster' };
  return { kind: 'default' };
}

function describe(source: KubeConfigSource): string {
  switch (source.kind) {
    case 'file':
      return `--kubeconfig ${source.path}`;
    case 'env':
      return `KUBECONFIG ${source.paths.join(delimiter)}`;
    case 'in-cluster':
      return 'the in-cluster service account';
    case 'default':
      return '~/.kube/config';
  }
}

/** Merges several files as kubectl does: the first file to define a name wins, and sets the context. */
function loadMerged(kc: KubeConfig, paths: readonly string[]): void {
  const [first, ...rest] = paths;
  kc.loadFromFile(first);
  for (const path of rest) {
    const extra = new KubeConfig();
    extra.loadFromFile(path);
    for (const cluster of extra.getClusters()) if (!kc.getCluster(cluster.name)) kc.addCluster(cluster);
    for (const user of extra.getUsers()) if (!kc.getUser(user.name)) kc.addUser(user);
    for (const ctx of extra.getContexts()) if (!kc.getContextObject(ctx.name)) kc.addContext(ctx);
    if (!kc.getCurrentContext()) kc.setCurrentContext(extra.getCurrentContext());
  }
}

/** The same config with its current cluster's server (and CA file) replaced. */
function withServer(kc: KubeConfig, server: string, caFile: string | undefined): KubeConfig {
  const current = kc.getCurrentCluster()?.name;
  const replaced = new KubeConfig();
  replaced.loadFromOptions({
    clusters: kc.getClusters().map((cluster) => (cluster.name !== current ? cluster
      : { ...cluster, server, ...(caFile === undefined ? {} : { caFile, caData: undefined }) })),
    users: kc.getUsers(),
    contexts: kc.getContexts(),
    currentContext: kc.getCurrentContext(),
  });
  return replaced;
}

/**
 * Loads the KubeConfig the controller talks to the API with. Throws
 * KubeConfigError when the chosen source is unreadable or names no cluster.
 */
export function loadKubeConfig(options: LoadKubeConfigOptions = {}): KubeConfig {
  const source = chooseKubeConfigSource(options);
  const kc = new KubeConfig();
  try {
    if (source.kind === 'file') kc.loadFromFile(source.path);
    else if (source.kind === 'env') loadMerged(kc, source.paths);
    else if (source.kind === 'in-cluster') kc.loadFromCluster();
    else kc.loadFromDefault();
  } catch (err) {
    throw new KubeConfigError(describe(source), err instanceof Error ? err.message : String(err));
  }
  if (kc.getCurrentCluster() === null) {
    throw new KubeConfigError(describe(source), `current context "${kc.getCurrentContext()}" names no cluster`);
  }
  const apiserverHost = options.apiserverHost ?? '';
  const loaded = apiserverHost === '' ? kc : withServer(kc, apiserverHost, options.certificateAuthority || undefined);
  const cluster = loaded.getCurrentCluster();
  try {
    new URL(cluster?.server ?? '');
  } catch {
    throw new KubeConfigError(describe(source), `cluster "${cluster?.name ?? ''}" has an invalid server URL`);
  }
  return reuseConnections(loaded);
}
