// Runs NGINX for the controller: start, validated reloads confirmed by config
// version, restart after a crash, graceful stop. Operations run one at a
// time. Invariant: the live file (confPath) always holds the configuration
// NGINX last confirmed, so a restart after a crash comes up with the last
// good configuration, never with one that failed.
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { waitForConfigVersion } from './config-version.ts';
import { tailErrorLog } from './error-log-tail.ts';
import { createCandidateConf, type Validation } from './candidate-conf.ts';
import { removeStaleSockets, writeFileAtomic } from './nginx-conf-files.ts';
import { NginxConfigError, NginxNotRunningError, NginxReloadError, NginxStartError } from './nginx-errors.ts';
import type { NginxLogLine } from './nginx-log.ts';
import { watchMaster, type MasterWatch } from './master-watch.ts';
import { moduleFilesStamp } from './module-files.ts';
import { spawnMaster, type MasterProcess } from './master-process.ts';
import { waitForGroupGone, waitForWorkersReplaced, workerPidsOf } from './nginx-processes.ts';
import { createRestartPolicy } from './restart-policy.ts';
import { workerAccessProblem } from './worker-access.ts';
import {
  DEFAULT_TIMEOUTS,
  type ApplyOptions,
  type NginxManager,
  type NginxManagerOptions,
  type NginxStats,
  type NginxTimeouts,
} from './nginx-manager-types.ts';

export type { ApplyOptions, NginxManager, NginxManagerOptions, NginxStats, NginxTimeouts } from './nginx-manager-types.ts';

interface Running {
  readonly process: MasterProcess;
  /** Aborted when this master exits. */
  readonly gone: AbortSignal;
  confirmed: boolean;
}

/** Creates the manager; nothing runs until start(). */
export function createNginx(options: NginxManagerOptions): NginxManager {
  const { dataplane, logger, versionUrl } = options;
  const prefix = resolve(options.prefix);
  const confPath = resolve(options.confPath ?? join(prefix, 'nginx.conf'));
  const errorLogPath = resolve(options.errorLogPath ?? join(prefix, 'error.log'));
  const timeouts: NginxTimeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const lifetime = new AbortController();
  const counters = { reloads: 0, reloadFailures: 0, invalidConfigs: 0, validations: 0, restarts: 0, unvalidatedReloads: 0 };
  /** A reload without `nginx -t` failed: every apply() validates until one is confirmed. */
  let distrust = false;
  /**
   * The last parse NGINX took (an `nginx -t`, or a confirmed reload): a reload waits at least
   * three times that. A big configuration on a busy machine parses for longer than the fixed
   * timeout, and a reload given up on while the master still parses would roll the live file
   * back under a master that then runs the new one.
   */
  let lastParseMs = 0;
  /** The module files the running master loaded (module-files.ts): a reload skips `nginx -t` only while they are the same. */
  let launchedModules: string | null = null;
  let lastReload: NginxStats['lastReload'] = null;
  let live: { conf: string; version: string } | null = null;
  let master: Running | null = null;
  /** Process group of the last master that died, to be gone before the next one binds its ports. */
  let deadGroup: number | null = null;
  /** The master's error lines, watched while a start or reload waits for its version. */
  let watch: MasterWatch | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  const candidate = createCandidateConf({ dataplane, prefix, confPath, testMs: timeouts.testMs, lifetime: lifetime.signal, counters });
  /** The validation ahead queued or running; apply() of another text cancels it rather than wait for it. */
  let ahead: { conf: string; cancel: AbortController } | null = null;

  const serialize = <T>(op: () => Promise<T>): Promise<T> => {
    const run = queue.then(op);
    queue = run.catch(() => undefined);
    return run;
  };
  const killOnExit = (): void => master?.process.killGroup();
  // /config-version answers are trimmed, so a version must survive trimming to ever be confirmed.
  const checkVersion = (version: string): void => {
    if (!/^\S+$/.test(version)) throw new Error(`config version ${JSON.stringify(version)} must be non-empty, without whitespace`);
  };

  const onLine = (line: NginxLogLine): void => watch?.onLine(line);
  const endWatch = (): string[] => {
    const problems = watch?.problems() ?? [];
    watch?.close();
    watch = null;
    return problems;
  };

  const onMasterExit = (running: Running, code: number | null, signal: string | null): void => {
    if (master !== running) return;
    master = null;
    // Orphaned workers keep the old listening sockets and would block the new master.
    running.process.killGroup();
    deadGroup = running.process.pid;
    if (!running.confirmed || lifetime.signal.aborted) return; // start() reports it / we are stopping
    logger.error({ pid: running.process.pid, code, signal }, 'NGINX master exited unexpectedly');
    restarts.schedule();
  };

  /** Spawns a master on the live file (holding `conf`) and waits until it serves `version`. */
  const launch = async (version: string, conf: string): Promise<Running> => {
    await removeStaleSockets(prefix);
    launchedModules = moduleFilesStamp(conf);
    const child = spawnMaster({ dataplane, prefix, confPath, logger, onLine });
    const goneController = new AbortController();
    const running: Running = { process: child, gone: goneController.signal, confirmed: false };
    master = running;
    watch = watchMaster(child.pid);
    void child.exited.then((exit) => {
      goneController.abort();
      onMasterExit(running, exit.code, exit.signal);
    });
    const result = await waitForConfigVersion({
      url: versionUrl,
      version,
      timeoutMs: timeouts.startMs,
      signal: AbortSignal.any([lifetime.signal, running.gone]),
    });
    const problems = endWatch();
    if (result.confirmed) {
      running.confirmed = true;
      return running;
    }
    const exitedByItself = running.gone.aborted;
    child.killGroup();
    await waitForGroupGone(child.pid, 2_000);
    if (master === running) master = null;
    const exit = exitedByItself ? await child.exited : null;
    const why = exit
      ? `exited (${exit.error?.message ?? exit.signal ?? `code ${exit.code}`})`
      : lifetime.signal.aborted
        ? 'was stopped'
        : `did not serve version ${version} within ${timeouts.startMs} ms (last seen: ${result.lastSeen})`;
    const detail = problems.length > 0 ? `: ${problems.join('; ')}` : '';
    throw new NginxStartError(`NGINX ${why}${detail}`, problems.join('\n'));
  };

  const restarts = createRestartPolicy({
    backoff: options.restartBackoff,
    logger,
    restart: () =>
      serialize(async () => {
        if (lifetime.signal.aborted || master || !live) return false;
        if (deadGroup !== null && !(await waitForGroupGone(deadGroup, 2_000))) {
          logger.warn({ pgid: deadGroup }, 'processes of the dead NGINX master linger');
        }
        const running = await launch(live.version, live.conf);
        counters.restarts += 1;
        logger.info({ pid: running.process.pid, version: live.version }, 'NGINX restarted with the last good configuration');
        return true;
      }),
    // Outside the queue: the callback may itself push or apply.
    afterRestart: options.onRestart,
  });

  const reload = async (
    running: Running,
    previous: { conf: string; version: string },
    conf: string,
    version: string,
    validation: Validation & { readonly tested: boolean },
  ): Promise<void> => {
    await candidate.promote();
    const began = Date.now();
    const reloadMs = Math.max(timeouts.reloadMs, 3 * lastParseMs);
    const watching = watchMaster(running.process.pid);
    watch = watching;
    const refused = watching.refused;
    // The running master logs a refusal to its error_log file, not to the stderr we read.
    const tail = await tailErrorLog(errorLogPath, (line) => watching.onLine(line));
    const oldWorkers = workerPidsOf(running.process.pid);
    running.process.signal('SIGHUP');
    const result = await waitForConfigVersion({
      url: versionUrl,
      version,
      timeoutMs: reloadMs,
      signal: AbortSignal.any([lifetime.signal, running.gone, refused]),
    });
    await tail.stop();
    const problems = endWatch();
    // One new worker answered; old ones may still accept until the master told them to quit.
    if (result.confirmed && !(await waitForWorkersReplaced(running.process.pid, oldWorkers, reloadMs))) {
      logger.warn({ version, oldWorkers }, 'NGINX serves the new version but old workers still accept connections');
    }
    const durationMs = Date.now() - began;
    lastReload = { at: new Date(), ok: result.confirmed, durationMs };
    if (result.confirmed) {
      live = { conf, version };
      lastParseMs = durationMs;
      counters.reloads += 1;
      logger.info({ version, durationMs, validateMs: validation.ms, validatedAhead: validation.ahead, validated: validation.tested, polls: result.polls }, 'NGINX reloaded');
      return;
    }
    // Keep the invariant: the live file is what NGINX (still) runs.
    await writeFileAtomic(confPath, previous.conf);
    counters.reloadFailures += 1;
    const why = running.gone.aborted
      ? 'the master exited during the reload'
      : refused.aborted
        ? 'NGINX refused the configuration'
        : result.aborted
          ? 'stopped during the reload'
          : `version ${version} not served within ${reloadMs} ms (still ${result.lastSeen})`;
    const detail = problems.length > 0 ? `: ${problems.join('; ')}` : '';
    throw new NginxReloadError(`NGINX reload failed, ${why}${detail}`, problems.join('\n'));
  };

  return {
    start: (conf, version, options?: ApplyOptions) =>
      serialize(async () => {
        if (lifetime.signal.aborted) throw new NginxNotRunningError('NGINX manager was stopped');
        if (live) throw new Error('NGINX is already started; use apply() to change its configuration');
        checkVersion(version);
        await mkdir(prefix, { recursive: true });
        await mkdir(dirname(confPath), { recursive: true });
        const accessProblem = workerAccessProblem(prefix);
        if (accessProblem) logger.warn({ prefix }, accessProblem);
        const validate = options?.validate !== false;
        if (validate) lastParseMs = (await candidate.validate(conf)).ms;
        else await candidate.stage(conf);
        await candidate.promote();
        // Synchronous last resort: on exit no graceful stop can run, but no NGINX may outlive us.
        process.off('exit', killOnExit);
        process.on('exit', killOnExit);
        const launchedAt = Date.now();
        const running = await launch(version, conf).catch(async (err: unknown) => {
          if (validate || !(err instanceof NginxStartError) || lifetime.signal.aborted) throw err;
          // Whether the text is at fault, and where, is what `nginx -t` says: its refusal is the
          // error a validated start gave, so the Ingress at fault is found and left out.
          logger.warn({ version, err: err.message }, 'NGINX did not start without nginx -t; validating its configuration');
          await candidate.validate(conf).catch((refusal: unknown) => {
            throw refusal instanceof NginxConfigError ? refusal : err;
          });
          throw err;
        });
        // The master's first parse (init_by_lua included, which `nginx -t` may not run) is a parse too.
        lastParseMs = Math.max(lastParseMs, Date.now() - launchedAt);
        live = { conf, version };
        logger.info({ pid: running.process.pid, version }, 'NGINX started');
      }),
    apply: (conf, version, options?: ApplyOptions) => {
      if (ahead && ahead.conf !== conf) ahead.cancel.abort();
      return serialize(async () => {
        const running = master;
        const previous = live;
        if (lifetime.signal.aborted || !previous) throw new NginxNotRunningError('NGINX is not started');
        if (!running) throw new NginxNotRunningError('NGINX is restarting; apply again once it runs');
        checkVersion(version);
        if (version === previous.version) {
          throw new Error(`version ${JSON.stringify(version)} is already live: a changed configuration needs a new version`);
        }
        const modulesChanged = options?.validate === false && !distrust && moduleFilesStamp(conf) !== launchedModules;
        if (modulesChanged) logger.info({ version }, 'module files changed on disk since the master started; validating the reload with nginx -t');
        if (options?.validate !== false || distrust || modulesChanged) {
          const validation = await candidate.validate(conf);
          lastParseMs = Math.max(lastParseMs, validation.ms);
          await reload(running, previous, conf, version, { ...validation, tested: true });
          distrust = false;
          return;
        }
        await candidate.stage(conf);
        counters.unvalidatedReloads += 1;
        try {
          await reload(running, previous, conf, version, { ms: 0, ahead: false, tested: false });
        } catch (err) {
          if (!(err instanceof NginxReloadError)) throw err;
          // The master kept the old workers. Whether the text itself is at fault, and where, is
          // what `nginx -t` says: its refusal is the error a validated reload would have thrown.
          distrust = true;
          logger.warn({ version, err: err.message }, 'a reload without nginx -t was not confirmed; validating it');
          await candidate.validate(conf).catch((refusal: unknown) => {
            throw refusal instanceof NginxConfigError ? refusal : err;
          });
          throw err;
        }
      });
    },
    validateAhead: (conf, version) => {
      ahead?.cancel.abort();
      const mine = { conf, cancel: new AbortController() };
      ahead = mine;
      return serialize(async () => {
        try {
          if (mine.cancel.signal.aborted || lifetime.signal.aborted || !live || version === live.version) return;
          await candidate.validate(conf, mine.cancel.signal).catch((err: unknown) => {
            if (!mine.cancel.signal.aborted) throw err;
          });
        } finally {
          if (ahead === mine) ahead = null;
        }
      });
    },
    validate: (conf) =>
      serialize(async () => {
        if (lifetime.signal.aborted) throw new NginxNotRunningError('NGINX manager was stopped');
        await candidate.validate(conf);
      }),
    stop: async () => {
      lifetime.abort();
      restarts.cancel();
      await serialize(async () => {
        const running = master;
        if (running) await running.process.stop(timeouts.stopMs);
        master = null;
        process.off('exit', killOnExit);
      });
    },
    started: () => live !== null && !lifetime.signal.aborted,
    liveVersion: () => live?.version ?? null,
    pid: () => master?.process.pid ?? null,
    workerPids: () => (master ? workerPidsOf(master.process.pid) : []),
    stats: () => ({ ...counters, lastReload }),
  };
}
