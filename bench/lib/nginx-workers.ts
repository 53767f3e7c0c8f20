// NGINX worker generations from /proc: the workers a master forked at one
// reload start together (the title is at the end of cmdline: the data plane
// runs through its own ld.so, which stays in front), so their start times (clock ticks since boot)
// cluster; workers of older generations still alive are draining. Used to
// see how many generations a burst of reloads keeps alive at once.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcEntry {
  readonly pid: number;
  readonly ppid: number;
  /** /proc/<pid>/stat field 22, in clock ticks since boot. */
  readonly startTicks: number;
  readonly cmdline: string;
}

/** Parses /proc/<pid>/stat (the command may hold spaces and parentheses: fields start after the last ')'). */
export function parseStat(stat: string): { ppid: number; startTicks: number } | null {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  const startTicks = Number(fields[19]);
  return Number.isFinite(ppid) && Number.isFinite(startTicks) ? { ppid, startTicks } : null;
}

/** Every process readable now (one that exits while read is skipped). */
export function readProcesses(): ProcEntry[] {
  const entries: ProcEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = parseStat(readFileSync(`/proc/${name}/stat`, 'utf8'));
      if (stat === null) continue;
      entries.push({ pid: Number(name), ...stat, cmdline: readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').trim() });
    } catch {
      // gone between readdir and read
    }
  }
  return entries;
}

export interface WorkerCensus {
  readonly workers: number;
  /** Workers of generations older than the newest (draining; their "is shutting down" title does not fit the argv space here). */
  readonly draining: number;
  /** Distinct generations alive (start times more than `gapTicks` apart). */
  readonly generations: number;
}

/** The NGINX workers among the descendants of `root`, by generation. */
export function workerCensus(processes: readonly ProcEntry[], root: number, gapTicks = 5): WorkerCensus {
  const parent = new Map(processes.map((p) => [p.pid, p.ppid]));
  const descends = (pid: number): boolean => {
    for (let at = parent.get(pid), hops = 0; at !== undefined && hops < 16; at = parent.get(at), hops++) if (at === root) return true;
    return false;
  };
  const workers = processes.filter((p) => p.cmdline.includes('nginx: worker process') && descends(p.pid));
  const starts = workers.map((w) => w.startTicks).sort((a, b) => a - b);
  let generations = 0;
  let newest = 0;
  for (let i = 0; i < starts.length; i++) {
    if (i === 0 || starts[i]! - starts[i - 1]! > gapTicks) { generations++; newest = starts[i]!; }
  }
  return { workers: workers.length, draining: workers.filter((w) => w.startTicks < newest).length, generations };
}

/** Samples the census every `everyMs` until stopped; resolves with the maxima seen. */
export function sampleWorkers(root: number, everyMs = 100): { stop(): WorkerCensus & { samples: number } } {
  let max = { workers: 0, draining: 0, generations: 0 };
  let samples = 0;
  const take = (): void => {
    const now = workerCensus(readProcesses(), root);
    samples++;
    max = { workers: Math.max(max.workers, now.workers), draining: Math.max(max.draining, now.draining), generations: Math.max(max.generations, now.generations) };
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      take();
      return { ...max, samples };
    },
  };
}
