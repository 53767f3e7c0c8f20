// The report for people (the default output): the install, the ConfigMap,
// then one block per Ingress, ending with the summary line. Supported names
// are listed without their note; everything else says what happens instead.

import type { FailureReport, FlagReport, IngressReport, MigrateReport, NameReport } from './report-types.ts';
import { summaryLine } from './summary.ts';

const VERDICT_TEXT: Readonly<Record<IngressReport['verdict'], string>> = {
  'served': 'served as is',
  'served-with-differences': 'served with differences',
  'not-served': 'NOT SERVED',
};

function statusText(name: NameReport): string {
  const status = name.status.replace('-', ' ');
  return name.failsClosed ? `${status}, fails closed` : status;
}

function nameLine(name: NameReport): string {
  return name.status === 'supported' ? `  ${name.name}: supported` : `  ${name.name}: ${statusText(name)} — ${name.note}`;
}

/** Failures the annotation's own line already tells (text only; the JSON keeps every failure). */
const TOLD_BY_ANNOTATION: ReadonlySet<string> = new Set(['UnknownAnnotation', 'UnsupportedAnnotation', 'ProtectionNotSupported', 'SnippetNotAllowed', 'SnippetNotSupported']);

function toldByAnnotation(failure: FailureReport): boolean {
  return TOLD_BY_ANNOTATION.has(failure.reason) && failure.field.startsWith('metadata.annotations[');
}

function failureLine(failure: FailureReport): string {
  return `  ${failure.severity} ${failure.reason} (${failure.field}): ${failure.message}`;
}

function flagLine(flag: FlagReport): string {
  const value = flag.value === '' ? '' : `=${flag.value}`;
  return `  --${flag.name}${value}: ${flag.status.replace('-', ' ')} — ${flag.note}`;
}

function inputLine(report: MigrateReport): string {
  const { input, selection } = report;
  const source = input.kind === 'manifests'
    ? `${input.files.length} manifest file${input.files.length === 1 ? '' : 's'}`
    : `cluster context ${input.context}, ${input.namespace === null ? 'all namespaces' : `namespace ${input.namespace}`}`;
  return `resty-ingress migrate: ${source}; Ingresses of class ${selection.ingressClass} (controller ${selection.controllerClass})`;
}

function ingressLines(ingress: IngressReport, installServed: boolean): string[] {
  const title = `${ingress.namespace}/${ingress.name}${ingress.canary ? ' (canary)' : ''}: ${VERDICT_TEXT[ingress.verdict]}`;
  // A blocked install is said once, above; each Ingress then shows what would be left.
  const why = installServed ? ingress.why : 'the install serves nothing (above)';
  const lines = [why === null ? title : `${title}: ${why}`];
  lines.push(...ingress.annotations.map(nameLine));
  for (const path of ingress.paths) {
    if (!path.served && path.why !== ingress.why) lines.push(`  path ${path.host}${path.path} not served: ${path.why ?? 'not placed'}`);
  }
  lines.push(...ingress.failures.filter((failure) => !toldByAnnotation(failure)).map(failureLine));
  return lines;
}

/** The text report, ending with a newline. */
export function formatText(report: MigrateReport): string {
  const lines = [inputLine(report)];
  if (!report.install.served) lines.push('', 'The install would serve NOTHING:', ...report.install.why.map((why) => `  ${why}`));
  if (report.configMap !== null) {
    lines.push('', `ConfigMap ${report.configMap.name} (${report.configMap.source}):`);
    lines.push(...report.configMap.keys.map(nameLine), ...report.configMap.failures.filter((failure) => failure.reason === 'InvalidConfigMapValue').map(failureLine));
  }
  if (report.flags.length > 0) lines.push('', 'Flags (controller.extraArgs):', ...report.flags.map(flagLine));
  if (report.notes.length > 0 || report.failures.length > 0) {
    lines.push('', 'Notes:', ...report.notes.map((note) => `  ${note}`), ...report.failures.map(failureLine));
  }
  for (const ingress of report.ingresses) lines.push('', ...ingressLines(ingress, report.install.served));
  if (report.otherIngresses.length > 0) {
    lines.push('', `Left out (other classes): ${report.otherIngresses.map((item) => `${item.namespace}/${item.name}`).join(', ')}`);
  }
  lines.push('', `Summary: ${summaryLine(report)}`);
  return `${lines.join('\n')}\n`;
}
