// startController: the real controller process (`node bin/resty-ingress.js`)
// with its real NGINX, on free loopback ports and a temp NGINX prefix,
// against a harness cluster. Resolves once the controller logs that its
// first configuration is live; stop() checks that no NGINX process remains.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCluster, type Cluster, type ClusterOptions } from './cluster.ts';
import { ingressClassManifest } from './manifests.ts';
import { collectLogs, type LogCollector, type LogEntry, type LogMatcher } from './log-collector.ts';
import { mastersOf, nginxProcessesOf, signalAll } from './processes.ts';
import { freePorts, probeHttps, probeMetrics } from './network.ts';
import { runCleanups } from './wait.ts';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
// RESTY_E2E_LAUNCHER=dist/bin/resty-ingress.js runs the e2e tests against the controller as it
// ships (`npm run build`'s bundle) instead of the TypeScript sources.
const LAUNCHER = resolve(REPO_ROOT, process.env.RESTY_E2E_LAUNCHER ?? 'bin/resty-ingress.js');
export const READY_MESSAGE = 'first configuration is live';
export const RELOADED_MESSAGE = 'NGINX reloaded';

export interface ControllerHarnessOptions {
  /** Extra flags, after the harness's own (a repeated flag overrides the harness's value). */
  readonly args?: readonly string[];
  /** Kubeconfig the controller uses (default: the cluster's admin one; see cluster.kubeconfigFor). */
  readonly kubeconfig?: string;
  /** How long to wait for the first configuration (default 30 s). */
  readonly readyTimeoutMs?: number;
  /** Ports to use instead of free ones picked by the kernel (the playground prefers a friendly HTTP port). */
  readonly ports?: Partial<ControllerPorts>;
  /** Called with every log line as it arrives (the playground forwards them). */
  readonly onLog?: (entry: LogEntry) => void;
  /** Extra environment for the controller process (e.g. RESTY_DATAPLANE_ROOT for a fault test's own runtime copy). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface ControllerPorts {
  readonly http: number;
  readonly https: number;
  readonly status: number;
  readonly healthz: number;
}

export interface ControllerHandle {
  /** NGINX's HTTP listener, e.g. http://127.0.0.1:40123 */
  readonly http: string;
  /** NGINX's HTTPS listener when it accepts TLS connections at start, else undefined. */
  readonly https: string | undefined;
  readonly ports: ControllerPorts;
  /** NGINX's loopback status server (Lua configuration API), e.g. http://127.0.0.1:40124 */
  readonly statusUrl: string;
  /** The controller's /healthz (served once issue "operating it" lands). */
  readonly healthzUrl: string;
  /** The controller's /metrics when it answers 200 at start, else undefined. */
  readonly metricsUrl: string | undefined;
  /** The NGINX prefix folder (nginx.conf, logs). */
  readonly prefix: string;
  readonly process: ChildProcess;
  /** "NGINX reloaded" lines so far (the first configuration is a start, not a reload). */
  reloadCount(): number;
  logs(): readonly LogEntry[];
  /** Waits for a log line at or after index `from` (default 0) that matches. */
  waitForLog(match: LogMatcher, opts?: { timeoutMs?: number; from?: number }): Promise<LogEntry>;
  /**
   * Waits for a reload logged at or after index `from` (take `logs().length` before the change).
   * A host's first 200 after a reload can come from a new worker while old ones still accept
   * and answer 404 for it; the controller logs the reload only once those are gone.
   */
  waitForReload(from: number, timeoutMs?: number): Promise<LogEntry>;
  /** Pid of the running NGINX master, or null. */
  nginxMasterPid(): number | null;
  /** SIGTERM, wait for exit; rejects if the process or any NGINX process outlives it (after killing them). */
  stop(): Promise<void>;
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** True when `promise` settled within `timeoutMs`; the timer never outlives the wait (it would hold the test process open). */
async function waitOrTimeout(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
  try {
    return await Promise.race([promise.then(() => true, () => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

const waitForExit = (child: ChildProcess, timeoutMs: number): Promise<boolean> => waitOrTimeout(exitOf(child), timeoutMs);

export async function startController(cluster: Cluster, options: ControllerHarnessOptions = {}): Promise<ControllerHandle> {
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    const dir = await mkdtemp(join(tmpdir(), 'resty-e2e-ctl-'));
    // mkdtemp makes it 0700; run as root, NGINX's workers (nobody) must enter the prefix inside
    // for request bodies beyond the buffer, proxy temp files and reopening logs.
    await chmod(dir, 0o755);
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const prefix = join(dir, 'nginx');
    const picked = await freePorts(4);
    const { http, https, status, healthz } = { http: picked[0], https: picked[1], status: picked[2], healthz: picked[3], ...options.ports };
    const argv = [
      LAUNCHER,
      '--kubeconfig', options.kubeconfig ?? cluster.kubeconfig,
      '--http-port', String(http), '--https-port', String(https),
      '--status-port', String(status), '--healthz-port', String(healthz),
      '--bind-address', '127.0.0.1', '--nginx-prefix', prefix,
      // Two workers, fixed: endpoint updates must reach every worker, on any machine.
      '--worker-processes', '2',
      ...(options.args ?? []),
    ];
    // process.execPath is Node 24 under npm (and ./node_modules/.bin/node), which runs the .ts sources.
    const env = options.env === undefined ? process.env : { ...process.env, ...options.env };
    const child = spawn(process.execPath, argv, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const logs: LogCollector = collectLogs([child.stdout, child.stderr], options.onLog);
    const masters = new Set<number>();
    const nginxProcesses = (): ReturnType<typeof nginxProcessesOf> => {
      const found = child.pid === undefined ? [] : nginxProcessesOf(child.pid, masters);
      for (const proc of mastersOf(found)) masters.add(proc.pid);
      return found;
    };
    let stopped = false;
    const stop = async (): Promise<void> => {
      if (stopped) return;
      stopped = true;
      nginxProcesses(); // remember the current master's group before it goes
      child.kill('SIGTERM');
      const exited = await waitForExit(child, 15_000);
      if (!exited) child.kill('SIGKILL');
      await exitOf(child);
      const left = nginxProcesses();
      signalAll(left.map((proc) => proc.pid), 'SIGKILL');
      // The pipes close with the process; bounded anyway, a stop must never hang a test file.
      await waitOrTimeout(logs.ended, 5_000);
      await runCleanups(cleanups);
      if (!exited) throw new Error(`controller did not exit within 15 s of SIGTERM; last lines:\n${logs.tail()}`);
      if (left.length > 0) throw new Error(`NGINX processes outlived the controller: ${left.map((p) => `${p.pid} ${p.cmdline}`).join('; ')}`);
    };
    // Cleanups run last-first: the controller, then any NGINX it left, then the folder.
    cleanups.push(async () => { signalAll(nginxProcesses().map((p) => p.pid), 'SIGKILL'); });
    cleanups.push(async () => { if (!stopped) { child.kill('SIGKILL'); await exitOf(child); } });

    const ready = logs.waitFor((e) => e.msg === READY_MESSAGE, options.readyTimeoutMs ?? 30_000);
    const died = exitOf(child).then(() => { throw new Error(`controller exited (${child.exitCode ?? child.signalCode}) before ready:\n${logs.tail()}`); });
    await Promise.race([ready, died]);
    void died.catch(() => undefined); // exits after stop() are expected
    nginxProcesses();

    const handle: ControllerHandle = {
      http: `http://127.0.0.1:${http}`,
      https: (await probeHttps('127.0.0.1', https)) ? `https://127.0.0.1:${https}` : undefined,
      ports: { http, https, status, healthz },
      statusUrl: `http://127.0.0.1:${status}`,
      healthzUrl: `http://127.0.0.1:${healthz}/healthz`,
      metricsUrl: (await probeMetrics(`http://127.0.0.1:${healthz}/metrics`)) ? `http://127.0.0.1:${healthz}/metrics` : undefined,
      prefix,
      process: child,
      reloadCount: () => logs.entries().filter((e) => e.msg === RELOADED_MESSAGE).length,
      logs: () => logs.entries(),
      waitForLog: (match, opts = {}) => logs.waitFor(match, opts.timeoutMs ?? 10_000, opts.from),
      waitForReload: (from, timeoutMs = 10_000) => logs.waitFor((e) => e.msg === RELOADED_MESSAGE, timeoutMs, from),
      nginxMasterPid: () => mastersOf(nginxProcesses()).find((p) => p.ppid === child.pid)?.pid ?? null,
      stop,
    };
    return handle;
  } catch (err) {
    await runCleanups(cleanups).catch(() => undefined);
    throw err;
  }
}

// startStack: the usual e2e start in one call — a cluster, our IngressClass,
// and the controller — with both stopped by the test's `after` hook, so a
// scenario file begins with what it is about.

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
