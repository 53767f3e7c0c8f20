// What the kernel knows about NGINX's processes, read from /proc (Linux).
// /proc/<pid>/task/<pid>/children is not available on every kernel, so the
// parent and process group of every process are read from /proc/<pid>/stat.
// The master runs in its own process group (spawned detached), so the group
// id finds every worker even after a killed master left them orphaned.
import { readdirSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat this module uses. */
export interface ProcStat {
  readonly pid: number;
  /** R, S, D, Z (zombie), T, ... */
  readonly state: string;
  readonly ppid: number;
  readonly pgid: number;
}

/** Parses /proc/<pid>/stat; the command name in parentheses may itself contain spaces and ')'. */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const [state, ppid, pgid] = text.slice(close + 2).split(' ');
  if (!Number.isInteger(pid) || state === undefined || pgid === undefined) return null;
  return { pid, state, ppid: Number(ppid), pgid: Number(pgid) };
}

function readStat(pid: number): ProcStat | null {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null; // gone between readdir and read
  }
}

function allProcesses(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) stats.push(stat);
  }
  return stats;
}

/** Live (not zombie) processes whose parent is `pid`, sorted. */
export function childPids(pid: number): number[] {
  return allProcesses()
    .filter((p) => p.ppid === pid && p.state !== 'Z')
    .map((p) => p.pid)
    .sort((a, b) => a - b);
}

/** Live (not zombie) processes in process group `pgid`, sorted. */
export function processGroupPids(pgid: number): number[] {
  return allProcesses()
    .filter((p) => p.pgid === pgid && p.state !== 'Z')
    .map((p) => p.pid)
    .sort((a, b) => a - b);
}

/** True when `pid` exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== null && stat.state !== 'Z';
}

function processTitle(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/**
 * The master's current workers: children titled "nginx: worker process",
 * leaving out old workers still draining after a reload ("... is shutting down")
 * and the cache manager/loader.
 */
export function workerPidsOf(masterPid: number): number[] {
  return childPids(masterPid).filter((pid) => {
    const title = processTitle(pid);
    return title.includes('nginx: worker process') && !title.includes('shutting down');
  });
}

/** Polls until no live process is left in group `pgid`; false on timeout. */
export async function waitForGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (processGroupPids(pgid).length > 0) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/**
 * Polls until none of `oldWorkers` is still a current worker of the master
 * (each exited or is "shutting down", which closes its listening sockets);
 * false on timeout. After a reload this is when every new connection reaches
 * a new worker.
 */
export async function waitForWorkersReplaced(masterPid: number, oldWorkers: readonly number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (workerPidsOf(masterPid).some((pid) => oldWorkers.includes(pid))) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}
