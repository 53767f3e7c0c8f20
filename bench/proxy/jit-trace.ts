// Reads LuaJIT's jit.v output and answers, per request-path phase, whether
// its Lua was compiled into a trace. A phase counts as compiled when a trace
// that completed starts in its ngx_lua chunk (`rewrite_by_lua(...)`), inside
// its function in balancer.lua, or (log) in the metrics modules. Aborted traces are kept with their
// reason: they say what LuaJIT could not compile.

export type Phase = 'rewrite' | 'balance' | 'log';
export const PHASES: readonly Phase[] = ['rewrite', 'balance', 'log'];

export interface PhaseTraces {
  readonly compiled: number;
  readonly aborted: readonly string[];
}

export type JitReport = Readonly<Record<Phase, PhaseTraces>>;

/** Line ranges [first, last] of `function _M.<phase>()` in balancer.lua, found by reading its source. */
export function phaseRanges(balancerSource: string): Record<Phase, [number, number] | null> {
  const lines = balancerSource.split('\n');
  const rangeOf = (name: string): [number, number] | null => {
    const first = lines.findIndex((l) => l.startsWith(`function _M.${name}(`));
    if (first < 0) return null;
    const last = lines.findIndex((l, i) => i > first && l.startsWith('end'));
    return [first + 1, last < 0 ? lines.length : last + 1];
  };
  return { rewrite: rangeOf('rewrite'), balance: rangeOf('balance'), log: rangeOf('log') };
}

// Modules that run only in the log phase (request metrics); add one here when the log phase grows.
const LOG_PHASE_FILES = ['log_phase.lua', 'monitor.lua'];
const CHUNK_PHASE: Record<string, Phase> = { rewrite_by_lua: 'rewrite', balancer_by_lua: 'balance', log_by_lua: 'log' };
// [TRACE   3 balancer.lua:78 return]   [TRACE --- balancer.lua:78 -- NYI: ... at ...]
// [TRACE   5 (2/1) balancer.lua:90 -> 3]  (side traces carry "(parent/exit)")
const TRACE_LINE = /^\[TRACE\s+(\d+|---)\s+(?:\(\d+\/\d+\)\s+)?(\S+?):(\d+)(.*)\]$/;

function phaseOf(location: string, line: number, ranges: Record<Phase, [number, number] | null>): Phase | null {
  for (const [prefix, phase] of Object.entries(CHUNK_PHASE)) {
    if (location.startsWith(`${prefix}(`)) return phase;
  }
  if (LOG_PHASE_FILES.some((file) => location.endsWith(file))) return 'log';
  if (!location.endsWith('balancer.lua')) return null;
  for (const phase of PHASES) {
    const range = ranges[phase];
    if (range !== null && line >= range[0] && line <= range[1]) return phase;
  }
  return null;
}

/** Classifies every root or side trace jit.v reported by the phase it starts in. */
export function readJitTrace(output: string, balancerSource: string): JitReport {
  const ranges = phaseRanges(balancerSource);
  const report: Record<Phase, { compiled: number; aborted: string[] }> = {
    rewrite: { compiled: 0, aborted: [] }, balance: { compiled: 0, aborted: [] }, log: { compiled: 0, aborted: [] },
  };
  for (const raw of output.split('\n')) {
    const match = TRACE_LINE.exec(raw.trim());
    if (match === null) continue;
    const phase = phaseOf(match[2] ?? '', Number(match[3]), ranges);
    if (phase === null) continue;
    if (match[1] === '---') report[phase].aborted.push((match[4] ?? '').replace(/^\s*--\s*/, ''));
    else report[phase].compiled += 1;
  }
  return report;
}

function mostCommon(reasons: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
}

/** "rewrite yes, balance yes, log yes (7 aborts, mostly: inner loop in root trace at monitor.lua:70)". */
export function describeJit(report: JitReport): string {
  return PHASES.map((phase) => {
    const { compiled, aborted } = report[phase];
    const why = aborted.length > 0 ? ` (${aborted.length} aborts, mostly: ${mostCommon(aborted)})` : '';
    return `${phase} ${compiled > 0 ? 'yes' : 'no'}${why}`;
  }).join(', ');
}
