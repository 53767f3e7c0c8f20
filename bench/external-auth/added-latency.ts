// The external-auth benchmark's rows: the latency an auth subrequest adds,
// p50 and p99 of the protected route minus the same percentile of the plain
// route, from requests interleaved on one keep-alive connection to one NGINX
// (so whatever the machine does meanwhile falls on both routes alike). A row
// has a value only when the run proves it measured what it says: every
// request answered 200, and the auth service answered exactly one
// subrequest per request of the protected route (none of the plain route's).
// Issue 26 asks for the figures, not a goal: the rows have none.
import { metric, type Distribution, type Metric } from '../lib/report.ts';
import { percentile } from '../lib/stats.ts';

/** What one run of interleaved requests gives. */
export interface AuthLatencySamples {
  /** Milliseconds per request of the plain route (request written to response read). */
  readonly plain: readonly number[];
  /** The same, of the route with external auth. */
  readonly auth: readonly number[];
  /** Requests of either route not answered 200 (or not answered at all). */
  readonly failed: number;
  /** Requests the auth service served over the measured requests (its stub_status), or null when unread. */
  readonly asked: number | null;
}

/** Fewer samples than this per route: no percentile worth a row (p99 of 20 is the maximum). */
export const MIN_SAMPLES = 20;
const CHART_PERCENTILES = [50, 75, 90, 95, 99, 99.9];

/** Why the run's figures do not count, or null when they do. */
export function invalidReason(samples: AuthLatencySamples): string | null {
  const { plain, auth, failed, asked } = samples;
  if (plain.length < MIN_SAMPLES || auth.length < MIN_SAMPLES) return `too few requests (${plain.length} plain, ${auth.length} with auth; at least ${MIN_SAMPLES} each)`;
  if (failed > 0) return `${failed} requests not answered 200`;
  if (asked === null) return 'the auth service\'s request count could not be read';
  if (asked !== auth.length) return `the auth service served ${asked} requests for ${auth.length} protected ones`;
  return null;
}

/** The two rows (added ms at p50 and p99, reference the plain route's same percentile) and the run's note. */
export function addedLatencyRows(samples: AuthLatencySamples): { metrics: Metric[]; notes: string[] } {
  const why = invalidReason(samples);
  const at = (p: number): { plain: number; auth: number } => ({ plain: percentile(samples.plain, p), auth: percentile(samples.auth, p) });
  const metrics = ([50, 99] as const).map((p) => {
    const { plain, auth } = at(p);
    return metric(`external auth: latency the subrequest adds at p${p} (protected route − plain route, interleaved on one keep-alive connection; auth service answering 200)`,
      'ms', why === null ? auth - plain : null, Number.isFinite(plain) ? plain : null, `plain route p${p}, same run`);
  });
  const ms = (value: number): string => value.toFixed(3);
  const figures = `plain p50/p99 ${ms(at(50).plain)}/${ms(at(99).plain)} ms, with auth ${ms(at(50).auth)}/${ms(at(99).auth)} ms`;
  const proof = `${samples.failed} failed; the auth service served ${samples.asked ?? 'an unknown number of'} requests for ${samples.auth.length} protected ones`;
  const notes = [`external auth: ${samples.plain.length} + ${samples.auth.length} requests interleaved (order alternating per pair): ${figures}; ${proof}${why === null ? '' : `: ${why}, so the rows have no value`}`];
  return { metrics, notes };
}

/** Each route's latency at the chart's percentiles. */
export function authDistributions(samples: AuthLatencySamples): Distribution[] {
  const of = (label: string, values: readonly number[]): Distribution => ({
    label, points: CHART_PERCENTILES.map((p) => ({ percentile: p, ms: percentile(values, p) })),
  });
  return samples.plain.length === 0 ? [] : [of('plain route', samples.plain), of('external auth', samples.auth)];
}
