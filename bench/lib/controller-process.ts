// The real controller as a child process, on free ports, run as it ships
// (the bundle in dist/, bench/lib/shipped-build.ts) or from the TypeScript
// sources (`node bin/resty-ingress.js`), logging pino JSON to a pipe that is parsed as it arrives: ready
// is the "first configuration is live" line; reloads are "NGINX reloaded".
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../controller/src/nginx/dataplane.ts';
import { freePorts, waitUntil } from './ports.ts';
import { terminate } from './terminate.ts';

export interface ControllerProcess {
  readonly pid: number;
  readonly httpPort: number;
  /** Base URL of NGINX's loopback status/configuration server. */
  readonly statusUrl: string;
  /** ms from spawn to "first configuration is live". */
  readonly readyMs: number;
  /** "NGINX reloaded" lines logged so far. */
  reloads(): number;
  /** Every parsed log line (pino objects). */
  logs(): readonly Record<string, unknown>[];
  stop(): Promise<void>;
}

export interface ControllerProcessOptions {
  readonly kubeconfigPath: string;
  readonly workDir: string;
  readonly workerProcesses?: number;
  readonly readyTimeoutMs?: number;
  readonly extraArgs?: readonly string[];
  /** The launcher to run: the bundle's (shippedLauncher()) or, by default, the sources' bin/resty-ingress.js. */
  readonly launcher?: string;
}

/** Spawns the controller and resolves once its first configuration is live. */
export async function startControllerProcess(opts: ControllerProcessOptions): Promise<ControllerProcess> {
  // Distinct: the kernel can hand out a port just released twice in a row (the controller then refuses to start).
  // A free HTTPS port too: the default (443) may be taken on a shared machine, and NGINX would not start.
  const [httpPort, statusPort, healthzPort, httpsPort] = await freePorts(4) as [number, number, number, number];
  const prefix = join(opts.workDir, 'controller-nginx');
  mkdirSync(prefix, { recursive: true });
  const args = [
    opts.launcher ?? join(repoRoot(), 'bin/resty-ingress.js'), '--kubeconfig', opts.kubeconfigPath,
    '--http-port', String(httpPort), '--status-port', String(statusPort), '--healthz-port', String(healthzPort),
    '--bind-address', '127.0.0.1', '--nginx-prefix', prefix, '--worker-processes', String(opts.workerProcesses ?? 2),
    ...(opts.extraArgs?.includes('--https-port') === true ? [] : ['--https-port', String(httpsPort)]),
    ...(opts.extraArgs ?? []),
  ];
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  let partial = '';
  let stderr = '';
  let readyAt: number | null = null;
  child.stdout.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const parts = text.split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        lines.push(entry);
        if (readyAt === null && entry.msg === 'first configuration is live') readyAt = performance.now();
      } catch {
        lines.push({ msg: line });
      }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const stop = (): Promise<void> => terminate(child, 15_000);
  try {
    // An exit ends the wait at once (a throw in the probe would only be retried until the timeout).
    const outcome = await waitUntil('the controller\'s first configuration', async () => {
      if (readyAt !== null) return 'ready';
      return child.exitCode !== null || child.signalCode !== null ? 'exited' : undefined;
    }, opts.readyTimeoutMs ?? 60_000, 10);
    if (outcome === 'exited') throw new Error(`controller exited ${child.exitCode ?? child.signalCode}: ${stderr.slice(-1000)} ${JSON.stringify(lines.slice(-5))}`);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    pid: child.pid ?? 0,
    httpPort,
    statusUrl: `http://127.0.0.1:${statusPort}`,
    readyMs: (readyAt ?? started) - started,
    reloads: () => lines.filter((l) => l.msg === 'NGINX reloaded').length,
    logs: () => lines,
    stop,
  };
}

/** Resident and peak resident memory of a process in MB (/proc/<pid>/status VmRSS, VmHWM). */
export function memoryOf(pid: number, read: (path: string) => string): { rssMb: number; peakMb: number } {
  const status = read(`/proc/${pid}/status`);
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}
