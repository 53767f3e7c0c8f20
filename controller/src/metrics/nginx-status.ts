// NGINX connection metrics from stub_status (`/nginx_status` on the loopback
// status server), read on every scrape, under ingress-nginx's names. A failed
// read leaves the last values in place: a scrape must never fail because
// NGINX is restarting.

import { Counter, Gauge, type Registry } from 'prom-client';

/** The numbers stub_status prints. */
export interface StubStatus {
  readonly active: number;
  readonly accepted: number;
  readonly handled: number;
  readonly requests: number;
  readonly reading: number;
  readonly writing: number;
  readonly waiting: number;
}

const STUB_STATUS = /Active connections:\s*(\d+)\s+server accepts handled requests\s+(\d+)\s+(\d+)\s+(\d+)\s+Reading:\s*(\d+)\s+Writing:\s*(\d+)\s+Waiting:\s*(\d+)/u;

/** Parses stub_status text; null when it is not stub_status output. */
export function parseStubStatus(text: string): StubStatus | null {
  const m = STUB_STATUS.exec(text);
  if (!m) return null;
  const [active, accepted, handled, requests, reading, writing, waiting] = m.slice(1).map(Number);
  return { active, accepted, handled, requests, reading, writing, waiting };
}

/** Fetches and parses stub_status; null on any failure. */
export async function fetchStubStatus(url: string, timeoutMs = 2000): Promise<StubStatus | null> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    return res.ok ? parseStubStatus(text) : null;
  } catch {
    return null;
  }
}

/** Registers the connection metrics; each scrape reads `read()` once. */
export function registerNginxStatusMetrics(registry: Registry, read: () => Promise<StubStatus | null>): void {
  const prefix = 'nginx_ingress_controller_nginx_process_';
  let pending: Promise<StubStatus | null> | null = null;
  // The three metrics collect in parallel on one scrape: share one read.
  const readOnce = (): Promise<StubStatus | null> => {
    pending ??= read().finally(() => { pending = null; });
    return pending;
  };
  const connections = new Gauge({
    name: `${prefix}connections`, help: 'current number of client connections with state {active, reading, writing, waiting}',
    labelNames: ['state'], registers: [registry],
    async collect() {
      const s = await readOnce();
      if (!s) return;
      for (const state of ['active', 'reading', 'writing', 'waiting'] as const) connections.set({ state }, s[state]);
    },
  });
  // stub_status gives running totals: the counters mirror them.
  const mirror = (counter: Counter<string>, labels: Record<string, string>, value: number): void => {
    counter.remove(labels);
    counter.inc(labels, value);
  };
  const connectionsTotal: Counter<string> = new Counter({
    name: `${prefix}connections_total`, help: 'total number of connections with state {accepted, handled}',
    labelNames: ['state'], registers: [registry],
    async collect() {
      const s = await readOnce();
      if (!s) return;
      mirror(connectionsTotal, { state: 'accepted' }, s.accepted);
      mirror(connectionsTotal, { state: 'handled' }, s.handled);
    },
  });
  const requestsTotal: Counter<string> = new Counter({
    name: `${prefix}requests_total`, help: 'total number of client requests',
    registers: [registry],
    async collect() {
      const s = await readOnce();
      if (s) mirror(requestsTotal, {}, s.requests);
    },
  });
}
