// Extracts the PromQL of Grafana dashboards into the test data the dashboard
// test reads (queries only, never the dashboards themselves):
//
//   node e2e/dashboards/extract-queries.ts '<source note>' nginx.json request-handling-performance.json \
//     > e2e/dashboards/ingress-nginx-queries.json
//
// Each annotation's and panel target's `expr` (nested row panels included) and each query
// variable (`label_values(...)`, as a string or `{ query }`) with its
// allValue, in dashboard order.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { DashboardQueries } from './dashboard-check.ts';

interface Panel { readonly title?: string; readonly targets?: readonly { readonly expr?: string }[]; readonly panels?: readonly Panel[] }
interface Dashboard {
  readonly annotations?: { readonly list?: readonly { readonly name?: string; readonly expr?: string }[] };
  readonly panels?: readonly Panel[];
  readonly rows?: readonly { readonly panels?: readonly Panel[] }[];
  readonly templating?: { readonly list?: readonly { readonly name: string; readonly type: string; readonly query?: string | { readonly query?: string }; readonly allValue?: string | null }[] };
}

/** Collapses the whitespace Grafana's editors leave in multi-line queries. */
const tidy = (text: string): string => text.replace(/\s+/gu, ' ').trim();

export function extractQueries(file: string, dashboard: Dashboard): DashboardQueries {
  const queries: { panel: string; expr: string }[] = [];
  for (const annotation of dashboard.annotations?.list ?? []) {
    if (annotation.expr) queries.push({ panel: `annotation: ${annotation.name ?? ''}`, expr: tidy(annotation.expr) });
  }
  const visit = (panels: readonly Panel[] | undefined): void => {
    for (const panel of panels ?? []) {
      for (const target of panel.targets ?? []) if (target.expr) queries.push({ panel: panel.title ?? '', expr: tidy(target.expr) });
      visit(panel.panels);
    }
  };
  visit(dashboard.panels);
  for (const row of dashboard.rows ?? []) visit(row.panels);
  const variables = (dashboard.templating?.list ?? []).filter((v) => v.type === 'query').map((v) => ({
    name: v.name,
    query: tidy(typeof v.query === 'string' ? v.query : v.query?.query ?? ''),
    allValue: v.allValue ?? null,
  }));
  return { file, variables, queries };
}

if (import.meta.main) {
  const [source, ...files] = process.argv.slice(2);
  if (!source || files.length === 0) {
    process.stderr.write('usage: node e2e/dashboards/extract-queries.ts <source note> <dashboard.json>...\n');
    process.exit(2);
  }
  const dashboards = files.map((file) => extractQueries(basename(file), JSON.parse(readFileSync(file, 'utf8')) as Dashboard));
  process.stdout.write(`${JSON.stringify({ source, dashboards }, null, 2)}\n`);
}
