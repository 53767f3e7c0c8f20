// What /proc says about the NGINX master and its children (workers, cache
// manager), summed the way ingress-nginx's process collector reports its
// group. Reading only: nginx-process.ts turns the sums into metrics.
//
// Counters (CPU, storage I/O) must not drop when workers come and go at
// every reload: a child that exited and was reaped has its CPU time in the
// master's cutime/cstime and its I/O in the master's /proc/<pid>/io (the
// kernel adds both to the parent at wait()), so master + live children is
// the whole group's total at any moment. Nothing is lost between scrapes.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** USER_HZ: the unit of /proc/<pid>/stat times; 100 on every Linux architecture userspace sees. */
const TICKS_PER_SECOND = 100;

/** One process as /proc shows it; null fields could not be read (e.g. I/O of a process owned by another user). */
export interface ProcessReading {
  readonly pid: number;
  /** utime + stime (+ cutime + cstime when `withChildren`), seconds. */
  readonly cpuSeconds: number;
  /** Seconds since the epoch. */
  readonly startTime: number;
  readonly residentBytes: number;
  readonly virtualBytes: number;
  readonly readBytes: number | null;
  readonly writeBytes: number | null;
}

/** The group's sums at one moment; `startTicks` of the master tells one NGINX run from the next. */
export interface GroupReading {
  readonly masterPid: number;
  /** The master's start time in ticks since boot: a new value is a new master (restart). */
  readonly masterStartTicks: number;
  readonly numProcs: number;
  readonly cpuSeconds: number;
  readonly readBytes: number;
  readonly writeBytes: number;
  readonly residentBytes: number;
  readonly virtualBytes: number;
  readonly oldestStartTime: number;
}

interface StatFields {
  readonly utime: number;
  readonly stime: number;
  readonly cutime: number;
  readonly cstime: number;
  readonly startTicks: number;
}

/** `/proc/<pid>/stat`: the fields after the command (which may hold spaces and parentheses). */
export function parseStat(text: string): StatFields | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  // Field 3 (state) is the first after ")"; utime is field 14, starttime field 22.
  const f = text.slice(close + 2).trim().split(' ');
  const num = (field: number): number => Number(f[field - 3]);
  const fields = { utime: num(14), stime: num(15), cutime: num(16), cstime: num(17), startTicks: num(22) };
  return Object.values(fields).every(Number.isFinite) ? fields : null;
}

/** `VmRSS:` and `VmSize:` of `/proc/<pid>/status`, in bytes; 0 when absent (a zombie has neither). */
export function parseStatusMemory(text: string): { residentBytes: number; virtualBytes: number } {
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB$`, 'mu').exec(text)?.[1] ?? 0) * 1024;
  return { residentBytes: kb('VmRSS'), virtualBytes: kb('VmSize') };
}

/** `read_bytes:` and `write_bytes:` of `/proc/<pid>/io` (storage I/O, as ingress-nginx's collector). */
export function parseIo(text: string): { readBytes: number; writeBytes: number } | null {
  const read = /^read_bytes: (\d+)$/mu.exec(text)?.[1];
  const write = /^write_bytes: (\d+)$/mu.exec(text)?.[1];
  return read === undefined || write === undefined ? null : { readBytes: Number(read), writeBytes: Number(write) };
}

/** `btime` of `/proc/stat`: boot time, seconds since the epoch. */
export function parseBootTime(text: string): number | null {
  const m = /^btime (\d+)$/mu.exec(text);
  return m ? Number(m[1]) : null;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return null;
  }
}

/** Reads one process; null when it is gone. */
function readProcess(procRoot: string, pid: number, bootTime: number, withChildren: boolean): (ProcessReading & { startTicks: number }) | null {
  const stat = parseStat(readOrNull(join(procRoot, String(pid), 'stat')) ?? '');
  if (!stat) return null;
  const memory = parseStatusMemory(readOrNull(join(procRoot, String(pid), 'status')) ?? '');
  const io = parseIo(readOrNull(join(procRoot, String(pid), 'io')) ?? '');
  const ticks = stat.utime + stat.stime + (withChildren ? stat.cutime + stat.cstime : 0);
  return {
    pid,
    cpuSeconds: ticks / TICKS_PER_SECOND,
    startTicks: stat.startTicks,
    startTime: bootTime + stat.startTicks / TICKS_PER_SECOND,
    ...memory,
    readBytes: io?.readBytes ?? null,
    writeBytes: io?.writeBytes ?? null,
  };
}

/** The master's children: its `children` file (one read), else a scan of every process's parent. */
function childrenOf(procRoot: string, pid: number): number[] {
  const listed = readOrNull(join(procRoot, String(pid), 'task', String(pid), 'children'));
  if (listed !== null) return listed.trim().split(/\s+/u).filter(Boolean).map(Number);
  const children: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync(procRoot);
  } catch {
    return children;
  }
  for (const entry of entries) {
    if (!/^\d+$/u.test(entry)) continue;
    const text = readOrNull(join(procRoot, entry, 'stat')) ?? '';
    const ppid = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === pid) children.push(Number(entry));
  }
  return children;
}

/** Reads the NGINX master `masterPid` and its children; null when the master is gone. */
export function readProcessGroup(masterPid: number, procRoot = '/proc'): GroupReading | null {
  const bootTime = parseBootTime(readOrNull(join(procRoot, 'stat')) ?? '') ?? 0;
  const master = readProcess(procRoot, masterPid, bootTime, true);
  if (!master) return null;
  const group: (ProcessReading & { startTicks: number })[] = [master];
  for (const pid of childrenOf(procRoot, masterPid)) {
    const child = readProcess(procRoot, pid, bootTime, false);
    if (child) group.push(child);
  }
  const sum = (pick: (p: ProcessReading) => number | null): number => group.reduce((total, p) => total + (pick(p) ?? 0), 0);
  return {
    masterPid,
    masterStartTicks: master.startTicks,
    numProcs: group.length,
    cpuSeconds: sum((p) => p.cpuSeconds),
    readBytes: sum((p) => p.readBytes),
    writeBytes: sum((p) => p.writeBytes),
    residentBytes: sum((p) => p.residentBytes),
    virtualBytes: sum((p) => p.virtualBytes),
    oldestStartTime: Math.min(...group.map((p) => p.startTime)),
  };
}
