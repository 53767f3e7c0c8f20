// Does a dashboard's query find data in our series? For each query: every
// selector selects at least one series; every label it groups by (`sum by
// (ingress)`, `by (le)`) is set on the series it groups; a counter it takes
// the rate of has grown; histogram_quantile reads `_bucket` series. Template
// variables come from their label_values() queries, evaluated the same way.

import { parseLabelValues, parsePromql, selectorsOf, walk, type Expr } from './promql.ts';
import { select, type Series } from './series.ts';

/** One dashboard's queries as the test data holds them (extract-queries.ts). */
export interface DashboardQueries {
  readonly file: string;
  readonly variables: readonly { readonly name: string; readonly query: string; readonly allValue: string | null }[];
  readonly queries: readonly { readonly panel: string; readonly expr: string }[];
}

const RATE_FUNCTIONS = new Set(['rate', 'irate', 'increase']);

/** What is wrong with `expr` against `series` under `vars`; empty = the panel has data. */
export function checkQuery(expr: string, series: readonly Series[], vars: Readonly<Record<string, string>>): string[] {
  const tree = parsePromql(expr);
  const problems: string[] = [];
  const selected = new Map<Expr, Series[]>();
  for (const selector of selectorsOf(tree)) {
    const found = select(series, selector, vars);
    selected.set(selector, found);
    if (found.length === 0) problems.push(`${selector.name}${describeMatchers(selector)} selects no series`);
  }
  for (const node of walk(tree)) {
    if (node.kind === 'aggregate' && node.grouping?.mode === 'by') {
      for (const selector of node.args.flatMap(selectorsOf)) {
        const found = selected.get(selector) ?? [];
        for (const label of node.grouping.labels) {
          if (found.length > 0 && !found.some((s) => (s.labels[label] ?? '') !== '')) problems.push(`${selector.name}: no series has label "${label}" (grouped by it)`);
        }
      }
    }
    if (node.kind === 'call' && RATE_FUNCTIONS.has(node.fn)) {
      for (const selector of node.args.flatMap(selectorsOf)) {
        const found = selected.get(selector) ?? [];
        if (found.length > 0 && !found.some((s) => s.value > 0)) problems.push(`${selector.name}: ${node.fn}() of series that never grew`);
      }
    }
    if (node.kind === 'call' && node.fn === 'histogram_quantile') {
      for (const selector of node.args.flatMap(selectorsOf)) {
        if (!selector.name.endsWith('_bucket')) problems.push(`${selector.name}: histogram_quantile() of a non-bucket series`);
      }
    }
  }
  return problems;
}

function describeMatchers(selector: Expr & { kind: 'selector' }): string {
  return `{${selector.matchers.map((m) => `${m.label}${m.op}${JSON.stringify(m.value)}`).join(',')}}`;
}

/** The values a label_values() query offers under `vars`, sorted; [] when none. */
export function labelValues(query: string, series: readonly Series[], vars: Readonly<Record<string, string>>): string[] {
  const { selector, label } = parseLabelValues(query);
  const found = selector === null ? series : select(series, selector, vars);
  return [...new Set(found.map((s) => s.labels[label] ?? '').filter((v) => v !== ''))].sort();
}

/**
 * The variables as a user first sees them: each one the first value its query
 * offers, given the ones before it (Grafana resolves them in order).
 * Returns the values and the variables that offered none.
 */
export function concreteVariables(dashboard: DashboardQueries, series: readonly Series[]): { vars: Record<string, string>; empty: string[] } {
  const vars: Record<string, string> = {};
  const empty: string[] = [];
  for (const variable of dashboard.variables) {
    const [first] = labelValues(variable.query, series, vars);
    if (first === undefined) empty.push(variable.name);
    vars[variable.name] = first === undefined ? '' : escapeRegex(first);
  }
  return { vars, empty };
}

/** The variables set to "All" (their allValue, `.*` in both dashboards). */
export function allVariables(dashboard: DashboardQueries): Record<string, string> {
  return Object.fromEntries(dashboard.variables.map((v) => [v.name, v.allValue ?? '.*']));
}

/** Grafana escapes a single value for use inside =~ (regex interpolation). */
function escapeRegex(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\/]/gu, '\\$&');
}
