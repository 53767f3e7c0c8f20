// CPU time of processes, from /proc: where the cores went during a window of
// a benchmark (e.g. how much the control plane took from NGINX and wrk on a
// 2-core machine). Linux only, like the rest of the benchmarks.
import { readdirSync, readFileSync } from 'node:fs';

/** Kernel clock ticks per second (USER_HZ): 100 on every Linux ABI Node runs on. */
const TICKS_PER_SECOND = 100;

interface StatFields {
  readonly ppid: number;
  /** utime + stime, seconds. */
  readonly cpuSeconds: number;
}

/** ppid and CPU seconds of `pid`, or null when it is gone. The command name may hold spaces and parentheses. */
function readStat(pid: number): StatFields | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // After "(comm) ": state ppid … utime is field 14 of the whole line, index 11 here.
  return { ppid: Number(fields[1]), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND };
}

/** Every live process whose ancestors include `root` (not `root` itself). */
export function descendantsOf(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = readStat(pid);
    if (stat) parents.set(pid, stat.ppid);
  }
  const found: number[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const parent = frontier.pop();
    for (const [pid, ppid] of parents) {
      if (ppid === parent) {
        found.push(pid);
        frontier.push(pid);
      }
    }
  }
  return found;
}

/** CPU seconds used so far by `pids` together (gone ones count 0). */
export function cpuSecondsOf(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + (readStat(pid)?.cpuSeconds ?? 0), 0);
}
