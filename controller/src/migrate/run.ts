// `resty-ingress migrate`: parse the arguments, read the manifests or the
// cluster (and the Helm values), build the report, print it. Returns the exit
// code: 0 everything served, 1 something would not be served, 2 the command
// could not run (usage error, unreadable input, cluster unreachable).

import { readFile } from 'node:fs/promises';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { CommandLineExit, printCommandLineExit, type ExitStreams } from '../cli/command-line-exit.ts';
import type { Snapshot } from '../model/types.ts';
import { chooseConfigMap } from './config-map-choice.ts';
import { formatText } from './format-text.ts';
import { checkFlag, HELM_CONFIG_MAP_KEY, readHelmValues, type HelmValues } from './helm-values.ts';
import { snapshotFromManifests } from './manifest-snapshot.ts';
import { ManifestError, readManifests } from './manifests.ts';
import type { MigrateOptions, Selection } from './options.ts';
import { parseMigrateOptions } from './options.ts';
import { buildReport, type ReportRequest } from './report.ts';
import type { MigrateReport, ReportInput } from './report-types.ts';

interface Gathered {
  readonly snapshot: Snapshot;
  readonly input: ReportInput;
  readonly configMapKey: string | null;
  readonly notes: readonly string[];
}

async function gatherManifests(options: MigrateOptions, lookForConfigMap: boolean): Promise<Gathered> {
  const { files, objects } = await readManifests(options.paths);
  const read = snapshotFromManifests(objects, options.namespace ?? 'default');
  const choice = lookForConfigMap ? chooseConfigMap(read.snapshot.configMaps, options.configMap) : { key: null, notes: [] };
  return {
    snapshot: read.snapshot, configMapKey: choice.key, notes: choice.notes,
    input: { kind: 'manifests', files, otherObjects: read.otherObjects, skipped: read.skipped },
  };
}

async function gatherCluster(options: MigrateOptions, lookForConfigMap: boolean): Promise<Gathered> {
  // Loaded only here: client-node's API clients take most of a second to load, which reading files never needs.
  const { readCluster } = await import('./cluster-input.ts');
  const read = await readCluster({ ...options, configMap: lookForConfigMap ? options.configMap : null });
  return {
    snapshot: read.snapshot, configMapKey: lookForConfigMap ? read.configMapKey : null, notes: lookForConfigMap ? read.notes : [],
    input: { kind: 'cluster', context: read.context, namespace: read.namespace },
  };
}

/** The Helm values' controller.config as the ConfigMap resty-ingress's chart would render. */
function helmConfigMap(values: HelmValues): V1ConfigMap {
  const [namespace, name] = HELM_CONFIG_MAP_KEY.split('/');
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name }, data: { ...values.config } };
}

function selectionOf(options: MigrateOptions, values: HelmValues | null): Selection {
  const fromValues = values?.selection ?? {};
  const pick = <K extends keyof Selection>(key: K): Selection[K] => (options.explicit.has(key) ? options.selection[key] : fromValues[key] ?? options.selection[key]);
  return {
    ingressClass: pick('ingressClass'), controllerClass: pick('controllerClass'),
    watchIngressWithoutClass: pick('watchIngressWithoutClass'), annotationsPrefix: pick('annotationsPrefix'),
  };
}

/** Reads everything the options name and builds the report. Throws CommandLineExit or ManifestError when it cannot. */
export async function migrate(options: MigrateOptions): Promise<MigrateReport> {
  const values = options.helmValues === null ? null : readHelmValues(await readFile(options.helmValues, 'utf8'), options.helmValues);
  // With Helm values the ConfigMap is their controller.config: no other is looked for.
  const gathered = options.paths.length > 0 ? await gatherManifests(options, values === null) : await gatherCluster(options, values === null);
  const { snapshot, input, configMapKey, notes } = gathered;
  if (values === null) {
    const configMap = configMapKey === null ? null : { key: configMapKey, source: input.kind };
    return buildReport({ snapshot, input, configMap, flags: [], notes, selection: selectionOf(options, null) });
  }
  const request: ReportRequest = {
    snapshot: { ...snapshot, configMaps: [...snapshot.configMaps, helmConfigMap(values)] },
    input,
    configMap: { key: HELM_CONFIG_MAP_KEY, source: 'helm-values' },
    flags: values.extraArgs.map((arg) => checkFlag(arg.name, arg.value)),
    notes: [...notes, ...values.notes],
    selection: selectionOf(options, values),
  };
  return buildReport(request);
}

/** What runMigrate prints to. */
export type MigrateStreams = ExitStreams;

function describeError(err: unknown): string {
  if (err instanceof ManifestError) return err.message;
  const code = (err as { code?: unknown } | null)?.code;
  const path = (err as { path?: unknown } | null)?.path;
  if (code === 'ENOENT' && typeof path === 'string') return `${path}: no such file or folder`;
  if (code === 'EACCES' && typeof path === 'string') return `${path}: permission denied`;
  return err instanceof Error ? err.message : String(err);
}

/** Runs `resty-ingress migrate <argv>`; resolves with the exit code. */
export async function runMigrate(argv: readonly string[], streams: MigrateStreams): Promise<number> {
  try {
    const options = parseMigrateOptions(argv);
    const report = await migrate(options);
    streams.stdout.write(options.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatText(report));
    return report.exitCode;
  } catch (err) {
    if (err instanceof CommandLineExit) return printCommandLineExit(err, streams);
    // Anything else that stops the report (an unreadable file, a bug): no report, exit 2, never 1.
    streams.stderr.write(`error: ${describeError(err).split('\n')[0]}\n`);
    return 2;
  }
}
