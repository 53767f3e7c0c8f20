// The kubelet part: runs each simulated pod as an echo server on its own
// loopback address, makes it ready after a delay, and on termination keeps it
// serving (not ready) for its grace period before closing it. Knows nothing
// of the API: it tells the reconciler through onChange that something moved.
import { randomUUID } from 'node:crypto';
import { startEcho, type EchoOptions } from '../echo/echo-server.ts';
import type { AddressPool } from './address-pool.ts';

export interface ContainerPort {
  readonly name?: string;
  readonly containerPort: number;
  readonly protocol?: string;
}

/** Everything a new pod takes from its Deployment. */
export interface PodTemplate {
  readonly namespace: string;
  readonly deployment: string;
  readonly templateHash: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly containerPorts: readonly ContainerPort[];
  readonly readyDelayMs: number;
  readonly graceMs: number;
}

/** `unready`: running, but its readiness probe fails (setReady): out of its Service's endpoints. */
export type PodState = 'starting' | 'ready' | 'unready' | 'terminating';

export interface SimPod extends PodTemplate {
  readonly name: string;
  readonly uid: string;
  readonly ip: string;
  /** The port its echo server listens on: the first container port. */
  readonly port: number;
  /** Creation order across the simulator: larger is newer. */
  readonly sequence: number;
  readonly createdAt: string;
  state: PodState;
  /** It was ready before it began terminating, so it keeps serving during its grace period. */
  serving: boolean;
}

export interface PodRuntime {
  /** Starts a pod; null when the address pool is empty. */
  start(template: PodTemplate): SimPod | null;
  /** Begins graceful termination (no-op if already terminating). */
  terminate(pod: SimPod): void;
  /** Its readiness probe passes (true) or fails (false) from now on: only a ready or unready pod changes; true when it did. */
  setReady(pod: SimPod, ready: boolean): boolean;
  pods(): readonly SimPod[];
  /** Closes every pod's server at once and frees everything. */
  stopAll(): Promise<void>;
}

/** Starts a pod's server; rejects when it cannot listen (e.g. EADDRINUSE). startEcho or an echo host's startServer. */
export type StartPodServer = (options: EchoOptions) => Promise<{ close(): Promise<void> }>;

export interface PodRuntimeOptions {
  readonly pool: AddressPool;
  readonly onChange: () => void;
  readonly log: (message: string) => void;
  /** Where pod servers run (default startEcho: in this process). */
  readonly startServer?: StartPodServer;
}

/** Port a container listens on when its spec declares none. */
const DEFAULT_PORT = 8080;
/** How long a closing pod lets in-flight requests finish after its grace period. */
const DRAIN_TIMEOUT_MS = 2_000;
/** Kubernetes' alphabet for generated name suffixes (no vowels, no look-alikes). */
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function randomSuffix(): string {
  let out = '';
  for (let index = 0; index < 5; index++) out += NAME_ALPHABET[Math.floor(Math.random() * NAME_ALPHABET.length)];
  return out;
}

export function createPodRuntime(options: PodRuntimeOptions): PodRuntime {
  const live = new Map<string, SimPod>();
  const startServer = options.startServer ?? startEcho;
  const servers = new Map<string, Awaited<ReturnType<StartPodServer>>>();
  const timers = new Map<string, NodeJS.Timeout>();
  const booting = new Set<Promise<void>>();
  let sequence = 0;
  let stopping = false;

  const schedule = (pod: SimPod, ms: number, action: () => void): void => {
    clearTimeout(timers.get(pod.uid));
    timers.set(pod.uid, setTimeout(() => {
      timers.delete(pod.uid);
      action();
    }, ms));
  };

  async function finish(pod: SimPod): Promise<void> {
    const server = servers.get(pod.uid);
    servers.delete(pod.uid);
    await server?.close();
    live.delete(pod.uid);
    options.pool.release(pod.ip);
    if (!stopping) options.onChange();
  }

  async function boot(pod: SimPod): Promise<void> {
    try {
      const server = await startServer({ host: pod.ip, port: pod.port, podName: pod.name, drainTimeoutMs: DRAIN_TIMEOUT_MS });
      if (stopping || !live.has(pod.uid)) {
        await server.close(); // terminated (or the simulator stopped) while it was starting
        return;
      }
      servers.set(pod.uid, server);
      if (pod.state === 'terminating') return;
      schedule(pod, pod.readyDelayMs, () => {
        if (pod.state !== 'starting') return;
        pod.state = 'ready';
        pod.serving = true;
        options.onChange();
      });
    } catch (err) {
      // The address is taken by something else: keep it out of the pool, drop the pod, let the reconciler replace it.
      options.log(`pod ${pod.namespace}/${pod.name} failed to start on ${pod.ip}:${pod.port}: ${(err as Error).message}`);
      live.delete(pod.uid);
      if (!stopping) setTimeout(options.onChange, 500);
    }
  }

  return {
    start(template: PodTemplate): SimPod | null {
      const ip = options.pool.allocate();
      if (ip === null) {
        options.log(`no free address for a pod of ${template.namespace}/${template.deployment}`);
        return null;
      }
      const pod: SimPod = {
        ...template,
        name: `${template.deployment}-${template.templateHash}-${randomSuffix()}`,
        uid: randomUUID(),
        ip,
        port: template.containerPorts[0]?.containerPort ?? DEFAULT_PORT,
        sequence: sequence++,
        createdAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        state: 'starting',
        serving: false,
      };
      live.set(pod.uid, pod);
      const started = boot(pod).finally(() => booting.delete(started));
      booting.add(started);
      return pod;
    },
    terminate(pod: SimPod): void {
      if (pod.state === 'terminating' || !live.has(pod.uid)) return;
      pod.state = 'terminating';
      schedule(pod, pod.graceMs, () => void finish(pod));
    },
    setReady(pod: SimPod, ready: boolean): boolean {
      const next = ready ? 'ready' : 'unready';
      if (!live.has(pod.uid) || (pod.state !== 'ready' && pod.state !== 'unready') || pod.state === next) return false;
      pod.state = next;
      pod.serving = ready;
      options.onChange();
      return true;
    },
    pods: () => [...live.values()],
    async stopAll(): Promise<void> {
      stopping = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      const closing = [...servers.values()].map((server) => server.close());
      servers.clear();
      for (const pod of live.values()) options.pool.release(pod.ip);
      live.clear();
      await Promise.all([...closing, ...booting]);
    },
  };
}
