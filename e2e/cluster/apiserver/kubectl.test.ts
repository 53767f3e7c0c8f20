// The real kubectl against the local API server: apply (create, then a
// 3-way merge from the last-applied annotation), get, describe, scale,
// rollout restart, server-side apply, delete.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from './server.ts';
import { KUBECTL, runTool, type ToolResult } from './testing.ts';
import type { JsonObject } from './patch.ts';

function manifest(opts: { env: string; path: string; withB: boolean }): string {
  return `apiVersion: v1
kind: Namespace
metadata: {name: demo}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: demo, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports: [{containerPort: 8080}]
        env:
        - {name: A, value: "${opts.env}"}
${opts.withB ? '        - {name: B, value: "b"}\n' : ''}---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: demo}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 8080}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: demo}
spec:
  ingressClassName: resty
  rules:
  - host: web.example.com
    http:
      paths:
      - {path: "${opts.path}", pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
`;
}

void test('kubectl apply/get/describe/scale/rollout restart/apply again/delete', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'apiserver-kubectl-'));
  const server = await startApiServer({ rbac: true });
  try {
    const env = { KUBECONFIG: await server.writeKubeconfig(join(dir, 'kubeconfig')), HOME: dir };
    const kubectl = async (...args: string[]): Promise<ToolResult> => {
      const res = await runTool(KUBECTL, args, env, dir);
      assert.equal(res.code, 0, `kubectl ${args.join(' ')} failed:\n${res.stderr}`);
      return res;
    };
    const deployment = (): JsonObject => server.store.get('deployments.apps', 'demo', 'web');
    const container = (): JsonObject => (((deployment().spec as JsonObject).template as JsonObject).spec as { containers: JsonObject[] }).containers[0];

    await writeFile(join(dir, 'v1.yaml'), manifest({ env: '1', path: '/', withB: true }));
    const applied = await kubectl('apply', '-f', 'v1.yaml');
    for (const line of ['namespace/demo created', 'deployment.apps/web created', 'service/web created', 'ingress.networking.k8s.io/web created']) {
      assert.ok(applied.stdout.includes(line), `apply printed "${line}": ${applied.stdout}`);
    }
    const listed = await kubectl('get', 'deploy,svc,ing', '-n', 'demo');
    assert.match(listed.stdout, /deployment\.apps\/web\s+0\/2/);
    assert.match(listed.stdout, /service\/web\s+ClusterIP\s+10\.96\./);
    assert.match(listed.stdout, /ingress\.networking\.k8s\.io\/web/);
    const uid = String((deployment().metadata as JsonObject).uid);
    server.store.create('events', { metadata: { name: 'web.1', namespace: 'demo' }, involvedObject: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'demo', uid },
      reason: 'ScalingReplicaSet', message: 'Scaled up replica set web-1 to 2', type: 'Normal', count: 1, firstTimestamp: new Date().toISOString(), lastTimestamp: new Date().toISOString(), source: { component: 'simulator' } });
    const described = await kubectl('describe', '-n', 'demo', 'deployment', 'web');
    assert.match(described.stdout, /Replicas:\s+2 desired/);
    assert.match(described.stdout, /ScalingReplicaSet\s+.*Scaled up replica set web-1 to 2/, 'describe found the event by its field selector');
    assert.match(described.stdout, /Port:\s+8080\/TCP/);

    await kubectl('scale', '-n', 'demo', 'deployment/web', '--replicas=4');
    assert.equal((deployment().spec as JsonObject).replicas, 4);
    await kubectl('rollout', 'restart', '-n', 'demo', 'deployment/web');
    const annotations = ((deployment().spec as { template: { metadata: { annotations?: Record<string, string> } } }).template.metadata.annotations) ?? {};
    assert.match(annotations['kubectl.kubernetes.io/restartedAt'] ?? '', /^\d{4}-/);

    await writeFile(join(dir, 'v2.yaml'), manifest({ env: '2', path: '/v2', withB: false }));
    const reapplied = await kubectl('apply', '-f', 'v2.yaml');
    assert.match(reapplied.stdout, /deployment\.apps\/web configured/);
    assert.match(reapplied.stdout, /service\/web unchanged/);
    assert.deepEqual(container().env, [{ name: 'A', value: '2' }], 'B was removed by the 3-way merge');
    assert.ok(annotations['kubectl.kubernetes.io/restartedAt'], 'the restart annotation survives apply');
    const ingress = server.store.get('ingresses.networking.k8s.io', 'demo', 'web') as { spec: { rules: { http: { paths: { path: string }[] } }[] } };
    assert.equal(ingress.spec.rules[0].http.paths[0].path, '/v2');

    await writeFile(join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa, namespace: demo}\ndata: {a: "1"}\n');
    await kubectl('apply', '--server-side', '-f', 'cm.yaml');
    assert.deepEqual(server.store.get('configmaps', 'demo', 'ssa').data, { a: '1' });
    const json = JSON.parse((await kubectl('get', 'cm', 'ssa', '-n', 'demo', '-o', 'json')).stdout) as JsonObject;
    assert.equal((json.metadata as JsonObject).name, 'ssa');

    await writeFile(join(dir, 'garbage.yaml'), 'kind: [');
    const garbage = await runTool(KUBECTL, ['apply', '-f', 'garbage.yaml'], env, dir);
    assert.notEqual(garbage.code, 0, 'unparsable YAML is an error');
    await writeFile(join(dir, 'bad.yaml'), 'apiVersion: v1\nkind: Service\nmetadata: {name: bad, namespace: demo}\nspec: {ports: [{port: 99999}]}\n');
    const invalid = await runTool(KUBECTL, ['apply', '-f', 'bad.yaml'], env, dir);
    assert.notEqual(invalid.code, 0);
    assert.match(invalid.stderr, /spec\.ports\[0\]\.port/);

    const deleted = await kubectl('delete', '-f', 'v2.yaml');
    assert.match(deleted.stdout, /deployment\.apps "web" deleted/);
    assert.throws(() => server.store.get('namespaces', undefined, 'demo'), (e: { code?: number }) => e.code === 404, 'kubectl waited for the namespace to go');
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

void test('kubectl typed create commands (protobuf bodies) and RBAC denial', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'apiserver-kubectl-'));
  const server = await startApiServer({ rbac: true });
  try {
    const admin = { KUBECONFIG: await server.writeKubeconfig(join(dir, 'admin')), HOME: dir };
    const rows: { name: string; args: string[]; check: () => void }[] = [
      { name: 'namespace', args: ['create', 'namespace', 'team'], check: () => assert.equal((server.store.get('namespaces', undefined, 'team').status as JsonObject).phase, 'Active') },
      { name: 'secret', args: ['create', 'secret', 'generic', 's', '-n', 'team', '--from-literal=user=admin'], check: () => assert.deepEqual(server.store.get('secrets', 'team', 's').data, { user: Buffer.from('admin').toString('base64') }) },
      { name: 'configmap', args: ['create', 'configmap', 'c', '-n', 'team', '--from-literal=k=v'], check: () => assert.deepEqual(server.store.get('configmaps', 'team', 'c').data, { k: 'v' }) },
      { name: 'serviceaccount', args: ['create', 'serviceaccount', 'bot', '-n', 'team'], check: () => assert.equal(server.store.get('serviceaccounts', 'team', 'bot').kind, 'ServiceAccount') },
      { name: 'role', args: ['create', 'role', 'pod-reader', '-n', 'team', '--verb=get,list', '--resource=pods'], check: () => assert.deepEqual(server.store.get('roles.rbac.authorization.k8s.io', 'team', 'pod-reader').rules, [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]) },
      { name: 'rolebinding', args: ['create', 'rolebinding', 'bot-reads', '-n', 'team', '--role=pod-reader', '--serviceaccount=team:bot'], check: () => assert.deepEqual(server.store.get('rolebindings.rbac.authorization.k8s.io', 'team', 'bot-reads').subjects, [{ kind: 'ServiceAccount', name: 'bot', namespace: 'team' }]) },
    ];
    for (const row of rows) {
      const res = await runTool(KUBECTL, row.args, admin, dir);
      assert.equal(res.code, 0, `${row.name}: ${res.stderr}`);
      row.check();
    }
    const bot = { KUBECONFIG: await server.writeKubeconfig(join(dir, 'bot'), 'system:serviceaccount:team:bot'), HOME: dir };
    const allowed = await runTool(KUBECTL, ['get', 'pods', '-n', 'team'], bot, dir);
    assert.equal(allowed.code, 0, allowed.stderr);
    const denied = await runTool(KUBECTL, ['get', 'secrets', '-n', 'team'], bot, dir);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /Forbidden.*"system:serviceaccount:team:bot" cannot list resource "secrets"/);
    const canI: { name: string; args: string[]; want: string }[] = [
      { name: 'granted verb', args: ['get', 'pods'], want: 'yes' },
      { name: 'ungranted resource', args: ['list', 'secrets'], want: 'no' },
      { name: 'ungranted verb', args: ['delete', 'pods'], want: 'no' },
    ];
    for (const row of canI) {
      const res = await runTool(KUBECTL, ['auth', 'can-i', ...row.args, '-n', 'team', '--as=system:serviceaccount:team:bot'], admin, dir);
      assert.equal(res.stdout.trim(), row.want, `${row.name}: ${res.stderr}`);
    }
    const impersonating = await runTool(KUBECTL, ['get', 'pods', '-n', 'team', '--as=admin'], bot, dir);
    assert.match(impersonating.stderr, /cannot impersonate/, 'only system:masters may impersonate');
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
