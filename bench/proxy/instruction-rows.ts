// The callgrind runs of the proxy benchmark and their rows: ours ÷ native in
// user-space instructions per request on each route wrk's requests can take
// (the plain location, the same location with a canary by header, and by
// weight, and with cookie affinity for a returning session), and the
// ablations that price pieces of ours (plain route only). Affinity, like a
// canary, is pushed to Lua: the native reference is the same conf.
// A canary adds nothing to nginx.conf (its policy is pushed to Lua), so the
// native reference is the same conf; it serves the same requests as ours
// (the canary header too), so a row prices what we do with them. A canary
// row counts only when the metrics log shows the policy sent the requests
// where it should: else its value is null and the note says why.
import type { Model } from '../../controller/src/model/types.ts';
import type { BenchContext } from '../lib/context.ts';
import { metric, type Goal, type Metric } from '../lib/report.ts';
import { countInstructions, type CanarySplitCount, type InstructionCount, type InstructionWindows } from './instruction-count.ts';
import { BENCH_ROUTES, NATIVE_KEEPS, ROUTE_HEADERS, type BenchRoute } from './proxy-model.ts';
import type { SideLabel, SideSpec } from './reference-conf.ts';

/** Pay for what you use: a canary route may cost at most this much of native. */
export const CANARY_GOAL: Goal = { on: 'ratio', op: '<=', target: 1.25 };
/** Basic auth with valid credentials (issue 26's goal): at most this much of native. */
export const AUTH_GOAL: Goal = { on: 'ratio', op: '<=', target: 1.3 };

export interface InstructionRun {
  /** `ours`, `native`, … on the plain route; `<side>, <route>` on another. */
  readonly name: string;
  readonly side: SideLabel;
  readonly route: BenchRoute;
}

/** What a run is called in the notes and the raw results. */
export function runName(side: SideLabel, route: BenchRoute): string {
  return route === 'plain' ? side : `${side}, ${route}`;
}

/** Access control and CORS on a route may cost at most this much of native (the same NGINX directives, without our Lua). */
export const ACCESS_GOAL: Goal = { on: 'ratio', op: '<=', target: 1.3 };

/**
 * The route whose native run serves the same requests as `route`: native has no Lua (canary,
 * hashing, EWMA: only the headers differ), but it keeps the NGINX directives of NATIVE_KEEPS.
 */
function nativeRouteOf(route: BenchRoute): BenchRoute {
  if (NATIVE_KEEPS.has(route)) return route;
  const headers = ROUTE_HEADERS[route].join('\n');
  return BENCH_ROUTES.find((r) => ROUTE_HEADERS[r].join('\n') === headers) ?? route;
}

/**
 * The runs for `sides` (on the plain route) and `routes`: ours on each route,
 * native once per distinct request; ablations stay on the plain route.
 */
export function instructionRuns(sides: readonly SideLabel[], routes: readonly BenchRoute[]): InstructionRun[] {
  const runs: InstructionRun[] = sides.map((side) => ({ name: side, side, route: 'plain' }));
  for (const route of routes.filter((r) => r !== 'plain')) {
    for (const [side, runRoute] of [['ours', route], ['native', nativeRouteOf(route)]] as const) {
      const name = runName(side, runRoute);
      if (!runs.some((run) => run.name === name)) runs.push({ name, side, route: runRoute });
    }
  }
  return runs;
}

/** The canary's share of a route's requests when its policy works: by header (`always`) 1, by weight weight ÷ max(100, total). */
export function expectedCanaryShare(route: BenchRoute, model: Model): number {
  if (route !== 'canary-by-header' && route !== 'canary-by-weight') return 0;
  if (route === 'canary-by-header') return 1;
  const split = model.routes[0]?.canary;
  if (split === undefined) throw new Error(`the ${route} model has no route policy`);
  return split.weight / Math.max(100, split.weightTotal);
}

/**
 * Whether the metrics log's split matches `share`: all (but the start-up probe,
 * sent without the header) for 1, none for 0, else within four standard
 * deviations of a binomial draw (and one request).
 */
export function splitAsExpected(split: CanarySplitCount | null, share: number): boolean {
  if (split === null || split.requests < 10) return false;
  const got = split.canary / split.requests;
  if (share === 1) return split.canary >= split.requests - 1;
  if (share === 0) return split.canary === 0;
  return Math.abs(got - share) <= 4 * Math.sqrt((share * (1 - share)) / split.requests) + 1 / split.requests;
}

/** Runs each callgrind side in turn; counts by run name. */
export async function countRuns(ctx: BenchContext, windows: InstructionWindows, runs: readonly InstructionRun[],
  specOf: (side: SideLabel) => SideSpec, modelOf: (route: BenchRoute) => Model): Promise<Map<string, InstructionCount>> {
  const counts = new Map<string, InstructionCount>();
  for (const run of runs) {
    const count = await countInstructions(ctx, modelOf(run.route), specOf(run.side), windows, ROUTE_HEADERS[run.route], run.name.replace(/\W+/g, '-'));
    const split = count.split === null ? '' : `, ${count.split.canary} of ${count.split.requests} logged requests to the canary`;
    ctx.log(`instructions ${run.name}: ${Math.round(count.perRequest)} per request (${count.requests} requests, ${Math.round(count.idlePerSecond)}/s in the background${split})`);
    counts.set(run.name, count);
  }
  return counts;
}

/** `allOk`: the row counts only when every logged request was answered 2xx (authentication let them all in). */
const CANARY_ROWS: readonly { route: BenchRoute; name: string; goal?: Goal; allOk?: boolean }[] = [
  { route: 'canary-by-header', name: 'user-space instructions per request, canary by header (`always`: every request to the canary)' },
  { route: 'canary-by-weight', name: 'user-space instructions per request, canary by weight (50 of 100)' },
  // No canary: its split check (none to a canary, requests logged on the route) proves the run served the location.
  { route: 'cookie-affinity', name: 'user-space instructions per request, cookie affinity (returning session)' },
  { route: 'hash-by-uri', name: 'user-space instructions per request, hash by $request_uri (upstream-hash-by; wrk\'s one URI: one endpoint)' },
  { route: 'ewma', name: 'user-space instructions per request, EWMA (load-balance ewma, with its Lua log phase)' },
  // Native is the same conf without the Lua access phase (no authentication at all), serving the same requests.
  {
    route: 'basic-auth', name: 'user-space instructions per request, basic auth (valid credentials; bcrypt checked once, then remembered)',
    goal: AUTH_GOAL, allOk: true,
  },
];

/** The canary rows (ours ÷ native, goal CANARY_GOAL) and a note per row on its split. */
export function canaryRows(counts: ReadonlyMap<string, InstructionCount>, modelOf: (route: BenchRoute) => Model): { metrics: Metric[]; notes: string[] } {
  const metrics: Metric[] = [];
  const notes: string[] = [];
  for (const row of CANARY_ROWS) {
    const ours = counts.get(runName('ours', row.route));
    const native = counts.get(runName('native', nativeRouteOf(row.route)));
    if (ours === undefined || native === undefined) continue;
    const share = expectedCanaryShare(row.route, modelOf(row.route));
    const split = ours.split;
    const answered = row.allOk !== true || (split !== null && split.ok === split.requests);
    const ok = splitAsExpected(split, share) && answered;
    const answeredText = row.allOk === true && split !== null ? `, ${split.ok} answered 2xx` : '';
    const seen = split === null ? 'no metrics log' : `${split.canary} of ${split.requests} logged requests to the canary${answeredText}`;
    const why = answered ? 'the policy did not split as configured' : 'not every request got in';
    notes.push(`${row.route}: ${seen} (expected a share of ${share})${ok ? '' : `: ${why}, so the row has no value`}`);
    metrics.push(metric(row.name, 'instr', ok ? ours.perRequest : null, native.perRequest, 'native, same requests', row.goal ?? CANARY_GOAL));
  }
  return { metrics, notes };
}

const ACCESS_ROWS: readonly { route: BenchRoute; name: string }[] = [
  { route: 'allow-list', name: 'user-space instructions per request, allow-list hit (wrk\'s address on the third of three rules)' },
  { route: 'cors-simple', name: 'user-space instructions per request, CORS simple request (an Origin of the list, echoed)' },
  { route: 'limit-rps', name: 'user-space instructions per request, limit-rps under the limit (native: limit_req keyed by the address alone)' },
];

/**
 * The access rows (ours ÷ native on the same conf, goal ACCESS_GOAL) and a note per row. A row counts
 * only when every measured request was answered 2xx/3xx (a refused request would cost less).
 */
export function accessRows(counts: ReadonlyMap<string, InstructionCount>): { metrics: Metric[]; notes: string[] } {
  const metrics: Metric[] = [];
  const notes: string[] = [];
  for (const row of ACCESS_ROWS) {
    const ours = counts.get(runName('ours', row.route));
    const native = counts.get(runName('native', row.route));
    if (ours === undefined || native === undefined) continue;
    const ok = ours.failed === 0 && native.failed === 0;
    notes.push(`${row.route}: ${ours.failed} failed requests of ours, ${native.failed} of native${ok ? '' : ': the row has no value'}`);
    metrics.push(metric(row.name, 'instr', ok ? ours.perRequest : null, native.perRequest, 'native, same conf and requests', ACCESS_GOAL));
  }
  return { metrics, notes };
}
