// Where a new Ingress's time goes on the serve-first path (pending hosts,
// docs/performance.md "Serve first, materialize later"), from the bench's
// own clock at the API write and the first 200, and the controller's sync
// log line of the sync that pushed the pending set (sync.ts): `kickedAt`
// (the first object change it carries, as the informer delivered it),
// `waitedMs`, then either the preview of the added Ingresses alone
// (`previewMs`, `previewBuildMs`, `previewBackendsMs`: sync/preview-push.ts)
// or the full build's `buildMs` and `applyMs`, and `pendingPostMs`,
// `pendingWorkersMs`. Both clocks are Date.now() of one machine.
import { median } from '../lib/stats.ts';

/** One new Ingress: wall-clock ms of its API write and of its host's first 200 through NGINX. */
export interface RouteTiming {
  readonly writtenAt: number;
  readonly servedAt: number;
  /** False for the synthetic cluster's every tenth app, whose Ingress carries annotations: it waits for its reload by design. */
  readonly plain?: boolean;
}

/** Its phases in ms, in order; they add up to `total` (write → first 200). */
export interface ServePhases {
  /** API write → the controller's informer delivered the first change this sync carries (absent: that change came before the write). */
  readonly informerMs: number | null;
  /** Of it, the time another sync of the controller was running (its build or render holds the event loop the event waits for). */
  readonly informerBusyMs: number;
  /** → the sync started (a sync still running, the queue's rate limit). */
  readonly queueMs: number;
  readonly buildMs: number;
  /** Backends and other dynamic state pushed first (the new Service's backend). */
  readonly backendsMs: number;
  /** POST /configuration/pending: Lua parses and stores the set. */
  readonly postMs: number;
  /** → every worker holds it (their poll). */
  readonly workersMs: number;
  /** → the first 200 the bench's probe saw (5 ms probes). */
  readonly probeMs: number;
  readonly total: number;
  /** Object changes the sync coalesced (1: only this Ingress). */
  readonly kicks: number;
  /** Pushed ahead of the full build (the preview of the added Ingresses), or after it. */
  readonly via: 'preview' | 'full build';
}

type LogLine = Readonly<Record<string, unknown>>;

const num = (line: LogLine, name: string): number => Number(line[name]);
/** When the sync started: its own stamp (the line is written after the sync hooks ran), else the line's time less its duration. */
const startOf = (line: LogLine): number => (Number.isFinite(num(line, 'startedAt')) ? num(line, 'startedAt') : num(line, 'time') - num(line, 'ms'));

/** The phases of `route`, or null when no pending push came between its write and its first 200 (it was served by a reload). */
export function servePhases(route: RouteTiming, lines: readonly LogLine[]): ServePhases | null {
  const sync = lines.find((l) => l.msg === 'sync' && (l.pending !== undefined || l.preview !== undefined)
    && startOf(l) >= route.writtenAt && startOf(l) <= route.servedAt);
  if (sync === undefined) return null;
  const start = startOf(sync);
  const previewed = sync.preview !== undefined;
  const kickedAt = Number.isFinite(num(sync, 'kickedAt')) ? num(sync, 'kickedAt') : start;
  const informerMs = kickedAt >= route.writtenAt ? kickedAt - route.writtenAt : null;
  const busy = (from: number, to: number): number => lines.filter((l) => l.msg === 'sync' && l !== sync)
    .reduce((sum, l) => sum + Math.max(0, Math.min(to, startOf(l) + num(l, 'ms')) - Math.max(from, startOf(l))), 0);
  const postMs = num(sync, 'pendingPostMs');
  const workersMs = num(sync, 'pendingWorkersMs');
  const held = start + (previewed ? num(sync, 'previewMs') : num(sync, 'buildMs') + num(sync, 'applyMs'));
  return {
    informerMs,
    informerBusyMs: informerMs === null ? 0 : busy(route.writtenAt, kickedAt),
    queueMs: start - (informerMs === null ? route.writtenAt : kickedAt),
    buildMs: num(sync, previewed ? 'previewBuildMs' : 'buildMs'),
    backendsMs: previewed ? num(sync, 'previewBackendsMs') : num(sync, 'applyMs') - postMs - workersMs,
    postMs, workersMs,
    probeMs: route.servedAt - held,
    total: route.servedAt - route.writtenAt,
    kicks: Number.isFinite(num(sync, 'kicks')) ? num(sync, 'kicks') : 0,
    via: previewed ? 'preview' : 'full build',
  };
}

export const PHASE_NAMES = ['informerMs', 'informerBusyMs', 'queueMs', 'buildMs', 'backendsMs', 'postMs', 'workersMs', 'probeMs'] as const;

/** Each phase's median over `phases` (a null informer phase counts as 0: the change was already queued). */
export function medianPhases(phases: readonly ServePhases[]): Record<(typeof PHASE_NAMES)[number] | 'total', number> {
  const of = (pick: (p: ServePhases) => number): number => median(phases.map(pick));
  return {
    informerMs: of((p) => p.informerMs ?? 0), informerBusyMs: of((p) => p.informerBusyMs), queueMs: of((p) => p.queueMs), buildMs: of((p) => p.buildMs),
    backendsMs: of((p) => p.backendsMs), postMs: of((p) => p.postMs), workersMs: of((p) => p.workersMs),
    probeMs: of((p) => p.probeMs), total: of((p) => p.total),
  };
}

/** One line per route: "1,234 ms = informer 12 + queue 300 + build 400 + …". */
export function describePhases(phase: ServePhases | null): string {
  if (phase === null) return 'served by its reload (no pending push before its first 200)';
  const ms = (value: number | null): string => (value === null ? 'queued' : value.toFixed(0));
  const busy = phase.informerBusyMs > 0 ? ` (${ms(phase.informerBusyMs)} of it in another sync)` : '';
  return `${phase.total.toFixed(0)} ms = informer ${ms(phase.informerMs)}${busy} + queue ${ms(phase.queueMs)} + build ${ms(phase.buildMs)}`
    + ` + backends ${ms(phase.backendsMs)} + pending POST ${ms(phase.postMs)} + workers ${ms(phase.workersMs)} + probe ${ms(phase.probeMs)}`
    + ` (${phase.via}, ${phase.kicks} change${phase.kicks === 1 ? '' : 's'} in the sync)`;
}
