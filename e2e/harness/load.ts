// Continuous bounded load through NGINX: `rate` requests per second for
// `durationMs`, over keep-alive connections as a real client would hold
// them. Every answer is recorded (time, status, pod) so a test can check
// "zero non-2xx" and "traffic ends on the new pods only".
import { Agent, request as httpRequest } from 'node:http';

export interface LoadOptions {
  /** Base URL, e.g. controller.http */
  readonly url: string;
  /** Host header */
  readonly host: string;
  readonly path?: string;
  /** Requests per second (paced, not a flood: 2 cores also run NGINX, the API and the pods). */
  readonly rate: number;
  readonly durationMs: number;
  /** Most requests in flight; a tick that finds them all busy is counted as `skipped` (default 16). */
  readonly maxInFlight?: number;
  readonly timeoutMs?: number;
  /**
   * A new connection per request (default false: keep-alive). A reload closes the old workers'
   * idle keep-alive connections, and a request sent on one at that moment gets a reset, which
   * HTTP lets clients retry; a test about what NGINX serves across reloads, not about that, uses this.
   */
  readonly freshConnections?: boolean;
  /** Stops sending early (a probe that lasts as long as a fault); the report covers what was sent. */
  readonly signal?: AbortSignal;
}

export interface LoadSample {
  /** ms since the load started, when the answer (or error) arrived */
  readonly at: number;
  /** HTTP status, or 0 for a connection error / timeout */
  readonly status: number;
  readonly pod: string | null;
}

export interface LoadReport {
  readonly total: number;
  /** status → count; 0 = transport error */
  readonly statuses: Readonly<Record<number, number>>;
  /** Answers that were not 2xx, transport errors included. */
  readonly non2xx: number;
  /** Transport error messages (first 10). */
  readonly errors: readonly string[];
  /** Ticks skipped because maxInFlight requests were outstanding. */
  readonly skipped: number;
  /** Wall clock (Date.now()) when the load started; sample.at is relative to it. */
  readonly startedAt: number;
  readonly samples: readonly LoadSample[];
}

function once(agent: Agent, options: LoadOptions): Promise<{ status: number; pod: string | null; error?: string }> {
  return new Promise((resolve) => {
    const req = httpRequest(new URL(options.path ?? '/', options.url), {
      agent, headers: { host: options.host }, timeout: options.timeoutMs ?? 5_000,
    }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0, pod: typeof res.headers['x-pod'] === 'string' ? res.headers['x-pod'] : null }));
      res.once('error', (err) => resolve({ status: 0, pod: null, error: err.message }));
    });
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', (err) => resolve({ status: 0, pod: null, error: err.message }));
    req.end();
  });
}

/** Runs the load to completion (all in-flight requests answered) and reports. */
export async function loadLoop(options: LoadOptions): Promise<LoadReport> {
  if (!(options.rate > 0 && options.rate <= 2_000)) throw new Error(`loadLoop: rate must be in (0, 2000], got ${options.rate}`);
  if (!(options.durationMs > 0)) throw new Error(`loadLoop: durationMs must be > 0, got ${options.durationMs}`);
  const maxInFlight = options.maxInFlight ?? 16;
  const agent = new Agent({ keepAlive: options.freshConnections !== true, maxSockets: maxInFlight });
  const startedAt = Date.now();
  const samples: LoadSample[] = [];
  const errors: string[] = [];
  const pending = new Set<Promise<void>>();
  let skipped = 0;
  const intervalMs = 1000 / options.rate;
  try {
    for (let tick = 0; ; tick++) {
      const due = startedAt + tick * intervalMs;
      if (due - startedAt >= options.durationMs || options.signal?.aborted === true) break;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (pending.size >= maxInFlight) { skipped++; continue; }
      const sent = once(agent, options).then((result) => {
        samples.push({ at: Date.now() - startedAt, status: result.status, pod: result.pod });
        if (result.error && errors.length < 10) errors.push(result.error);
      });
      pending.add(sent);
      void sent.finally(() => pending.delete(sent));
    }
    await Promise.all(pending);
  } finally {
    agent.destroy();
  }
  const statuses: Record<number, number> = {};
  for (const sample of samples) statuses[sample.status] = (statuses[sample.status] ?? 0) + 1;
  const non2xx = samples.filter((s) => s.status < 200 || s.status > 299).length;
  return { total: samples.length, statuses, non2xx, errors, skipped, startedAt, samples };
}
