// The chart's values contract with ingress-nginx users: values.schema.json
// and the README's unsupported-values table are what scripts/chart-values.ts
// writes (no drift); the schema accepts every value path of ingress-nginx's
// chart and refuses typos; each unsupported value a user sets is named in the
// install notes (and only those); an ingress-nginx image is replaced with a
// warning. Regenerate after changing values.yaml or
// ingress-nginx-unsupported-values.yaml:  node scripts/chart-values.ts
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { README_PATH, SCHEMA_PATH, readUnsupported, readmeWithTable, schemaText, type Schema } from '../scripts/chart-values.ts';
import { CHART_DIR, RELEASE, parseManifests, renderChart, runHelm } from './chart-render.ts';

const INGRESS_NGINX_PATHS = readFileSync(join(CHART_DIR, 'ingress-nginx-value-paths.txt'), 'utf8')
  .split('\n').filter((line) => line && !line.startsWith('#'));

/** The schema node a dotted path reaches, or 'free' when an ancestor takes any keys, or null when refused. */
function schemaAt(schema: Schema, path: string): Schema | 'free' | null {
  let node = schema;
  for (const segment of path.split('.')) {
    const properties = node.properties as Record<string, Schema> | undefined;
    const next = properties?.[segment];
    if (next) { node = next; continue; }
    return node.additionalProperties === false ? null : 'free';
  }
  return node;
}

/** `helm install --dry-run=client`: the render plus NOTES.txt, no cluster needed. */
async function dryRunInstall(values: unknown, sets: readonly string[] = []): Promise<{ code: number; notes: string; stderr: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'chart-values-'));
  try {
    const file = join(dir, 'values.yaml');
    await writeFile(file, stringify(values));
    const res = await runHelm(['install', RELEASE.name, CHART_DIR, '--namespace', RELEASE.namespace, '--dry-run=client', '-f', file, ...sets.flatMap((s) => ['--set', s])]);
    return { code: res.code, notes: res.stdout.slice(res.stdout.indexOf('NOTES:')), stderr: res.stderr };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** { a: { b: value } } from "a.b". */
function nested(path: string, value: unknown): Record<string, unknown> {
  return path.split('.').reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
}

void test('values.schema.json and the README table are what scripts/chart-values.ts writes', () => {
  assert.equal(readFileSync(SCHEMA_PATH, 'utf8'), schemaText(), 'run: node scripts/chart-values.ts');
  const readme = readFileSync(README_PATH, 'utf8');
  assert.equal(readme, readmeWithTable(readme), 'run: node scripts/chart-values.ts');
  for (const entry of readUnsupported()) assert.ok(readme.includes(`| \`${entry.path}\` |`), `${entry.path} is in the README`);
});

void test('the schema accepts every value path of ingress-nginx\'s chart', () => {
  const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as Schema;
  assert.ok(INGRESS_NGINX_PATHS.length > 300, `${INGRESS_NGINX_PATHS.length} paths`);
  const refused = INGRESS_NGINX_PATHS.filter((path) => schemaAt(schema, path) === null);
  assert.deepEqual(refused, []);
});

void test('every unsupported entry is a real ingress-nginx value', () => {
  const unknown = readUnsupported().map((e) => e.path)
    .filter((path) => !INGRESS_NGINX_PATHS.some((p) => p === path || p.startsWith(`${path}.`)));
  assert.deepEqual(unknown, []);
});

void test('the schema refuses typos and wrong types with the value\'s path', async () => {
  const rows = [
    { name: 'misspelt key', set: 'controller.replicaCont=2', want: /at '\/controller': additional properties 'replicaCont' not allowed/ },
    { name: 'misspelt nested key', set: 'controller.service.enableHTTP=false', want: /at '\/controller\/service': additional properties 'enableHTTP' not allowed/ },
    { name: 'port out of range', set: 'controller.healthzPort=70000', want: /at '\/controller\/healthzPort'/ },
    { name: 'probe field misspelt', set: 'controller.livenessProbe.periodSecond=3', want: /additional properties 'periodSecond' not allowed/ },
    { name: 'tcp key not a port', set: 'tcp.db=a/b:1', want: /'db' does not match pattern/ },
  ];
  for (const row of rows) {
    const res = await runHelm(['lint', '--strict', CHART_DIR, '--set', row.set]);
    assert.notEqual(res.code, 0, row.name);
    assert.match(res.stdout + res.stderr, row.want, row.name);
  }
});

void test('install notes name each unsupported value set to something else than ingress-nginx\'s default, and only those', async () => {
  const entries = readUnsupported();
  // ingress-nginx's defaults: accepted silently (a copied values file does not shout).
  const atDefaults = Object.assign({}, ...entries.map((e) => nested(e.path, e.default))) as Record<string, unknown>;
  const quiet = await dryRunInstall(atDefaults);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.doesNotMatch(quiet.notes, /not supported/);
  // Each one set to something else: its own line (one install per value, so a missing name cannot hide).
  for (const entry of entries.filter((e) => e.path !== 'controller.scope.namespaceSelector')) {
    const changed = typeof entry.default === 'boolean' ? !entry.default : { changedByTest: true };
    const value = typeof entry.default === 'string' ? 'changed-by-test' : changed;
    const res = await dryRunInstall(nested(entry.path, value));
    assert.equal(res.code, 0, `${entry.path}: ${res.stderr}`);
    const named = res.notes.split('\n').filter((line) => / \(not supported: ignored\)$/.test(line));
    assert.deepEqual(named, [`- ${entry.path}: ${entry.note} (not supported: ignored)`], entry.path);
  }
});

void test('a value that would deploy something broken fails the install with what to do', async () => {
  const rows: { name: string; values: unknown; want: RegExp }[] = [
    { name: 'namespace selector', values: nested('controller.scope.namespaceSelector', 'team=a'), want: /namespaceSelector is not supported: the controller would watch every namespace/ },
    { name: 'ConfigMap elsewhere', values: nested('controller.configMapNamespace', 'other'), want: /controller.configMapNamespace "other": only the release namespace/ },
  ];
  for (const row of rows) {
    const res = await dryRunInstall(row.values);
    assert.notEqual(res.code, 0, row.name);
    assert.match(res.stderr, row.want, row.name);
  }
});

void test('install notes explain replaced probe handlers and objects the values do not create', async () => {
  const rows: { name: string; values: unknown; want: string[] }[] = [
    { name: 'ingress-nginx probes: same port, no note', values: { controller: { livenessProbe: { httpGet: { path: '/healthz', port: 10254 } }, readinessProbe: { httpGet: { path: '/healthz', port: 10254 } } } }, want: [] },
    { name: 'tcpSocket probe', values: { controller: { readinessProbe: { tcpSocket: { port: 80 } } } }, want: ['- controller.readinessProbe.tcpSocket: replaced by an httpGet on the healthz port 10254'] },
    { name: 'httpGet elsewhere', values: { controller: { livenessProbe: { httpGet: { path: '/live', port: 9000 } } } }, want: ['- controller.livenessProbe.httpGet (/live on port 9000): replaced by the healthz port 10254'] },
    { name: 'internal Service without annotations', values: { controller: { service: { internal: { enabled: true } } } }, want: ['- controller.service.internal.enabled: no internal Service is created without controller.service.internal.annotations (they select the internal load balancer)'] },
    { name: 'ServiceMonitor without metrics', values: { controller: { metrics: { serviceMonitor: { enabled: true } } } }, want: ['- controller.metrics.serviceMonitor/prometheusRule: not created while controller.metrics.enabled is false'] },
  ];
  for (const row of rows) {
    const res = await dryRunInstall(row.values);
    assert.equal(res.code, 0, `${row.name}: ${res.stderr}`);
    assert.deepEqual(res.notes.split('\n').filter((line) => line.startsWith('- ')), row.want, row.name);
  }
});

const OURS = 'ghcr.io/resty-ingress/controller:0.1.0';
const INGRESS_NGINX_DIGEST = 'sha256:594ceea76b01c592858f803f9ff4d2cb40542cae2060410b2c95f75907d659e1';

void test('an ingress-nginx controller image is replaced by ours, with a warning', async () => {
  const rows: { name: string; image: Record<string, unknown>; want: string; warned: RegExp | null }[] = [
    { name: 'defaults', image: {}, want: OURS, warned: null },
    { name: 'ingress-nginx image and digest', image: { registry: 'registry.k8s.io', image: 'ingress-nginx/controller', tag: 'v1.15.1', digest: INGRESS_NGINX_DIGEST, runAsUser: 101, runAsGroup: 82 }, want: OURS, warned: /the image registry.k8s.io\/ingress-nginx\/controller is ingress-nginx's controller/ },
    { name: 'chroot image by repository', image: { repository: 'registry.k8s.io/ingress-nginx/controller-chroot' }, want: OURS, warned: /ingress-nginx's controller/ },
    { name: 'a mirror of it', image: { registry: 'mirror.example.com', image: 'ingress-nginx/controller' }, want: OURS, warned: /mirror.example.com\/ingress-nginx\/controller/ },
    { name: 'only its digest', image: { digest: INGRESS_NGINX_DIGEST }, want: OURS, warned: /the digest sha256:594ceea.* is an ingress-nginx controller image/ },
    { name: 'only its tag', image: { tag: 'v1.12.1' }, want: OURS, warned: /the tag v1.12.1 is an ingress-nginx controller version/ },
    { name: 'our image pinned', image: { digest: `sha256:${'a'.repeat(64)}` }, want: `ghcr.io/resty-ingress/controller@sha256:${'a'.repeat(64)}`, warned: null },
    { name: 'our image from a mirror', image: { repository: 'mirror.example.com/resty/controller', tag: '0.1.0' }, want: 'mirror.example.com/resty/controller:0.1.0', warned: null },
  ];
  for (const row of rows) {
    const res = await dryRunInstall(nested('controller.image', row.image));
    assert.equal(res.code, 0, `${row.name}: ${res.stderr}`);
    const deployment = parseManifests(await renderChart({ name: 'default', valuesFile: null }, Object.entries(row.image).map(([k, v]) => `controller.image.${k}=${String(v)}`)))
      .find((m) => m.kind === 'Deployment') as { spec: { template: { spec: { containers: { image: string }[]; securityContext: { runAsUser: number } } } } } | undefined;
    assert.equal(deployment?.spec.template.spec.containers[0]?.image, row.want, row.name);
    if (row.warned) {
      assert.match(res.notes, row.warned, row.name);
      assert.match(res.notes, new RegExp(`using ${OURS.replaceAll('.', '\\.')} instead`), row.name);
      assert.equal(deployment?.spec.template.spec.securityContext.runAsUser, 1000, `${row.name}: our image's user`);
    } else {
      assert.doesNotMatch(res.notes, /controller\.image/, row.name);
    }
  }
});

void test('the ingress-nginx production values file: notes name the image and the two unsupported values, nothing else', async () => {
  const res = await runHelm(['install', RELEASE.name, CHART_DIR, '--namespace', RELEASE.namespace, '--dry-run=client', '-f', join(CHART_DIR, 'ci/ingress-nginx-production-values.yaml')]);
  assert.equal(res.code, 0, res.stderr);
  const warnings = res.stdout.split('\n').filter((line) => line.startsWith('- '));
  assert.deepEqual(warnings.map((line) => line.split(':')[0]), ['- controller.image', '- controller.enableTopologyAwareRouting', '- controller.maxmindLicenseKey']);
});
