// Rendering charts/resty-ingress with the real helm binary for the chart
// tests: the cases (default values + every ci/*.yaml), `helm template` and
// `helm lint`, and picking rendered objects apart. Helm runs with its
// home/cache/config in a throwaway directory so tests never touch ~/.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CHART_DIR = join(REPO_ROOT, 'charts/resty-ingress');
export const GOLDEN_DIR = join(CHART_DIR, 'tests/golden');
/** Release name and namespace every golden render uses. */
export const RELEASE = { name: 'resty', namespace: 'ingress' } as const;

/** One way to render the chart: default values, or one CI values file on top. */
export interface ChartCase {
  readonly name: string;
  readonly valuesFile: string | null;
}

/** A rendered Kubernetes object (only the fields the tests read are typed). */
export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly annotations?: Record<string, string> };
  readonly [field: string]: unknown;
}

export interface HelmResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `default` plus one case per charts/resty-ingress/ci/*.yaml, sorted by name. */
export function chartCases(): ChartCase[] {
  const ciDir = join(CHART_DIR, 'ci');
  const files = readdirSync(ciDir).filter((f) => f.endsWith('.yaml')).sort();
  return [
    { name: 'default', valuesFile: null },
    ...files.map((f) => ({ name: basename(f, '.yaml'), valuesFile: join(ciDir, f) })),
  ];
}

/** helm v4 unpacked by `npm run setup`, or RESTY_HELM. Throws with the fix when absent. */
export function helmBinary(): string {
  const candidates = [process.env.RESTY_HELM, join(REPO_ROOT, '.cache/helm/helm')].filter((p): p is string => Boolean(p));
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error('helm not found: run `npm run setup` (unpacks helm into .cache/helm/helm) or set RESTY_HELM');
  return found;
}

/** Runs helm with a private HOME; `env` adds e.g. KUBECONFIG. Never rejects: the caller checks `code`. */
export async function runHelm(args: readonly string[], env: Record<string, string> = {}): Promise<HelmResult> {
  const home = await mkdtemp(join(tmpdir(), 'chart-helm-'));
  try {
    return await new Promise((resolveResult) => {
      execFile(helmBinary(), args, {
        cwd: REPO_ROOT,
        timeout: 120_000,
        maxBuffer: 16 << 20,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: home,
          HELM_CACHE_HOME: join(home, 'cache'),
          HELM_CONFIG_HOME: join(home, 'config'),
          HELM_DATA_HOME: join(home, 'data'),
          ...env,
        },
      }, (err, stdout, stderr) => resolveResult({
        code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr,
      }));
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** Arguments that select a case's values (plus extra `--set`s). */
export function valuesArgs(chartCase: ChartCase, sets: readonly string[] = []): string[] {
  return [
    ...(chartCase.valuesFile ? ['-f', chartCase.valuesFile] : []),
    ...sets.flatMap((s) => ['--set', s]),
  ];
}

/** `helm template` of one case; throws with helm's stderr when rendering fails. */
export async function renderChart(chartCase: ChartCase, sets: readonly string[] = []): Promise<string> {
  const res = await runHelm(['template', RELEASE.name, CHART_DIR, '--namespace', RELEASE.namespace, ...valuesArgs(chartCase, sets)]);
  if (res.code !== 0) throw new Error(`helm template (${chartCase.name}) failed:\n${res.stderr}`);
  return res.stdout;
}

/** The objects in a multi-document YAML stream, empty documents dropped. */
export function parseManifests(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`rendered YAML does not parse: ${doc.errors[0]?.message}`);
      return doc.toJS() as Manifest | null;
    })
    .filter((m): m is Manifest => m !== null);
}

/** A container of a rendered workload (Deployment, DaemonSet or Job). */
export interface RenderedContainer {
  readonly owner: string;
  readonly name: string;
  readonly image: string;
  readonly args: readonly string[];
}

interface PodTemplateHolder { spec?: { template?: { spec?: { containers?: { name: string; image: string; args?: string[] }[] } } } }

export function containersOf(manifests: readonly Manifest[], kinds: readonly string[]): RenderedContainer[] {
  return manifests
    .filter((m) => kinds.includes(m.kind))
    .flatMap((m) => ((m as PodTemplateHolder).spec?.template?.spec?.containers ?? []).map((c) => ({
      owner: `${m.kind}/${m.metadata.name}`, name: c.name, image: c.image, args: c.args ?? [],
    })));
}
