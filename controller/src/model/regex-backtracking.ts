// Regex paths NGINX's PCRE2 could spend super-linear time on: `/(a+)+$`
// with a crafted URI costs ~0.3 s of a worker per request, stalling every
// host that worker serves. redos-detector (pure JavaScript, maintained) looks
// for two ways through the pattern that match the same text, which is what
// makes a backtracking engine's work grow faster than the URI: it checks the
// pattern as NGINX compiles the location, `~* "^<path>"` (anchored,
// case-insensitive). It is conservative: an ambiguity it cannot bound is a
// refusal, with the part to rewrite named (`[^/]*` instead of `.*` usually
// removes it).
//
// Cost: most paths take 1-100 ms, a hostile one as long as the library is let
// run, and the builder is synchronous. So each check stops after
// REGEX_CHECK_MAX_STEPS steps (deterministic) or REGEX_CHECK_TIMEOUT_MS, one
// Ingress's paths share REGEX_CHECK_BUDGET_MS, and verdicts are remembered per
// path string (the same pattern in 10k Ingresses is checked once). These time
// bounds are the model's one use of a clock: they can only refuse. A path that
// times out is refused for good (realistic paths take < 200 ms: the bound is 5×
// that); one left unchecked because its Ingress's budget ran out
// (RegexNotChecked) is not remembered, here or by the builder's translation
// cache, so each build checks a few more.
// A pattern with no alternative and at most one quantifier cannot backtrack
// more than once per URI character: it skips the library.

import { isSafePattern, type RedosDetectorResult } from 'redos-detector';
import { accept, refuse, type Checked } from './checked.ts';

/** Steps one check may take; realistic paths need 200-1,000, a hostile one hits it. */
export const REGEX_CHECK_MAX_STEPS = 1000;
/** Time one check may take even when its steps are slow (long patterns); realistic paths take < 200 ms. */
export const REGEX_CHECK_TIMEOUT_MS = 1000;
/** Time the new regex paths of one Ingress may take together. */
export const REGEX_CHECK_BUDGET_MS = 2000;
/** How a refusal for want of time starts: not a verdict on the path (isNotChecked). */
const NOT_CHECKED = 'regex path not checked';

/** True for a refusal for want of time: the next build checks the path again (the builder must not keep it). */
export function isNotChecked(reason: string): boolean {
  return reason.startsWith(NOT_CHECKED);
}
/** Verdicts remembered (oldest forgotten first). */
const MEMO_LIMIT = 10_000;

/** The time left for one Ingress's regex checks. */
export interface RegexCheckBudget {
  remainingMs: number;
}

/** A fresh budget for one Ingress. */
export function newRegexCheckBudget(): RegexCheckBudget {
  return { remainingMs: REGEX_CHECK_BUDGET_MS };
}

const verdicts = new Map<string, Checked<string>>();

function remember(path: string, verdict: Checked<string>): Checked<string> {
  if (verdicts.size >= MEMO_LIMIT) verdicts.delete(verdicts.keys().next().value as string);
  verdicts.set(path, verdict);
  return verdict;
}

/** No `|` and at most one quantifier: a backtracking engine gives back at most one character at a time. */
function obviouslyLinear(path: string): boolean {
  if (path.includes('|')) return false;
  const quantifiers = path.replaceAll('(?', '(').match(/[*+?]/gu);
  return quantifiers === null || quantifiers.length <= 1;
}

const snippet = (source: string): string => (source.length > 40 ? `${source.slice(0, 37)}...` : source);

/** The quantifiers the first trail found ambiguous, outermost first. */
function ambiguousParts(result: RedosDetectorResult): string {
  const last = result.trails[0]?.trail.at(-1);
  if (last === undefined) return '';
  const sides = [last.a, last.b].map((side) => side.quantifierIterations[0]?.node.source ?? side.node.source);
  const [a = '', b = ''] = sides;
  return a === b ? ` (\`${snippet(a)}\` can match the same text in many ways)` : ` (\`${snippet(a)}\` and \`${snippet(b)}\` can match the same text)`;
}

function verdictOf(path: string, result: RedosDetectorResult): Checked<string> | null {
  if (result.safe) return accept(path);
  if (result.error === 'timedOut') return null;
  if (result.error === 'hitMaxSteps') {
    return refuse('regex path is too complex to prove free of catastrophic backtracking; simplify it');
  }
  return refuse(`regex path can backtrack super-linearly in NGINX${ambiguousParts(result)}; use e.g. [^/]* instead of .*`);
}

/** Accepts a regex path NGINX can match in time linear in the URI; spends from `budget` when it has to check. */
export function checkBacktracking(path: string, budget: RegexCheckBudget): Checked<string> {
  const known = verdicts.get(path);
  if (known !== undefined) return known;
  if (obviouslyLinear(path)) return remember(path, accept(path));
  if (budget.remainingMs <= 0) {
    return refuse(`${NOT_CHECKED}: this Ingress's regex paths took over ${REGEX_CHECK_BUDGET_MS} ms to check; use fewer or simpler ones`);
  }
  const started = performance.now();
  let result: RedosDetectorResult;
  try {
    result = isSafePattern(`^${path}`, {
      caseInsensitive: true,
      maxSteps: REGEX_CHECK_MAX_STEPS,
      timeout: Math.min(REGEX_CHECK_TIMEOUT_MS, budget.remainingMs),
    });
  } catch {
    // The library's parser is stricter than RegExp in places: what it cannot read is not proven safe.
    return remember(path, refuse('regex path could not be checked for catastrophic backtracking; simplify it'));
  } finally {
    budget.remainingMs -= performance.now() - started;
  }
  // A time-out is remembered too: otherwise every build would spend it again on the same path.
  return remember(path, verdictOf(path, result)
    ?? refuse(`regex path could not be checked within ${REGEX_CHECK_TIMEOUT_MS} ms for catastrophic backtracking; simplify it`));
}
