// ConfigMap block-user-agents / block-referers: comma-separated items that
// ingress-nginx v1.15.1 pastes into `map $http_user_agent $block_ua { <item> 1; }`
// (nginx.tmpl), so each item is what an NGINX map key is: `~regex` (case
// sensitive), `~*regex` (case insensitive), else a string compared whole and
// case-insensitively. Here each item is parsed into that typed key and printed
// only through the `qpattern` filter: a regex must compile alike in JavaScript
// and PCRE2 and pass the catastrophic-backtracking check (the header is the
// client's: a pathological pattern would stall a worker per request). What
// ingress-nginx pastes that NGINX reads otherwise (spaces outside quotes end the
// key, `;` the directive) is refused: a ConfigMap asking to block must not
// block nothing.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import { checkBacktracking, newRegexCheckBudget, type RegexCheckBudget } from '../regex-backtracking.ts';
import type { BlockPattern } from '../types.ts';
import { readAlike } from './canary.ts';

/** Items one list may hold, and characters one item: each is a map entry of every `nginx -t`. */
export const MAX_PATTERNS = 1000;
export const MAX_PATTERN_LENGTH = 512;

/** The map's own parameters: a key spelled so is read as one (NGINX compares them case-sensitively). */
const MAP_PARAMETERS = new Set(['default', 'hostnames', 'include', 'volatile']);

/** Go's strings.TrimSpace, as ingress-nginx's splitAndTrimSpace applies it. */
function trimSpace(text: string): string {
  return text.replace(/^[\t\n\v\f\r \u0085\u00a0]+|[\t\n\v\f\r \u0085\u00a0]+$/gu, '');
}

/**
 * The item as NGINX reads it when ingress-nginx pastes it: a whole-quoted item loses its quotes
 * (users quote keys with spaces); any other quote, a backslash escape NGINX would rewrite, or a
 * space, `;`, `{`, `}`, `#` outside quotes makes NGINX read something else (or nothing): refused.
 */
function asNginxReads(item: string): Checked<string> {
  const quoted = /^"([^"']*)"$|^'([^"']*)'$/u.exec(item);
  const text = quoted === null ? item : (quoted[1] ?? quoted[2] ?? '');
  if (quoted === null && /[\s;{}#"']/u.test(item)) return refuse(`${JSON.stringify(item.slice(0, 64))}: quote an item with spaces or ; { } # (and no quotes inside)`);
  if (!/^[\x20-\x7e]+$/u.test(text)) return refuse(`${JSON.stringify(item.slice(0, 64))}: only printable ASCII`);
  // NGINX turns \" \' \\ \t \n \r into other characters; a trailing backslash escapes the quote.
  if (/\\(?:["'\\tnr]|$)/u.test(text)) return unsupported(`${JSON.stringify(item.slice(0, 64))}: NGINX would read the escape \\", \\', \\\\, \\t, \\n or \\r as another character`);
  return accept(text);
}

function parseRegex(text: string, caseless: boolean, budget: RegexCheckBudget): Checked<BlockPattern> {
  const source = text.slice(caseless ? 2 : 1);
  if (source === '') return refuse('an empty regex');
  // PCRE's (?i) and friends: JavaScript reads them otherwise or not at all, so no check could vouch for them.
  if (source.includes('(?')) return unsupported(`${JSON.stringify(text.slice(0, 64))}: no (? groups`);
  try {
    new RegExp(source, 'u');
  } catch {
    return refuse(`${JSON.stringify(text.slice(0, 64))} is not a valid regex`);
  }
  if (!readAlike(source)) {
    return unsupported(`${JSON.stringify(text.slice(0, 64))}: only escapes JavaScript and PCRE read alike`);
  }
  const linear = checkBacktracking(source, budget);
  if (!linear.ok) return refuse(`${JSON.stringify(text.slice(0, 64))}: ${linear.reason.replace('regex path', 'regex')}`);
  return accept(Object.freeze({ kind: caseless ? 'regex-caseless' : 'regex', value: source }));
}

/** One item: a regex map key or an exact string; `budget`: the time its list's regex checks may still take. */
export function parseBlockPattern(item: string, budget: RegexCheckBudget = newRegexCheckBudget()): Checked<BlockPattern> {
  if (item.length > MAX_PATTERN_LENGTH) return unsupported(`an item of at most ${MAX_PATTERN_LENGTH} characters`);
  const read = asNginxReads(item);
  if (!read.ok) return read;
  const text = read.value;
  if (text.startsWith('~*')) return parseRegex(text, true, budget);
  if (text.startsWith('~')) return parseRegex(text, false, budget);
  if (MAP_PARAMETERS.has(text) || text.startsWith('\\')) return unsupported(`${JSON.stringify(text)} is a parameter of NGINX's map, not a key`);
  // NGINX lower-cases exact keys and the value it looks up: the match ignores case.
  return accept(Object.freeze({ kind: 'exact', value: text }));
}

/** A ConfigMap list: comma-separated, items trimmed, empty ones dropped (ingress-nginx's splitAndTrimSpace). */
export function parseBlockPatterns(raw: string): Checked<readonly BlockPattern[]> {
  const items = raw.split(',').map(trimSpace).filter((item) => item !== '');
  if (items.length > MAX_PATTERNS) return unsupported(`at most ${MAX_PATTERNS} items`);
  const patterns: BlockPattern[] = [];
  const seen = new Set<string>();
  // One budget for the list: a thousand hostile regexes must not hold the builder for a second each.
  const budget = newRegexCheckBudget();
  for (const item of items) {
    const pattern = parseBlockPattern(item, budget);
    if (!pattern.ok) return pattern;
    // Exact keys are compared lower-cased: NGINX refuses two that differ only in case ("conflicting parameter").
    const key = pattern.value.kind === 'exact' ? `exact ${pattern.value.value.toLowerCase()}` : `${pattern.value.kind} ${pattern.value.value}`;
    if (seen.has(key)) continue;
    seen.add(key);
    patterns.push(pattern.value);
  }
  return accept(Object.freeze(patterns));
}
