// Label and field selectors in the string syntax of the API's query
// parameters. A malformed selector is a 400, never a silent match-all.
import { badRequest } from './errors.ts';

export type Requirement =
  | { readonly key: string; readonly op: 'in' | 'notin'; readonly values: readonly string[] }
  | { readonly key: string; readonly op: 'exists' | '!exists' };

export type Selector = readonly Requirement[];

/** Split on commas that are not inside a `(...)` value set. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

const KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkKey(key: string, whole: string): string {
  if (!KEY.test(key)) throw badRequest(`unable to parse requirement: invalid label key "${key}" in "${whole}"`);
  return key;
}

function checkValue(value: string, whole: string): string {
  if (!VALUE.test(value)) throw badRequest(`unable to parse requirement: invalid label value "${value}" in "${whole}"`);
  return value;
}

/** Parse a label selector: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`. */
export function parseLabelSelector(text: string | undefined): Selector {
  if (!text) return [];
  return splitTopLevel(text).map((part): Requirement => {
    const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
    if (set) {
      const values = set[3].split(',').map((v) => checkValue(v.trim(), text));
      return { key: checkKey(set[1], text), op: set[2] as 'in' | 'notin', values };
    }
    const eq = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (eq) {
      const value = checkValue(eq[3].trim(), text);
      return { key: checkKey(eq[1], text), op: eq[2] === '!=' ? 'notin' : 'in', values: [value] };
    }
    if (part.startsWith('!')) return { key: checkKey(part.slice(1).trim(), text), op: '!exists' };
    return { key: checkKey(part, text), op: 'exists' };
  });
}

/** Parse a field selector: only `=`, `==`, `!=` exist for fields. */
export function parseFieldSelector(text: string | undefined): Selector {
  if (!text) return [];
  return splitTopLevel(text).map((part): Requirement => {
    const eq = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (!eq) throw badRequest(`invalid field selector: "${part}" is not key=value or key!=value`);
    return { key: eq[1], op: eq[2] === '!=' ? 'notin' : 'in', values: [eq[3].trim()] };
  });
}

export function matchesSelector(selector: Selector, lookup: (key: string) => string | undefined): boolean {
  return selector.every((req) => {
    const value = lookup(req.key);
    switch (req.op) {
      case 'exists': return value !== undefined;
      case '!exists': return value === undefined;
      case 'in': return value !== undefined && req.values.includes(value);
      case 'notin': return value === undefined || !req.values.includes(value);
    }
  });
}

/**
 * Field values by dotted path ("metadata.name", "involvedObject.uid",
 * "spec.nodeName"); a missing field compares as the empty string, as the
 * API server's field sets do.
 */
export function fieldValue(obj: unknown, path: string): string {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return '';
    cur = (cur as Record<string, unknown>)[part];
  }
  if (cur === undefined || cur === null) return '';
  return typeof cur === 'object' ? JSON.stringify(cur) : String(cur);
}

/**
 * A structured LabelSelector ({matchLabels, matchExpressions}) against a
 * label map; absent or empty selects everything, as in the API.
 */
export function labelSelectorMatches(selector: unknown, labels: Readonly<Record<string, string>>): boolean {
  if (selector === null || typeof selector !== 'object') return true;
  const { matchLabels, matchExpressions } = selector as { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
  const reqs: Requirement[] = Object.entries(matchLabels ?? {}).map(([key, value]) => ({ key, op: 'in' as const, values: [String(value)] }));
  for (const e of Array.isArray(matchExpressions) ? matchExpressions : []) {
    const op = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!exists' }[e.operator];
    if (!op) return false; // an unknown operator selects nothing, as the API would reject it
    reqs.push(op === 'exists' || op === '!exists' ? { key: e.key, op } : { key: e.key, op: op as 'in' | 'notin', values: e.values ?? [] });
  }
  return matchesSelector(reqs, (k) => labels[k]);
}
