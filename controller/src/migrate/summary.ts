// The counts of a report, and the one summary line the text output ends with.

import type { IngressReport, MigrateReport, NameReport, NameStatus, ReportSummary } from './report-types.ts';

const STATUSES: readonly NameStatus[] = ['supported', 'different', 'ignored', 'not-supported', 'unknown'];

function countStatuses(names: readonly NameReport[]): Record<NameStatus, number> {
  const counts = Object.fromEntries(STATUSES.map((status) => [status, 0])) as Record<NameStatus, number>;
  for (const name of names) counts[name.status] += 1;
  return counts;
}

/** Counts the report's Ingresses, paths and names. */
export function summarise(ingresses: readonly IngressReport[], otherClass: number, configKeys: readonly NameReport[]): ReportSummary {
  const count = (verdict: IngressReport['verdict']): number => ingresses.filter((ingress) => ingress.verdict === verdict).length;
  return {
    ingresses: ingresses.length,
    served: count('served'),
    servedWithDifferences: count('served-with-differences'),
    notServed: count('not-served'),
    pathsNotServed: ingresses.reduce((sum, ingress) => sum + ingress.paths.filter((path) => !path.served).length, 0),
    otherClass,
    annotations: countStatuses(ingresses.flatMap((ingress) => ingress.annotations)),
    configKeys: countStatuses(configKeys),
  };
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Non-zero counts by status, e.g. `2 supported, 1 not supported`. */
function statusCounts(counts: Readonly<Record<NameStatus, number>>): string {
  const parts = STATUSES.filter((status) => counts[status] > 0).map((status) => `${counts[status]} ${status.replace('-', ' ')}`);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

/** The summary line, e.g. `5 Ingresses: 2 served as is, 2 served with differences, 1 not served; …; exit 1`. */
export function summaryLine(report: MigrateReport): string {
  const { summary } = report;
  const parts = [
    `${plural(summary.ingresses, 'Ingress', 'Ingresses')}: ${summary.served} served as is, ${summary.servedWithDifferences} served with differences, ${summary.notServed} not served`,
  ];
  if (summary.pathsNotServed > 0) parts.push(`${plural(summary.pathsNotServed, 'path')} not served`);
  const annotationCount = Object.values(summary.annotations).reduce((sum, value) => sum + value, 0);
  if (annotationCount > 0) parts.push(`annotations: ${statusCounts(summary.annotations)}`);
  if (report.configMap !== null) parts.push(`ConfigMap keys: ${statusCounts(summary.configKeys)}`);
  if (!report.install.served) parts.push('the install serves nothing');
  if (summary.otherClass > 0) parts.push(`${plural(summary.otherClass, 'Ingress', 'Ingresses')} of ${summary.otherClass === 1 ? 'another class' : 'other classes'} left out`);
  return `${parts.join('; ')}; exit ${report.exitCode}`;
}
