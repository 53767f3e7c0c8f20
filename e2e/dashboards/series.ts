// /metrics text → series as Prometheus would store them after scraping the
// controller's Pod, and the matching of dashboard selectors against them
// (Grafana variables substituted first).

import type { Expr, Matcher } from './promql.ts';

export interface Series {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/u;
const LABEL = /\s*([A-Za-z_]\w*)="((?:[^"\\]|\\.)*)"\s*,?/uy;

/** Prometheus text exposition → samples (comments skipped). Throws on a line it cannot read: the exposition must be valid. */
export function parseExposition(text: string): Series[] {
  const series: Series[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`unreadable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    const body = m[2] ?? '';
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < body.length) {
      const l = LABEL.exec(body);
      if (!l) throw new Error(`unreadable labels: ${line}`);
      labels[l[1]] = l[2].replace(/\\(.)/gu, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    series.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return series;
}

/**
 * What a scrape stores: the target's labels are added, and a scraped label of
 * the same name is kept as `exported_<name>` (honor_labels: false, the
 * ServiceMonitor default). Empty labels do not exist in Prometheus.
 */
export function scraped(series: readonly Series[], target: Readonly<Record<string, string>>): Series[] {
  return series.map(({ name, labels, value }) => {
    const out: Record<string, string> = {};
    for (const [key, v] of Object.entries(labels)) {
      if (v === '') continue;
      out[key in target ? `exported_${key}` : key] = v;
    }
    return { name, labels: { ...out, ...target }, value };
  });
}

/** Replaces Grafana's `$name`, `${name}` and `[[name]]` with `vars[name]` (longest names first, so $controller_class is not $controller + "_class"). */
export function substitute(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(/\$\{(\w+)\}|\[\[(\w+)\]\]|\$(\w+)/gu, (whole, a?: string, b?: string, c?: string) => {
    const name = a ?? b ?? c ?? '';
    return name in vars ? vars[name] : whole;
  });
}

function matcherHolds(matcher: Matcher, labels: Readonly<Record<string, string>>, vars: Readonly<Record<string, string>>): boolean {
  const actual = labels[matcher.label] ?? '';
  const wanted = substitute(matcher.value, vars);
  switch (matcher.op) {
    case '=': return actual === wanted;
    case '!=': return actual !== wanted;
    // PromQL regexes are anchored at both ends.
    case '=~': return new RegExp(`^(?:${wanted})$`, 'u').test(actual);
    case '!~': return !new RegExp(`^(?:${wanted})$`, 'u').test(actual);
  }
}

/** The series a selector selects with `vars` substituted. */
export function select(series: readonly Series[], selector: Expr & { kind: 'selector' }, vars: Readonly<Record<string, string>>): Series[] {
  return series.filter((s) => (selector.name === '' || s.name === selector.name) && selector.matchers.every((m) => matcherHolds(m, s.labels, vars)));
}

/** Names of the Grafana variables a text uses. */
export function variablesIn(text: string): string[] {
  return [...text.matchAll(/\$\{(\w+)\}|\[\[(\w+)\]\]|\$(\w+)/gu)].map((m) => m[1] ?? m[2] ?? m[3]);
}
