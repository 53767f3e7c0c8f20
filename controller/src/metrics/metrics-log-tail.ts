// Moves per-request data from NGINX into the registry by tailing the metrics
// log (<prefix>/metrics.log): every NGINX worker appends one line per proxied
// request, buffered, so the request path costs NGINX no Lua. This reads what
// was appended every second and before each scrape.
//
// The file must not grow without bound, and nothing may be lost or counted
// twice on the way: past rotateBytes it is renamed to <path>.old and NGINX
// is asked to reopen its logs (SIGUSR1). Workers flush what they buffered
// into the renamed file before they reopen, so <path>.old is read through
// the same handle until it has been quiet for two intervals and the new
// file exists; then it is read to its end and removed.

import { rename, unlink } from 'node:fs/promises';
import { statSync, type BigIntStats } from 'node:fs';
import type { Logger } from 'pino';
import { parseMetricsLog } from './metrics-log-lines.ts';
import type { RequestMetrics } from './request-metrics.ts';
import { identityAt, sameFile, TailedFile, type FileIdentity } from './tailed-file.ts';

export interface MetricsLogTailOptions {
  /** The log NGINX writes, `metricsLogPath(prefix)`. */
  readonly path: string;
  readonly metrics: RequestMetrics;
  readonly logger: Logger;
  /** Pause between reads (default 1000 ms). */
  readonly intervalMs?: number;
  /** Rotate once this much has been read from one file (default 16 MiB). */
  readonly rotateBytes?: number;
  /** Makes NGINX reopen its log files (SIGUSR1 to the master); throws when there is no NGINX. */
  readonly reopenLogs: () => void | Promise<void>;
}

export interface MetricsLogTail {
  /** Reads once now; resolves when the data is in the registry (never rejects). */
  drain(): Promise<void>;
  stop(): void;
}

/** A file no longer at `path` that NGINX workers may still be flushing into. */
interface RetiringFile {
  readonly file: TailedFile;
  /** Our `<path>.old`, removed once read; null when someone else moved the file away. */
  readonly removePath: string | null;
  lastGrowthAt: number;
}

export const DEFAULT_ROTATE_BYTES = 16 * 1024 * 1024;

/** The file at `path` now, or null; read synchronously so "now" is the moment the tail starts. */
function identityNow(path: string): BigIntStats | null {
  try {
    return statSync(path, { bigint: true });
  } catch {
    return null;
  }
}

export function startMetricsLogTail(options: MetricsLogTailOptions): MetricsLogTail {
  const { path, metrics, logger } = options;
  const intervalMs = options.intervalMs ?? 1000;
  const rotateBytes = options.rotateBytes ?? DEFAULT_ROTATE_BYTES;
  const oldPath = `${path}.old`;
  // Lines written before this process started were counted by the one before it.
  let startedWith: BigIntStats | null = identityNow(path);
  let current: TailedFile | null = null;
  const retiring: RetiringFile[] = [];
  let reopenPending = false;
  let stopped = false;
  const quiet = { missing: false, reopen: false, read: false };

  /** Reads what `file` got since last time into the metrics; returns the bytes read. */
  const ingest = async (file: TailedFile): Promise<number> => {
    const read = await file.readNew();
    if (read.truncated) logger.info({ path }, 'metrics log was truncated; reading it from its start');
    const parsed = parseMetricsLog(read.text, metrics.buckets);
    parsed.rejected.malformed += read.overlong;
    metrics.ingest(parsed);
    return read.bytes;
  };

  const openCurrent = async (): Promise<TailedFile | null> => {
    try {
      return await TailedFile.open(path, (size: number, identity: FileIdentity) => {
        const skip = startedWith !== null && sameFile(identity, startedWith) ? Math.min(size, Number(startedWith.size)) : 0;
        startedWith = null;
        return skip;
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  };

  /** Follows whatever file is at `path` now; a different one than before retires the old. */
  const followCurrent = async (): Promise<void> => {
    const onDisk = await identityAt(path);
    if (current !== null && onDisk !== null && !sameFile(onDisk, current)) {
      logger.info({ path }, 'metrics log was replaced; reading the new one from its start');
      retiring.push({ file: current, removePath: null, lastGrowthAt: performance.now() });
      current = null;
    }
    current ??= onDisk === null ? null : await openCurrent();
    if (current === null) {
      // NGINX not started yet, or between a rotation and its reopen: normal.
      if (!quiet.missing) logger.debug({ path }, 'metrics log does not exist (yet)');
      quiet.missing = true;
      return;
    }
    quiet.missing = false;
    if (reopenPending) reopenPending = false; // the new file is there: NGINX reopened (or restarted)
    await ingest(current);
  };

  const retire = async (): Promise<void> => {
    const newFileExists = (await identityAt(path)) !== null;
    for (const entry of [...retiring]) {
      if ((await ingest(entry.file)) > 0) entry.lastGrowthAt = performance.now();
      if (!newFileExists || performance.now() - entry.lastGrowthAt < 2 * intervalMs) continue;
      await ingest(entry.file);
      // NGINX writes whole lines: a rest without "\n" now was cut off, it is not waiting for more.
      if (entry.file.unfinishedBytes > 0) metrics.ingest({ aggregates: [], rejected: { malformed: 1, bucketMismatch: 0 }, droppedInNginx: 0 });
      retiring.splice(retiring.indexOf(entry), 1);
      await entry.file.close();
      const there = entry.removePath === null ? null : await identityAt(entry.removePath);
      if (entry.removePath !== null && there !== null && sameFile(there, entry.file)) await unlink(entry.removePath);
    }
  };

  const reopen = async (): Promise<void> => {
    try {
      await options.reopenLogs();
      reopenPending = false;
      quiet.reopen = false;
    } catch (err) {
      if (!quiet.reopen) logger.warn({ err: err instanceof Error ? err.message : String(err), path }, 'NGINX could not reopen its logs; retrying');
      quiet.reopen = true;
    }
  };

  const rotateIfDue = async (): Promise<void> => {
    if (reopenPending) return reopen();
    // One rotation at a time: <path>.old is still being read.
    if (current === null || current.position < rotateBytes || retiring.some((r) => r.removePath !== null)) return;
    const onDisk = await identityAt(path);
    if (onDisk === null || !sameFile(onDisk, current)) return;
    await rename(path, oldPath);
    retiring.push({ file: current, removePath: oldPath, lastGrowthAt: performance.now() });
    current = null;
    reopenPending = true;
    await reopen();
  };

  const tick = async (): Promise<void> => {
    if (stopped) return;
    try {
      await followCurrent();
      await retire();
      await rotateIfDue();
      quiet.read = false;
    } catch (err) {
      if (!quiet.read) logger.warn({ err: err instanceof Error ? err.message : String(err), path }, 'reading the metrics log failed');
      quiet.read = true;
    }
  };

  // A drain must see everything written before it was called: a read already
  // in flight may have passed the end before the last lines arrived, so a
  // caller arriving during one gets the next read (shared by all who wait).
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const drain = (): Promise<void> => {
    if (running === null) {
      running = tick().finally(() => { running = null; });
      return running;
    }
    next ??= running.then(() => {
      next = null;
      return drain();
    });
    return next;
  };
  const timer = setInterval(() => { void drain(); }, intervalMs);
  timer.unref();
  return {
    drain,
    stop(): void {
      stopped = true;
      clearInterval(timer);
      // After a read in flight: it still uses the handles.
      const closeAll = async (): Promise<void> => {
        await running;
        const files = [...(current ? [current] : []), ...retiring.map((r) => r.file)];
        await Promise.allSettled(files.map((f) => f.close()));
      };
      void closeAll();
    },
  };
}
