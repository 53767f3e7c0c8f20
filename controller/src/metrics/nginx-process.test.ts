// The process metrics under ingress-nginx's names: counters stay monotonic
// while workers come and go and across an NGINX restart; gauges follow the
// latest reading and disappear (num_procs 0) without NGINX.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { ProcessTotals, registerNginxProcessMetrics } from './nginx-process.ts';
import type { GroupReading } from './process-stats.ts';

const BASE: GroupReading = {
  masterPid: 100, masterStartTicks: 5000, numProcs: 3, cpuSeconds: 10, readBytes: 1000, writeBytes: 2000,
  residentBytes: 30e6, virtualBytes: 300e6, oldestStartTime: 1764000000,
};

void describe('ProcessTotals', () => {
  const rows: { name: string; readings: Partial<GroupReading>[]; expected: number[] }[] = [
    { name: 'grows with the group', readings: [{ cpuSeconds: 10 }, { cpuSeconds: 12 }, { cpuSeconds: 15 }], expected: [10, 12, 15] },
    // A worker exited and is not reaped yet: its time is in neither place for a moment.
    { name: 'a dip while a worker is being reaped is held', readings: [{ cpuSeconds: 10 }, { cpuSeconds: 8 }, { cpuSeconds: 11 }], expected: [10, 10, 11] },
    { name: 'a new master continues from the old total', readings: [{ cpuSeconds: 10 }, { masterPid: 200, cpuSeconds: 1 }, { masterPid: 200, cpuSeconds: 3 }], expected: [10, 11, 13] },
    { name: 'a reused pid with a new start is a new master', readings: [{ cpuSeconds: 10 }, { masterStartTicks: 9000, cpuSeconds: 2 }], expected: [10, 12] },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const totals = new ProcessTotals();
      assert.deepEqual(row.readings.map((r) => totals.update({ ...BASE, ...r }).cpuSeconds), row.expected);
    });
  }
});

/** `name value` lines of the registry's output (default labels none here). */
async function samples(registry: Registry): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const line of (await registry.metrics()).split('\n')) {
    const m = /^(nginx_ingress_controller_nginx_process_\w+) (\S+)$/u.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

void describe('registerNginxProcessMetrics', () => {
  void it('exports every ingress-nginx process metric from one reading per scrape', async () => {
    const registry = new Registry();
    let reads = 0;
    let clock = 0;
    registerNginxProcessMetrics(registry, () => { reads++; return BASE; }, () => clock);
    assert.deepEqual(await samples(registry), {
      nginx_ingress_controller_nginx_process_num_procs: 3,
      nginx_ingress_controller_nginx_process_resident_memory_bytes: 30e6,
      nginx_ingress_controller_nginx_process_virtual_memory_bytes: 300e6,
      nginx_ingress_controller_nginx_process_oldest_start_time_seconds: 1764000000,
      nginx_ingress_controller_nginx_process_cpu_seconds_total: 10,
      nginx_ingress_controller_nginx_process_read_bytes_total: 1000,
      nginx_ingress_controller_nginx_process_write_bytes_total: 2000,
    });
    assert.equal(reads, 1, 'seven metrics, one /proc read');
    clock += 1000;
    await registry.metrics();
    assert.equal(reads, 2, 'the next scrape reads again');
    assert.match(await registry.metrics(), /# TYPE nginx_ingress_controller_nginx_process_cpu_seconds_total counter/u);
  });

  void it('without NGINX: num_procs 0, no memory or start time, counters keep their totals', async () => {
    const registry = new Registry();
    let reading: GroupReading | null = BASE;
    let clock = 0;
    registerNginxProcessMetrics(registry, () => reading, () => clock);
    await registry.metrics();
    reading = null;
    clock += 1000;
    assert.deepEqual(await samples(registry), {
      nginx_ingress_controller_nginx_process_num_procs: 0,
      nginx_ingress_controller_nginx_process_cpu_seconds_total: 10,
      nginx_ingress_controller_nginx_process_read_bytes_total: 1000,
      nginx_ingress_controller_nginx_process_write_bytes_total: 2000,
    });
  });
});
