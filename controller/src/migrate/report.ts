// The migration report: the controller's own builder (buildModel) over the
// objects read, so that what migrate says is what the controller would do,
// plus the catalogue's note on every name. Endpoints do not matter (a report
// needs no EndpointSlices), nor do certificates (Secrets are not read: their
// failures are left out).
//
// A ConfigMap key that fails closed serves nothing at all. The report then
// builds a second time without such keys, so each Ingress also shows what
// would be left once they are removed (its verdict stays not-served).

import type { V1ConfigMap, V1Ingress } from '@kubernetes/client-node';
import { buildModel } from '../model/build.ts';
import { indexIngressClasses, isOurIngress } from '../model/ingress-class.ts';
import { translateIngress } from '../model/ingress-translation.ts';
import { compareText } from '../model/order.ts';
import type { BuildOptions, BuildResult, Failure, Snapshot } from '../model/types.ts';
import { indexLocations } from './ingress-paths.ts';
import { failureReport, ingressReport } from './ingress-report.ts';
import { configKeyReport } from './name-reports.ts';
import type { ConfigMapReport, FlagReport, IngressReport, MigrateReport, NameReport, ReportInput } from './report-types.ts';
import { summarise } from './summary.ts';

/** Everything a report is made from. */
export interface ReportRequest {
  /** The chosen ConfigMap is among snapshot.configMaps. */
  readonly snapshot: Snapshot;
  readonly selection: MigrateReport['selection'];
  /** The ConfigMap to read (`namespace/name`) and where it came from, or null: defaults. */
  readonly configMap: { readonly key: string; readonly source: ConfigMapReport['source'] } | null;
  /** Helm values' controller.extraArgs, checked. */
  readonly flags: readonly FlagReport[];
  readonly input: ReportInput;
  readonly notes: readonly string[];
}

/** Certificates are not read (no Secrets): their failures say nothing about the cluster. */
const CERTIFICATE_REASONS: ReadonlySet<string> = new Set(['InvalidCertificate', 'CertificateExpired']);

function findConfigMap(snapshot: Snapshot, key: string): V1ConfigMap | undefined {
  return snapshot.configMaps.find((item) => `${item.metadata?.namespace}/${item.metadata?.name}` === key);
}

function keyReports(configMap: V1ConfigMap | undefined): NameReport[] {
  const data: Readonly<Record<string, unknown>> = configMap?.data ?? {};
  return Object.keys(data).sort().map((name) => configKeyReport(name, typeof data[name] === 'string' ? data[name] : ''));
}

/** The snapshot without the ConfigMap keys that fail closed. */
function withoutClosingKeys(snapshot: Snapshot, configMap: V1ConfigMap, closing: ReadonlySet<string>): Snapshot {
  const data = Object.fromEntries(Object.entries(configMap.data ?? {}).filter(([name]) => !closing.has(name)));
  const configMaps = snapshot.configMaps.map((item) => (item === configMap ? { ...item, data } : item));
  return { ...snapshot, configMaps };
}

function isConfigMapFailure(failure: Failure): boolean {
  return failure.ingress === null && (failure.field.startsWith('ConfigMap ') || failure.field === '--configmap');
}

function refKey(ref: { readonly namespace: string; readonly name: string }): string {
  return `${ref.namespace}/${ref.name}`;
}

/** Ingresses sorted by namespace, then name. */
function byName(a: V1Ingress, b: V1Ingress): number {
  return compareText(a.metadata?.namespace ?? '', b.metadata?.namespace ?? '') || compareText(a.metadata?.name ?? '', b.metadata?.name ?? '');
}

function installBlockers(real: BuildResult, flags: readonly FlagReport[]): string[] {
  const closed = real.failures.filter((failure) => failure.ingress === null && failure.reason === 'ProtectionNotSupported').map((failure) => failure.message);
  const refusedFlags = flags.filter((flag) => flag.status !== 'supported' && flag.status !== 'ignored')
    .map((flag) => `controller.extraArgs ${flag.name}: ${flag.note}`);
  return [...closed, ...refusedFlags];
}

/** Builds the report (pure: no I/O). */
export function buildReport(request: ReportRequest): MigrateReport {
  const { snapshot, selection } = request;
  const options: BuildOptions = { ...selection, defaultBackendService: null, configMap: request.configMap?.key ?? null };
  const configMap = request.configMap === null ? undefined : findConfigMap(snapshot, request.configMap.key);
  const keys = keyReports(configMap);
  const closing = new Set(keys.filter((key) => key.failsClosed).map((key) => key.name));
  const real = buildModel(snapshot, options);
  const effective = closing.size > 0 && configMap !== undefined ? buildModel(withoutClosingKeys(snapshot, configMap, closing), options) : real;
  const why = installBlockers(real, request.flags);
  const installBlocked = why.length > 0 ? `nothing is served: ${why[0]}` : null;

  const failuresByIngress = new Map<string, Failure[]>();
  for (const failure of effective.failures) {
    if (failure.ingress === null || CERTIFICATE_REASONS.has(failure.reason)) continue;
    const key = refKey(failure.ingress);
    failuresByIngress.set(key, [...(failuresByIngress.get(key) ?? []), failure]);
  }
  const classes = indexIngressClasses(snapshot.ingressClasses, options);
  const sorted = [...snapshot.ingresses].sort(byName);
  const ours = sorted.filter((ingress) => isOurIngress(ingress, classes, options));
  const locations = indexLocations(effective.model);
  const ingresses: IngressReport[] = ours.map((ingress) => {
    const translation = translateIngress(ingress, selection.annotationsPrefix, effective.model.settings);
    return ingressReport({
      ingress, translation, model: effective.model, locations, services: snapshot.services,
      failures: failuresByIngress.get(refKey(translation.ref)) ?? [], annotationsPrefix: selection.annotationsPrefix, installBlocked,
    });
  });
  const owned = new Set(ours);
  const otherIngresses = sorted.filter((ingress) => !owned.has(ingress))
    .map((ingress) => ({ namespace: ingress.metadata?.namespace ?? '', name: ingress.metadata?.name ?? '' }));

  const unowned = real.failures.filter((failure) => failure.ingress === null && !CERTIFICATE_REASONS.has(failure.reason));
  const configMapReport: ConfigMapReport | null = request.configMap === null ? null : {
    name: request.configMap.key, source: request.configMap.source, keys,
    failures: unowned.filter(isConfigMapFailure).map(failureReport),
  };
  const summary = summarise(ingresses, otherIngresses.length, keys);
  const pathsLost = ingresses.some((ingress) => ingress.paths.some((path) => !path.served));
  const exitCode = installBlocked !== null || summary.notServed > 0 || pathsLost ? 1 : 0;
  return {
    version: 1, input: request.input, selection, install: { served: installBlocked === null, why },
    configMap: configMapReport, flags: request.flags, notes: request.notes, ingresses, otherIngresses,
    failures: unowned.filter((failure) => !isConfigMapFailure(failure)).map(failureReport), summary, exitCode,
  };
}
