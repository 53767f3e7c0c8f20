// One NGINX master process, run in the foreground (`daemon off` in the conf)
// as a child of the controller. It is spawned detached, i.e. as the leader of
// its own process group: workers inherit the group, so killing the group
// reaches workers a SIGKILLed master left behind (NGINX workers do not die
// with their master, and they keep the listening sockets open).
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Dataplane } from './dataplane.ts';
import { forwardNginxLog, type NginxLogLine } from './nginx-log.ts';
import { waitForGroupGone } from './nginx-processes.ts';

/** How the master ended: exit code, or the signal that killed it, or a spawn error. */
export interface MasterExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly error?: Error;
}

export interface MasterProcess {
  readonly pid: number;
  /** Resolves once, when the master has exited (never rejects). */
  readonly exited: Promise<MasterExit>;
  /** True until `exited` resolved. */
  running(): boolean;
  signal(signal: NodeJS.Signals): void;
  /** Kills the whole process group with SIGKILL (master and any worker); synchronous, for exit paths. */
  killGroup(): void;
  /** Graceful stop: SIGQUIT, then SIGTERM, then SIGKILL of the group, each after its grace period. */
  stop(graceMs: number): Promise<void>;
}

export interface SpawnMasterOptions {
  readonly dataplane: Dataplane;
  readonly prefix: string;
  readonly confPath: string;
  readonly logger: Logger;
  /** Every line NGINX writes to stderr/stdout, after it was logged. */
  readonly onLine?: (line: NginxLogLine) => void;
}

/** Spawns `[...dataplane.command, '-p', prefix, '-c', confPath]` in a new process group. */
export function spawnMaster(options: SpawnMasterOptions): MasterProcess {
  const { dataplane, prefix, confPath, logger } = options;
  const argv = [...dataplane.command, '-p', prefix, '-c', confPath];
  const child = spawn(argv[0], argv.slice(1), { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let alive = child.pid !== undefined;
  const pid = child.pid ?? -1;

  const exited = new Promise<MasterExit>((resolve) => {
    child.once('error', (error) => {
      alive = false;
      resolve({ code: null, signal: null, error });
    });
    child.once('exit', (code, signal) => {
      alive = false;
      resolve({ code, signal });
    });
  });
  const forward = (stream: Readable): void => {
    forwardNginxLog(stream, logger, options.onLine).catch((err: unknown) => {
      logger.warn({ err }, 'reading NGINX output failed');
    });
  };
  forward(child.stderr);
  forward(child.stdout);

  const sendToGroup = (signal: NodeJS.Signals): void => {
    if (pid <= 0) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // the group is already gone
    }
  };
  const waitExit = async (ms: number): Promise<boolean> => {
    if (!alive) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const done = await Promise.race([exited.then(() => true as const), timedOut]);
    clearTimeout(timer);
    return done;
  };

  return {
    pid,
    exited,
    running: () => alive,
    signal: (signal) => {
      if (alive) child.kill(signal);
    },
    killGroup: () => sendToGroup('SIGKILL'),
    stop: async (graceMs) => {
      if (alive) child.kill('SIGQUIT');
      if (!(await waitExit(graceMs))) {
        logger.warn({ pid, graceMs }, 'NGINX did not quit gracefully in time; terminating');
        child.kill('SIGTERM');
        if (!(await waitExit(2_000))) sendToGroup('SIGKILL');
        await waitExit(2_000);
      }
      // Workers the master did not reap (it was killed) must not outlive it.
      if (!(await waitForGroupGone(pid, 200))) {
        sendToGroup('SIGKILL');
        await waitForGroupGone(pid, 2_000);
      }
    },
  };
}
