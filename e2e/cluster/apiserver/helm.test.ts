// The real helm v4 against the local API server: install, upgrade (with a
// value change and a removed template), history, uninstall. Helm keeps its
// releases as Secrets (sent as protobuf) and applies the chart's objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from './server.ts';
import { findHelm, runTool, type ToolResult } from './testing.ts';

const TEMPLATES = {
  'configmap.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: "{{ .Release.Name }}-cfg"
  {{- if .Values.annotate }}
  annotations: {note: "annotated"}
  {{- end }}
data:
  message: {{ .Values.message | quote }}
`,
  'deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: "{{ .Release.Name }}-web"}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: "{{ .Release.Name }}"}}
  template:
    metadata: {labels: {app: "{{ .Release.Name }}"}}
    spec:
      containers:
      - {name: web, image: "nginx:1.27", ports: [{containerPort: 8080}]}
`,
  'service.yaml': `{{- if .Values.service }}
apiVersion: v1
kind: Service
metadata: {name: "{{ .Release.Name }}-svc"}
spec:
  selector: {app: "{{ .Release.Name }}"}
  ports: [{port: 80, targetPort: 8080}]
{{- end }}
`,
};

async function writeChart(dir: string): Promise<string> {
  const chart = join(dir, 'tiny');
  await mkdir(join(chart, 'templates'), { recursive: true });
  await writeFile(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: tiny\nversion: 0.1.0\n');
  await writeFile(join(chart, 'values.yaml'), 'replicas: 1\nmessage: hello\nservice: true\nannotate: true\n');
  for (const [name, text] of Object.entries(TEMPLATES)) await writeFile(join(chart, 'templates', name), text);
  return chart;
}

void test('helm install, upgrade, history and uninstall', async () => {
  const bin = findHelm();
  assert.ok(bin, 'helm binary not found: run `npm run setup` (it unpacks helm into .cache/helm/helm) or set RESTY_HELM');
  const dir = await mkdtemp(join(tmpdir(), 'apiserver-helm-'));
  const server = await startApiServer({ rbac: true });
  try {
    const chart = await writeChart(dir);
    const env = { KUBECONFIG: await server.writeKubeconfig(join(dir, 'kubeconfig')), HOME: dir, HELM_CACHE_HOME: join(dir, 'cache'), HELM_CONFIG_HOME: join(dir, 'config'), HELM_DATA_HOME: join(dir, 'data') };
    const helm = async (...args: string[]): Promise<ToolResult> => {
      const res = await runTool(bin, args, env, dir);
      assert.equal(res.code, 0, `helm ${args.join(' ')} failed:\n${res.stderr}`);
      return res;
    };
    server.store.create('namespaces', { metadata: { name: 'apps' } });

    const installed = await helm('install', 'r1', chart, '-n', 'apps');
    assert.match(installed.stdout, /STATUS: deployed/);
    assert.deepEqual(server.store.get('configmaps', 'apps', 'r1-cfg').data, { message: 'hello' });
    assert.equal((server.store.get('configmaps', 'apps', 'r1-cfg').metadata as { annotations?: Record<string, string> }).annotations?.note, 'annotated');
    assert.equal(server.store.get('services', 'apps', 'r1-svc').kind, 'Service');
    const releases = server.store.list('secrets', { namespace: 'apps', labelSelector: 'owner=helm,name=r1' }).items;
    assert.equal(releases.length, 1, 'helm stored its release as a Secret');

    await helm('upgrade', 'r1', chart, '-n', 'apps', '--set', 'message=bye', '--set', 'replicas=3', '--set', 'service=false', '--set', 'annotate=false');
    assert.deepEqual(server.store.get('configmaps', 'apps', 'r1-cfg').data, { message: 'bye' });
    assert.equal((server.store.get('configmaps', 'apps', 'r1-cfg').metadata as { annotations?: Record<string, string> }).annotations?.note, undefined, 'server-side apply dropped the annotation');
    assert.equal((server.store.get('deployments.apps', 'apps', 'r1-web').spec as { replicas: number }).replicas, 3);
    assert.throws(() => server.store.get('services', 'apps', 'r1-svc'), (e: { code?: number }) => e.code === 404, 'the dropped template was deleted');
    const history = await helm('history', 'r1', '-n', 'apps');
    assert.match(history.stdout, /1\s+.*superseded/);
    assert.match(history.stdout, /2\s+.*deployed/);
    const list = await helm('list', '-n', 'apps');
    assert.match(list.stdout, /r1\s+apps\s+2\s/);

    await helm('uninstall', 'r1', '-n', 'apps');
    assert.equal(server.store.list('configmaps', { namespace: 'apps' }).items.length, 0);
    assert.equal(server.store.list('deployments.apps', { namespace: 'apps' }).items.length, 0);
    assert.equal(server.store.list('secrets', { namespace: 'apps' }).items.length, 0, 'release history removed');
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
