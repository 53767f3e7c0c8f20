// runMigrate as the command runs it, over manifest files in a temp folder:
// what it prints where, and its exit codes (0 served, 1 not served, 2 could
// not run).

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { stringify } from 'yaml';
import { runMigrate } from './run.ts';
import type { MigrateReport } from './report-types.ts';
import { configMap, ingress, nginxClass, service } from './testdata/objects.ts';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(argv: readonly string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runMigrate(argv, { stdout: { write: (text: string) => { stdout += text; } }, stderr: { write: (text: string) => { stderr += text; } } });
  return { code, stdout, stderr };
}

/** A temp folder with these files (objects are written as multi-document YAML). */
async function folder(t: TestContext, files: Readonly<Record<string, readonly object[] | string>>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'migrate-run-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  for (const [name, content] of Object.entries(files)) {
    await writeFile(join(dir, name), typeof content === 'string' ? content : content.map((object) => stringify(object)).join('---\n'));
  }
  return dir;
}

const json = (result: Run): MigrateReport => JSON.parse(result.stdout) as MigrateReport;

void describe('runMigrate', () => {
  void it('exit 0 when everything is served; the text report ends with the summary', async (t) => {
    const dir = await folder(t, { 'app.yaml': [nginxClass(), service('web'), ingress({ name: 'web' })] });
    const result = await run([dir]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '');
    assert.match(result.stdout, /\nSummary: 1 Ingress: 1 served as is, .*; exit 0\n$/);
  });

  void it('exit 1 when an Ingress would not be served; --output json prints one document', async (t) => {
    const dir = await folder(t, { 'app.yaml': [nginxClass(), service('web'), ingress({ name: 'web', annotations: { 'enable-modsecurity': 'true' } })] });
    const result = await run(['-o', 'json', dir]);
    assert.equal(result.code, 1);
    const report = json(result);
    assert.equal(report.exitCode, 1);
    assert.equal(report.ingresses[0]?.verdict, 'not-served');
  });

  void it('-n gives objects without a namespace that namespace, as kubectl apply -n', async (t) => {
    const dir = await folder(t, { 'app.yaml': `${stringify({ ...nginxClass() })}---\n${stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web' }, spec: { ingressClassName: 'nginx', defaultBackend: { service: { name: 'web', port: { number: 80 } } } } })}` });
    const report = json(await run(['-o', 'json', '-n', 'shop', dir]));
    assert.deepEqual(report.ingresses.map((item) => `${item.namespace}/${item.name}`), ['shop/web']);
  });

  void it('--configmap names the ConfigMap among the inputs', async (t) => {
    const other = { ...configMap({ 'use-gzip': 'true' }), metadata: { namespace: 'ops', name: 'nginx-settings' } };
    const dir = await folder(t, { 'app.yaml': [nginxClass(), service('web'), ingress({ name: 'web' }), configMap({ 'proxy-body-size': '8m' }), other] });
    const byName = json(await run(['-o', 'json', dir]));
    assert.equal(byName.configMap?.name, 'ingress-nginx/ingress-nginx-controller');
    const chosen = json(await run(['-o', 'json', '--configmap', 'ops/nginx-settings', dir]));
    assert.deepEqual([chosen.configMap?.name, chosen.configMap?.keys.map((key) => key.name)], ['ops/nginx-settings', ['use-gzip']]);
  });

  void it('--helm-values: controller.config is the ConfigMap, the class values select, a flag on the command line wins', async (t) => {
    const dir = await folder(t, {
      'app.yaml': [nginxClass('internal', 'example.com/internal'), service('web'), ingress({ name: 'web', className: 'internal' })],
      'values.yaml': 'controller:\n  ingressClassResource: { controllerValue: example.com/internal }\n  config: { use-gzip: "true" }\n',
    });
    const values = join(dir, 'values.yaml');
    const report = json(await run(['-o', 'json', '--helm-values', values, join(dir, 'app.yaml')]));
    assert.equal(report.selection.controllerClass, 'example.com/internal');
    assert.deepEqual(report.ingresses.map((item) => item.verdict), ['served']);
    assert.deepEqual([report.configMap?.source, report.configMap?.keys.map((key) => key.name)], ['helm-values', ['use-gzip']]);
    const flagWins = json(await run(['-o', 'json', '--helm-values', values, '--controller-class', 'k8s.io/ingress-nginx', join(dir, 'app.yaml')]));
    assert.deepEqual(flagWins.ingresses, [], 'the command line chose ingress-nginx\'s class');
  });

  const unusable: { name: string; files: Record<string, string>; argv: (dir: string) => string[]; stderr: RegExp }[] = [
    { name: 'a usage error', files: {}, argv: (dir) => [dir, '-A'], stderr: /^error: .*one or the other\n$/ },
    { name: 'a missing path', files: {}, argv: (dir) => [join(dir, 'missing')], stderr: /^error: .*missing: no such file or folder\n$/ },
    { name: 'a YAML error', files: { 'bad.yaml': 'kind: Ingress\n  x: [\n' }, argv: (dir) => [dir], stderr: /^error: .*bad\.yaml: / },
    { name: '--configmap naming nothing', files: { 'a.yaml': 'kind: Service\napiVersion: v1\nmetadata: {name: a}\n' }, argv: (dir) => [dir, '--configmap', 'x/y'], stderr: /^error: --configmap x\/y: no such ConfigMap/ },
    { name: 'an unreadable kubeconfig', files: {}, argv: (dir) => ['--kubeconfig', join(dir, 'nope')], stderr: /^error: cannot load kubeconfig/ },
  ];
  for (const row of unusable) {
    void it(`exit 2 with one line on stderr and nothing on stdout: ${row.name}`, async (t) => {
      const dir = await folder(t, row.files);
      const result = await run(row.argv(dir));
      assert.equal(result.code, 2);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, row.stderr);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    });
  }
});
