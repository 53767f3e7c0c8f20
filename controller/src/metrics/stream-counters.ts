// Per-listener TCP/UDP counters: njs counts each stream session when it ends
// (rootfs/etc/nginx/njs/resty_stream.js observe(): connections, bytes each way,
// connects that failed) in a shared dict; the controller reads them through the
// feed socket on every scrape (nginx/stream-feed.ts readStreamStats) and turns
// the running totals into Prometheus counters. A total that went down means
// NGINX restarted (the dict is gone): the new total is counted from zero, so
// the counters never go back. A failed read leaves them as they were.

import { Counter, type Registry } from 'prom-client';
import type { StreamService } from '../model/types.ts';

/** What njs reports, per listener key (`TCP/<port>`); see nginx/stream-feed.ts StreamStats. */
export interface StreamTotals {
  readonly key: string;
  readonly connections: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  readonly failed: number;
}

const LABELS = ['protocol', 'port', 'namespace', 'service'] as const;
type Labels = Record<(typeof LABELS)[number], string>;
type Field = 'connections' | 'bytesIn' | 'bytesOut' | 'failed';

export interface StreamCounterSources {
  /** The counters njs holds now; null when they cannot be read (no stream {}, NGINX restarting). */
  read(): Promise<readonly StreamTotals[] | null>;
  /** The listeners of the last model, for the namespace and service labels. */
  streams(): readonly StreamService[];
}

export function registerStreamCounters(registry: Registry, sources: StreamCounterSources): void {
  const registers = [registry];
  const last = new Map<string, StreamTotals>();
  let pending: Promise<void> | null = null;
  const connections = new Counter({
    name: 'resty_ingress_stream_connections_total', help: 'TCP connections / UDP sessions proxied by a TCP/UDP service listener, counted when they end',
    labelNames: LABELS, registers, collect: () => readOnce(),
  });
  const bytes = new Counter({
    name: 'resty_ingress_stream_bytes_total', help: 'Bytes a TCP/UDP service listener received from clients (direction="in") and sent to them ("out")',
    labelNames: [...LABELS, 'direction'], registers, collect: () => readOnce(),
  });
  const failures = new Counter({
    name: 'resty_ingress_stream_connect_failures_total', help: 'Stream sessions whose endpoint could not be connected (not retried on another: docs/tcp-udp-services.md)',
    labelNames: LABELS, registers, collect: () => readOnce(),
  });

  const delta = (now: StreamTotals, before: StreamTotals | undefined, field: Field): number => {
    const previous = before?.[field] ?? 0;
    return now[field] >= previous ? now[field] - previous : now[field];
  };

  const update = async (): Promise<void> => {
    const totals = await sources.read().catch(() => null);
    if (totals === null) return;
    const labels = new Map<string, Labels>(sources.streams().map((s) => [`${s.protocol}/${s.port}`,
      { protocol: s.protocol, port: String(s.port), namespace: s.namespace, service: s.service }]));
    for (const now of totals) {
      const before = last.get(now.key);
      // A restart resets every total at once: a drop in connections counts all fields from zero.
      const restarted = before !== undefined && now.connections < before.connections;
      const base = restarted ? undefined : before;
      last.set(now.key, now);
      const of = labels.get(now.key);
      if (of === undefined) continue; // a listener no longer in the model
      connections.inc(of, delta(now, base, 'connections'));
      bytes.inc({ ...of, direction: 'in' }, delta(now, base, 'bytesIn'));
      bytes.inc({ ...of, direction: 'out' }, delta(now, base, 'bytesOut'));
      failures.inc(of, delta(now, base, 'failed'));
    }
  };
  // The three counters collect in parallel on one scrape: share one read.
  const readOnce = (): Promise<void> => {
    pending ??= update().finally(() => { pending = null; });
    return pending;
  };
}
