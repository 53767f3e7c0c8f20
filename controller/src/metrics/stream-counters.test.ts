import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import type { StreamService } from '../model/types.ts';
import { registerStreamCounters, type StreamTotals } from './stream-counters.ts';

const ECHO: StreamService = { port: 9000, protocol: 'TCP', namespace: 'default', service: 'echo', servicePort: 80, proxyProtocol: { decode: false, encode: false }, endpoints: [] };
const LABELS = 'protocol="TCP",port="9000",namespace="default",service="echo"';

function totals(connections: number, bytesIn: number, bytesOut: number, failed: number, key = 'TCP/9000'): StreamTotals {
  return { key, connections, bytesIn, bytesOut, failed };
}

/** The four series of the echo listener in one scrape. */
function series(text: string): number[] {
  const value = (pattern: string): number => Number(new RegExp(`^${pattern} (\\d+)$`, 'mu').exec(text)?.[1] ?? NaN);
  return [
    value(`resty_ingress_stream_connections_total\\{${LABELS}\\}`),
    value(`resty_ingress_stream_bytes_total\\{${LABELS},direction="in"\\}`),
    value(`resty_ingress_stream_bytes_total\\{${LABELS},direction="out"\\}`),
    value(`resty_ingress_stream_connect_failures_total\\{${LABELS}\\}`),
  ];
}

void describe('stream counters', () => {
  void it('turn njs totals into counters that never go back, across an NGINX restart and failed reads', async () => {
    const registry = new Registry();
    let next: readonly StreamTotals[] | null = null;
    registerStreamCounters(registry, { read: async () => next, streams: () => [ECHO] });
    const steps: { name: string; read: readonly StreamTotals[] | null; expect: number[] }[] = [
      { name: 'first read', read: [totals(3, 30, 60, 1), totals(5, 1, 1, 0, 'TCP/9999')], expect: [3, 30, 60, 1] },
      { name: 'more traffic', read: [totals(5, 50, 90, 1)], expect: [5, 50, 90, 1] },
      { name: 'a failed read changes nothing', read: null, expect: [5, 50, 90, 1] },
      { name: 'NGINX restarted: its totals start from zero again', read: [totals(2, 4, 8, 0)], expect: [7, 54, 98, 1] },
      { name: 'and grow from there', read: [totals(3, 5, 9, 2)], expect: [8, 55, 99, 3] },
    ];
    for (const step of steps) {
      next = step.read;
      const text = await registry.metrics();
      assert.deepEqual(series(text), step.expect, step.name);
      assert.doesNotMatch(text, /port="9999"/u, `${step.name}: a listener outside the model has no series`);
    }
  });
});
