// The real helm v4 installs charts/resty-ingress into the local API server
// (RBAC on, helm as the admin): every object `helm template` renders for the
// same values exists afterwards, and `helm uninstall` removes every one.
// --no-hooks guards against hook Jobs (the local cluster runs none, so helm
// would wait forever); the chart has none since the controller manages the
// webhook certificate itself. ServiceMonitor
// and cert-manager kinds are not served by the local API (no CRDs), so those
// CI cases are covered by the golden renders only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KINDS, startApiServer, type ApiServer } from './cluster/apiserver/index.ts';
import { CHART_DIR, RELEASE, chartCases, parseManifests, renderChart, runHelm, valuesArgs, type Manifest } from './chart-render.ts';

function resourceOf(manifest: Manifest): string {
  const [group, version] = manifest.apiVersion.includes('/') ? manifest.apiVersion.split('/') : ['', manifest.apiVersion];
  const kind = KINDS.find((k) => k.kind === manifest.kind && k.group === group && k.version === version);
  if (!kind) throw new Error(`the local API does not serve ${manifest.apiVersion} ${manifest.kind}`);
  return kind.group ? `${kind.plural}.${kind.group}` : kind.plural;
}

function exists(api: ApiServer, manifest: Manifest): boolean {
  try {
    api.store.get(resourceOf(manifest), manifest.metadata.namespace, manifest.metadata.name);
    return true;
  } catch (err) {
    if ((err as { code?: number }).code === 404) return false;
    throw err;
  }
}

const label = (m: Manifest): string => `${m.kind} ${m.metadata.namespace ?? ''}/${m.metadata.name}`;

const rows: { name: string; namespaces: string[] }[] = [
  { name: 'default', namespaces: [] },
  { name: 'daemonset-nodeport-values', namespaces: [] },
  { name: 'daemonset-hostnetwork-values', namespaces: [] },
  { name: 'scope-namespace-values', namespaces: ['apps'] },
  { name: 'take-over-nginx-values', namespaces: [] },
  { name: 'webhook-disabled-values', namespaces: [] },
];

for (const row of rows) {
  void test(`helm install and uninstall: ${row.name}`, async () => {
    const chartCase = chartCases().find((c) => c.name === row.name);
    assert.ok(chartCase, row.name);
    const dir = await mkdtemp(join(tmpdir(), 'chart-install-'));
    const api = await startApiServer({ rbac: true });
    try {
      for (const ns of row.namespaces) api.store.create('namespaces', { metadata: { name: ns } });
      const env = { KUBECONFIG: await api.writeKubeconfig(join(dir, 'kubeconfig')) };
      const expected = parseManifests(await renderChart(chartCase)).filter((m) => !m.metadata.annotations?.['helm.sh/hook']);
      assert.ok(expected.length >= 8, `the render has the chart's objects (${expected.length})`);

      const install = await runHelm(['install', RELEASE.name, CHART_DIR, '--namespace', RELEASE.namespace, '--create-namespace', '--no-hooks', ...valuesArgs(chartCase)], env);
      assert.equal(install.code, 0, `helm install failed:\n${install.stderr}`);
      assert.match(install.stdout, /STATUS: deployed/);
      const missing = expected.filter((m) => !exists(api, m)).map(label);
      assert.deepEqual(missing, [], 'every rendered object was created');

      const uninstall = await runHelm(['uninstall', RELEASE.name, '--namespace', RELEASE.namespace], env);
      assert.equal(uninstall.code, 0, `helm uninstall failed:\n${uninstall.stderr}`);
      const left = expected.filter((m) => exists(api, m)).map(label);
      assert.deepEqual(left, [], 'every object was removed');
      const releases = api.store.list('secrets', { namespace: RELEASE.namespace, labelSelector: 'owner=helm' }).items;
      assert.equal(releases.length, 0, 'the release record is gone');
    } finally {
      await api.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
}
