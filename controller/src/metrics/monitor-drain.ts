// Moves per-request data from NGINX into the registry. Each NGINX worker
// aggregates requests per label set and, every second, appends its batch to
// a shared-dict list (lua/resty_ingress/monitor.lua); this drains the list
// with GET /configuration/metrics on the loopback status server, every
// second and before each scrape. Pulling keeps NGINX free of any outbound
// connection and the workers free of addressing: the shared dict is the one
// place every worker can reach. A drain that fails loses nothing (the list
// keeps filling up to its cap, then NGINX counts what it drops).

import type { Logger } from 'pino';
import { parseMonitorPayload } from './monitor-payload.ts';
import type { RequestMetrics } from './request-metrics.ts';

export interface MonitorDrainOptions {
  /** The status server, e.g. http://127.0.0.1:10246. */
  readonly statusUrl: string;
  readonly metrics: RequestMetrics;
  readonly logger: Logger;
  /** Pause between drains (default 1000 ms). */
  readonly intervalMs?: number;
}

export interface MonitorDrain {
  /** Drains once now; resolves when the data is in the registry (never rejects). */
  drain(): Promise<void>;
  stop(): void;
}

export function startMonitorDrain(options: MonitorDrainOptions): MonitorDrain {
  const url = `${options.statusUrl.replace(/\/+$/u, '')}/configuration/metrics`;
  let running: Promise<void> | null = null;
  let failing = false;

  const drainOnce = async (): Promise<void> => {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      const body = await res.text();
      if (!res.ok) throw new Error(`HTTP ${res.status}: ${body.slice(0, 200)}`);
      options.metrics.ingest(parseMonitorPayload(body));
      failing = false;
    } catch (err) {
      // NGINX restarting is normal; say it once, not every second.
      if (!failing) options.logger.debug({ err: err instanceof Error ? err.message : String(err) }, 'draining request metrics failed');
      failing = true;
    }
  };
  const drain = (): Promise<void> => {
    running ??= drainOnce().finally(() => { running = null; });
    return running;
  };
  const timer = setInterval(() => { void drain(); }, options.intervalMs ?? 1000);
  timer.unref();
  return {
    drain,
    stop: () => clearInterval(timer),
  };
}
