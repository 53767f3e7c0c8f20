// nginx_ingress_controller_nginx_process_*: CPU, memory, storage I/O, process
// count and start time of the NGINX master and its workers, read from /proc
// on every scrape (process-stats.ts), under the names ingress-nginx's process
// collector used; its dashboard's CPU and memory panels read them.
//
// Differences from ingress-nginx, on purpose: the group is NGINX's master and
// its children, not every process in the container (its name matcher matched
// them all, the controller included); cpu_seconds_total is user + system time
// (ingress-nginx exported system time only). The counters stay monotonic
// across NGINX restarts: a new master continues from the old one's total.

import { Counter, Gauge, type Registry } from 'prom-client';
import type { GroupReading } from './process-stats.ts';

const PREFIX = 'nginx_ingress_controller_nginx_process_';
/** The metrics of one scrape collect in turn: they share one /proc read this young. */
const READ_REUSE_MS = 250;

type CounterKey = 'cpuSeconds' | 'readBytes' | 'writeBytes';
const COUNTER_KEYS: readonly CounterKey[] = ['cpuSeconds', 'readBytes', 'writeBytes'];

/** Monotonic totals over successive masters. */
export class ProcessTotals {
  #master: string | null = null;
  /** Totals of earlier masters. */
  readonly #base: Record<CounterKey, number> = { cpuSeconds: 0, readBytes: 0, writeBytes: 0 };
  /** The current master's highest reading (a child exiting but not yet reaped can dip it for a moment). */
  readonly #high: Record<CounterKey, number> = { cpuSeconds: 0, readBytes: 0, writeBytes: 0 };

  /** Adds a reading; returns the totals to export. */
  update(reading: GroupReading): Record<CounterKey, number> {
    const master = `${reading.masterPid}:${reading.masterStartTicks}`;
    if (master !== this.#master) {
      for (const key of COUNTER_KEYS) {
        this.#base[key] += this.#high[key];
        this.#high[key] = 0;
      }
      this.#master = master;
    }
    const totals = {} as Record<CounterKey, number>;
    for (const key of COUNTER_KEYS) {
      this.#high[key] = Math.max(this.#high[key], reading[key]);
      totals[key] = this.#base[key] + this.#high[key];
    }
    return totals;
  }
}

/** Registers the process metrics; `read` returns null while NGINX is not running. */
export function registerNginxProcessMetrics(registry: Registry, read: () => GroupReading | null, now: () => number = Date.now): void {
  const totals = new ProcessTotals();
  let last: { at: number; reading: GroupReading | null; counters: Record<CounterKey, number> | null } | null = null;
  let exported: Record<CounterKey, number> = { cpuSeconds: 0, readBytes: 0, writeBytes: 0 };
  const current = (): { reading: GroupReading | null; counters: Record<CounterKey, number> } => {
    if (last === null || now() - last.at > READ_REUSE_MS) {
      const reading = read();
      last = { at: now(), reading, counters: reading ? totals.update(reading) : null };
      if (last.counters) exported = last.counters;
    }
    return { reading: last.reading, counters: exported };
  };
  const registers = [registry];
  const gauge = (name: string, help: string, pick: (r: GroupReading) => number): void => {
    const metric: Gauge = new Gauge({
      name: `${PREFIX}${name}`, help, registers,
      collect() {
        const { reading } = current();
        // No NGINX: no memory, no start time (a stale value would look alive); num_procs says 0.
        if (reading) metric.set(pick(reading));
        else if (name === 'num_procs') metric.set(0);
        else metric.remove({}); // reset() would print 0
      },
    });
  };
  const counter = (name: string, help: string, key: CounterKey): void => {
    const metric: Counter = new Counter({
      name: `${PREFIX}${name}`, help, registers,
      collect() {
        const value = current().counters[key];
        metric.reset();
        metric.inc(value);
      },
    });
  };
  gauge('num_procs', 'number of processes (the NGINX master and its children)', (r) => r.numProcs);
  gauge('resident_memory_bytes', 'number of bytes of memory in use (resident set, summed)', (r) => r.residentBytes);
  gauge('virtual_memory_bytes', 'number of bytes of virtual memory (summed)', (r) => r.virtualBytes);
  gauge('oldest_start_time_seconds', 'start time in seconds since 1970/01/01 of the oldest process', (r) => r.oldestStartTime);
  counter('cpu_seconds_total', 'Cpu usage in seconds (user + system, exited workers included)', 'cpuSeconds');
  counter('read_bytes_total', 'number of bytes read from storage', 'readBytes');
  counter('write_bytes_total', 'number of bytes written to storage', 'writeBytes');
}
