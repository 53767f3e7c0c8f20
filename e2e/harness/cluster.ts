// startCluster: the local Kubernetes API server and the simulator in this
// process, a kubeconfig file in a temp folder, and real kubectl against it.
// What a test sees is what a user sees: `kubectl apply -f` and echo pods
// on their own loopback addresses.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer, type ServiceResolver } from '../cluster/apiserver/index.ts';
import { startEchoHost } from '../cluster/echo/echo-host.ts';
import { startSimulator, type PodInfo, type Simulator } from '../cluster/simulator/index.ts';
import { randomLoopbackPool } from './network.ts';
import { runCleanups } from './wait.ts';

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Thrown by the checked variants when kubectl exits non-zero. */
export class KubectlError extends Error {
  override readonly name = 'KubectlError';
  readonly result: KubectlResult;
  constructor(args: readonly string[], result: KubectlResult) {
    super(`kubectl ${args.join(' ')} exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
    this.result = result;
  }
}

export const KUBECTL_PATH = process.env.KUBECTL ?? '/usr/bin/kubectl';

/** Runs kubectl with KUBECONFIG=`kubeconfig`; `stdin` is piped in (for `apply -f -`). Never rejects on a non-zero exit. */
export function runKubectl(kubeconfig: string, args: readonly string[], stdin?: string, timeoutMs = 30_000): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(KUBECTL_PATH, args, {
      env: { ...process.env, KUBECONFIG: kubeconfig },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      resolve({ code: code ?? 128, stdout, stderr: signal ? `${stderr}killed by ${signal} (timeout ${timeoutMs} ms)` : stderr });
    });
    // kubectl may exit before reading all of stdin (bad flags): ignore EPIPE.
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin ?? '');
  });
}

export interface ClusterOptions {
  /** Authorize requests from the stored RBAC objects (the admin kubeconfig bypasses). */
  readonly rbac?: boolean;
  /** Loopback CIDR for pod addresses; default a random 127.X.Y.0/24 (see randomLoopbackPool). */
  readonly addressPool?: string;
  /** Delay from a pod listening to it being ready (simulator default 150 ms). */
  readonly readyDelayMs?: number;
  /** Pods' echo servers in a child process (one for all), not in the test's: for load the test process also generates. */
  readonly podsInChildProcess?: boolean;
  /** Where the API server sends a webhook's calls to a Service (Service IPs do not route here): base URL or undefined. */
  readonly resolveService?: ServiceResolver;
}

/** The fields of a core/v1 Event the tests read. */
export interface EventInfo {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly count?: number;
  readonly involvedObject: { readonly kind?: string; readonly namespace?: string; readonly name?: string };
}

export interface Cluster {
  readonly api: ApiServer;
  readonly simulator: Simulator;
  /** Path of the admin kubeconfig file. */
  readonly kubeconfig: string;
  /** Temp folder holding the kubeconfigs; removed by stop(). */
  readonly dir: string;
  readonly addressPool: string;
  /** Real kubectl with KUBECONFIG=kubeconfig; resolves with the exit code, never rejects on failure. */
  kubectl(args: readonly string[], stdin?: string): Promise<KubectlResult>;
  /** Like kubectl, but throws KubectlError on a non-zero exit; resolves with stdout. */
  kubectlOk(args: readonly string[], stdin?: string): Promise<string>;
  /** `kubectl apply -f -` with `yaml` on stdin; throws KubectlError on failure. */
  apply(yaml: string): Promise<string>;
  /** Writes a kubeconfig with a bearer token for `user` (e.g. system:serviceaccount:ns:name); resolves with its path. */
  kubeconfigFor(user: string): Promise<string>;
  /** `kubectl get events -A -o json`, optionally with a field selector (e.g. `involvedObject.name=x,type=Warning`). */
  events(fieldSelector?: string): Promise<EventInfo[]>;
  /** Simulated pods of a Deployment (all namespaces' when `namespace` is omitted), in creation order. */
  pods(deployment?: string, namespace?: string): PodInfo[];
  stop(): Promise<void>;
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    const dir = await mkdtemp(join(tmpdir(), 'resty-e2e-cluster-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const api = await startApiServer({ rbac: options.rbac === true, resolveService: options.resolveService });
    cleanups.push(() => api.stop());
    const kubeconfig = await api.writeKubeconfig(join(dir, 'kubeconfig'));
    const kc = new KubeConfig();
    kc.loadFromString(api.kubeconfigFor());
    const addressPool = options.addressPool ?? randomLoopbackPool();
    const echoHost = options.podsInChildProcess === true ? await startEchoHost() : null;
    if (echoHost) cleanups.push(() => echoHost.stop());
    const simulator = await startSimulator({ kc, addressPool, readyDelayMs: options.readyDelayMs, startServer: echoHost?.startServer });
    cleanups.push(() => simulator.stop());

    const kubectl = (args: readonly string[], stdin?: string): Promise<KubectlResult> => runKubectl(kubeconfig, args, stdin);
    const kubectlOk = async (args: readonly string[], stdin?: string): Promise<string> => {
      const result = await kubectl(args, stdin);
      if (result.code !== 0) throw new KubectlError(args, result);
      return result.stdout;
    };
    let stopped = false;
    return {
      api,
      simulator,
      kubeconfig,
      dir,
      addressPool,
      kubectl,
      kubectlOk,
      apply: (yaml) => kubectlOk(['apply', '-f', '-'], yaml),
      kubeconfigFor: (user) => api.writeKubeconfig(join(dir, `kubeconfig-${user.replace(/[^\w.-]/g, '_')}`), user),
      events: async (fieldSelector) => {
        const args = ['get', 'events', '-A', '-o', 'json', ...(fieldSelector ? ['--field-selector', fieldSelector] : [])];
        return (JSON.parse(await kubectlOk(args)) as { items: EventInfo[] }).items;
      },
      pods: (deployment, namespace) => simulator.pods(namespace, deployment),
      async stop(): Promise<void> {
        if (stopped) return;
        stopped = true;
        await runCleanups(cleanups);
      },
    };
  } catch (err) {
    await runCleanups(cleanups).catch(() => undefined);
    throw err;
  }
}
