// Finds a controller's NGINX processes through /proc, independent of the
// controller's own bookkeeping, so a test can check that stopping really
// left nothing behind and can kill -9 a master the way a crash would.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  /** Process group: NGINX masters are group leaders, their workers share the group. */
  readonly pgid: number;
  /** argv joined with spaces (NGINX rewrites its own title; under the dataplane's loader a master shows only the loader). */
  readonly cmdline: string;
}

function readProcess(pid: number): ProcessInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself hold spaces or ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') return null; // a zombie has exited; only its parent's wait is missing
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]), cmdline };
  } catch {
    return null; // gone between readdir and read
  }
}

/** Every live process on the machine. */
export function listProcesses(): ProcessInfo[] {
  const list: ProcessInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const info = readProcess(Number(name));
    if (info) list.push(info);
  }
  return list;
}

/**
 * NGINX processes of the controller process `controllerPid`: its children
 * that lead their own process group (NGINX masters are spawned detached), and
 * every member of those groups or of `knownGroups` (workers a killed master
 * left behind, or a master after the controller itself exited). Found by
 * parentage, not by name: under the dataplane's loader a master's title
 * shows only the loader's path.
 */
export function nginxProcessesOf(controllerPid: number, knownGroups: ReadonlySet<number> = new Set()): ProcessInfo[] {
  const all = listProcesses();
  const groups = new Set(knownGroups);
  for (const proc of all) if (proc.ppid === controllerPid && proc.pgid === proc.pid) groups.add(proc.pid);
  return all.filter((proc) => groups.has(proc.pgid));
}

/** The group leaders among `processes`: NGINX masters (alive or the group's survivors' leader pid). */
export function mastersOf(processes: readonly ProcessInfo[]): ProcessInfo[] {
  return processes.filter((proc) => proc.pid === proc.pgid);
}

/** Sends `signal` to each pid, ignoring processes that are already gone. */
export function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already exited
    }
  }
}
