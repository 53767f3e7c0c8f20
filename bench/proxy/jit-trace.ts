// Reads LuaJIT's jit.v output and answers, per request-path phase, whether
// its Lua was compiled into a trace. The request path is the balancer
// (balancer_by_lua: balance, the route of route.lua, the redirect check of
// https_redirect.lua, a canary policy's choice in canary.lua, the picker's
// find) and, for EWMA backends only, the log phase (log_by_lua: feedback to
// EWMA; it reads route.lua's `of` too, counted with the balancer). A phase
// counts as compiled when a trace that completed starts in its ngx_lua chunk
// or where a trace of one of the functions only that phase runs can start:
// the function's entry (its `function` line) or a loop in it. Only those lines, not the whole
// body: jit.v names files without their folder, and lua-resty-core has a
// balancer.lua too (ngx/balancer.lua, whose set_current_peer trace starts
// inside our log()'s line range). Traces elsewhere (worker poll, resty.core
// internals) are not attributed. Aborted traces are kept with their reason:
// they say what LuaJIT could not compile.

export type Phase = 'balance' | 'log';
const ALL_PHASES: readonly Phase[] = ['balance', 'log'];

/** Lua files (lua/resty_ingress/) holding request-path functions; their source goes to readJitTrace. */
export const REQUEST_PATH_FILES: readonly string[] = ['balancer.lua', 'route.lua', 'https_redirect.lua', 'canary.lua', 'round_robin.lua', 'ewma.lua'];

// Per phase, per file: the functions only that phase runs (sync/refresh run on the worker's timer, not here).
const PHASE_FUNCTIONS: Readonly<Record<Phase, Readonly<Record<string, readonly string[]>>>> = {
  balance: {
    'balancer.lua': ['balance', 'balance_try', 'pick_retry', 'pick_route'],
    'route.lua': ['of'],
    'https_redirect.lua': ['redirects', 'covers'],
    'canary.lua': ['chooses', 'by_header'],
    'round_robin.lua': ['find'],
    'ewma.lua': ['find'],
  },
  log: { 'balancer.lua': ['log'], 'ewma.lua': ['feedback'] },
};
// ngx_lua names a phase's inline chunk after its directive: `balancer_by_lua(nginx.conf:63)`.
const PHASE_CHUNK: Readonly<Record<Phase, string>> = { balance: 'balancer_by_lua', log: 'log_by_lua' };

export interface PhaseTraces {
  readonly compiled: number;
  readonly aborted: readonly string[];
}

export type JitReport = Readonly<Record<Phase, PhaseTraces>>;

/** The phases the rendered conf runs Lua in for a proxied request: the balancer, and log only where a log_by_lua exists. */
export function requestPathPhases(conf: string): Phase[] {
  return ALL_PHASES.filter((phase) => conf.includes(`${PHASE_CHUNK[phase]}_block`));
}

/** Line range [first, last] of a top-level `function _M.name(`, `function _M:name(` or `local function name(`. */
export function functionRange(source: string, name: string): [number, number] | null {
  const lines = source.split('\n');
  const starts = [`function _M.${name}(`, `function _M:${name}(`, `local function ${name}(`];
  const first = lines.findIndex((l) => starts.some((s) => l.startsWith(s)));
  if (first < 0) return null;
  const last = lines.findIndex((l, i) => i > first && l.startsWith('end'));
  return [first + 1, last < 0 ? lines.length : last + 1];
}

/** Lines where a trace of the function can start: its `function` line and each loop in its body. */
export function traceStartLines(source: string, range: [number, number]): number[] {
  const lines = source.split('\n');
  const loops = lines.slice(range[0], range[1]).flatMap((text, i) => (/^\s*(for|while|repeat)\b/.test(text) ? [range[0] + 1 + i] : []));
  return [range[0], ...loops];
}

/** File name → line where a trace starts → the phase that runs it. */
type StartLines = ReadonlyMap<string, ReadonlyMap<number, Phase>>;

function startLinesOf(sources: Readonly<Record<string, string>>): StartLines {
  const starts = new Map<string, Map<number, Phase>>();
  for (const phase of ALL_PHASES) {
    for (const [file, names] of Object.entries(PHASE_FUNCTIONS[phase])) {
      const source = sources[file];
      if (source === undefined) throw new Error(`jit-trace: no source given for ${file}`);
      const lines = starts.get(file) ?? new Map<number, Phase>();
      starts.set(file, lines);
      for (const name of names) {
        const range = functionRange(source, name);
        if (range === null) throw new Error(`jit-trace: ${file} has no function ${name}; update PHASE_FUNCTIONS`);
        for (const line of traceStartLines(source, range)) lines.set(line, phase);
      }
    }
  }
  return starts;
}

// [TRACE   3 balancer.lua:78 return]   [TRACE --- balancer.lua:78 -- NYI: ... at ...]
// [TRACE   5 (2/1) balancer.lua:90 -> 3]  (side traces carry "(parent/exit)")
const TRACE_LINE = /^\[TRACE\s+(\d+|---)\s+(?:\(\d+\/\d+\)\s+)?(\S+?):(\d+)(.*)\]$/;

function phaseOf(location: string, line: number, starts: StartLines): Phase | null {
  const chunkPhase = ALL_PHASES.find((phase) => location.startsWith(`${PHASE_CHUNK[phase]}(`));
  if (chunkPhase !== undefined) return chunkPhase;
  return starts.get(location.slice(location.lastIndexOf('/') + 1))?.get(line) ?? null;
}

/**
 * Classifies every root or side trace jit.v reported by the phase it starts
 * in. `sources`: file name → Lua source, for every REQUEST_PATH_FILES entry.
 */
export function readJitTrace(output: string, sources: Readonly<Record<string, string>>): JitReport {
  const starts = startLinesOf(sources);
  const report: Record<Phase, { compiled: number; aborted: string[] }> = {
    balance: { compiled: 0, aborted: [] }, log: { compiled: 0, aborted: [] },
  };
  for (const raw of output.split('\n')) {
    const match = TRACE_LINE.exec(raw.trim());
    if (match === null) continue;
    const phase = phaseOf(match[2] ?? '', Number(match[3]), starts);
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

/** "balance yes (2 aborts, mostly: NYI: return to lower frame at https_redirect.lua:85)" for the given phases. */
export function describeJit(report: JitReport, phases: readonly Phase[]): string {
  return phases.map((phase) => {
    const { compiled, aborted } = report[phase];
    const why = aborted.length > 0 ? ` (${aborted.length} aborts, mostly: ${mostCommon(aborted)})` : '';
    return `${phase} ${compiled > 0 ? 'yes' : 'no'}${why}`;
  }).join(', ');
}
