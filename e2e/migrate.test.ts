// E2E: `resty-ingress migrate` against a cluster, as a user runs it before
// switching: the objects are created with the real kubectl in the local API
// server, then `node bin/resty-ingress.js migrate --kubeconfig …` runs as a
// child process and its JSON report and exit code are checked. The
// ingress-nginx ConfigMap lives in the controller's namespace, not the apps':
// migrate finds it by its name across namespaces, and a user who may read
// only their namespace (RBAC on) gets the report without it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, startCluster, yamlDocuments, type Cluster } from './harness/index.ts';

interface MigrateRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

interface Report {
  readonly input: { readonly kind: string; readonly context?: string; readonly namespace?: string | null };
  readonly install: { readonly served: boolean; readonly why: readonly string[] };
  readonly configMap: { readonly name: string; readonly source: string; readonly keys: readonly { readonly name: string; readonly status: string; readonly failsClosed: boolean }[] } | null;
  readonly ingresses: readonly { readonly namespace: string; readonly name: string; readonly verdict: string; readonly why: string | null; readonly canary: boolean }[];
  readonly otherIngresses: readonly { readonly namespace: string; readonly name: string }[];
  readonly notes: readonly string[];
  readonly exitCode: number;
}

/** Runs the launcher with `migrate <args>`; bounded: killed after 30 s. */
function migrate(args: readonly string[]): Promise<MigrateRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/resty-ingress.js'), 'migrate', ...args], {
      cwd: REPO_ROOT, env: { ...process.env, KUBECONFIG: '' }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000, killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function report(args: readonly string[], code: number): Promise<Report> {
  const run = await migrate([...args, '-o', 'json']);
  assert.equal(run.code, code, `exit code; stderr: ${run.stderr}`);
  return JSON.parse(run.stdout) as Report;
}

const verdicts = (result: Report): Record<string, string> =>
  Object.fromEntries(result.ingresses.map((item) => [`${item.namespace}/${item.name}`, item.verdict]));

const backend = (service: string): object => ({ service: { name: service, port: { number: 80 } } });

function ingress(namespace: string, name: string, host: string, path: string, service: string, annotations: Record<string, string> = {}, className = 'nginx'): object {
  return {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress',
    metadata: { name, namespace, annotations: Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`nginx.ingress.kubernetes.io/${key}`, value])) },
    spec: { ingressClassName: className, rules: [{ host, http: { paths: [{ path, pathType: 'Prefix', backend: backend(service) }] } }] },
  };
}

function service(namespace: string, name: string): object {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }] } };
}

/** An ingress-nginx install's objects: its class and ConfigMap, a shop with a canary, an admin app behind a WAF (ModSecurity: not supported, fails closed). */
async function installApps(cluster: Cluster): Promise<void> {
  await cluster.apply(yamlDocuments([
    ...['ingress-nginx', 'shop', 'admin'].map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
    { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ingress-nginx-controller', namespace: 'ingress-nginx' }, data: { 'proxy-body-size': '8m', 'enable-brotli': 'true' } },
    service('shop', 'web'), service('shop', 'web-v2'), service('admin', 'backoffice'), service('default', 'hello'),
    ingress('shop', 'web', 'shop.test', '/', 'web', { 'proxy-body-size': '16m' }),
    ingress('shop', 'web-canary', 'shop.test', '/', 'web-v2', { 'canary': 'true', 'canary-by-header': 'X-Canary' }),
    ingress('admin', 'backoffice', 'admin.test', '/', 'backoffice', { 'enable-modsecurity': 'true' }),
    ingress('default', 'hello', 'hello.test', '/', 'hello'),
    ingress('default', 'hello-traefik', 'hello.test', '/other', 'hello', {}, 'traefik'),
  ]));
}

/** RBAC for user `dev`: Ingresses and Services of `shop`, IngressClasses; no ConfigMaps anywhere. */
function devAccess(): string {
  const rule = (apiGroups: string[], resources: string[]): object => ({ apiGroups, resources, verbs: ['get', 'list'] });
  const subjects = [{ kind: 'User', name: 'dev', apiGroup: 'rbac.authorization.k8s.io' }];
  return yamlDocuments([
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'dev', namespace: 'shop' }, rules: [rule(['networking.k8s.io'], ['ingresses']), rule([''], ['services'])] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'dev', namespace: 'shop' }, subjects, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'dev' } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'dev-classes' }, rules: [rule(['networking.k8s.io'], ['ingressclasses'])] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'dev-classes' }, subjects, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'dev-classes' } },
  ]);
}

test('migrate against the local cluster: every namespace, one namespace, a context, a user of one namespace, a fail-closed ConfigMap key', async (t) => {
  const cluster = await startCluster({ rbac: true });
  t.after(() => cluster.stop());
  await installApps(cluster);
  const kubeconfig = ['--kubeconfig', cluster.kubeconfig];

  const all = await report([...kubeconfig, '-A'], 1);
  assert.deepEqual(all.input, { kind: 'cluster', context: 'resty-e2e', namespace: null });
  assert.deepEqual(verdicts(all), {
    'admin/backoffice': 'not-served', 'default/hello': 'served', 'shop/web': 'served', 'shop/web-canary': 'served-with-differences',
  });
  assert.match(all.ingresses.find((item) => item.name === 'backoffice')?.why ?? '', /enable-modsecurity asks for a protection/);
  assert.equal(all.ingresses.find((item) => item.name === 'web-canary')?.canary, true);
  assert.deepEqual(all.otherIngresses, [{ namespace: 'default', name: 'hello-traefik' }]);
  assert.equal(all.configMap?.name, 'ingress-nginx/ingress-nginx-controller', 'found in the controller\'s namespace');
  assert.deepEqual(all.configMap?.keys.map((key) => `${key.name}:${key.status}`), ['enable-brotli:not-supported', 'proxy-body-size:supported']);

  // One namespace: the shop is served (exit 0); the ConfigMap is still found in its own namespace.
  const shop = await report([...kubeconfig, '-n', 'shop'], 0);
  assert.deepEqual(verdicts(shop), { 'shop/web': 'served', 'shop/web-canary': 'served-with-differences' });
  assert.equal(shop.configMap?.name, 'ingress-nginx/ingress-nginx-controller');

  // No -n: the context's namespace, as kubectl; --context picks another context of the kubeconfig.
  assert.deepEqual(Object.keys(verdicts(await report(kubeconfig, 0))), ['default/hello']);
  await cluster.kubectlOk(['config', 'set-context', 'admin-team', '--cluster=resty-e2e', '--user=admin', '--namespace=admin', '--kubeconfig', cluster.kubeconfig]);
  const admin = await report([...kubeconfig, '--context', 'admin-team'], 1);
  assert.deepEqual([admin.input.context, admin.input.namespace, verdicts(admin)], ['admin-team', 'admin', { 'admin/backoffice': 'not-served' }]);

  // A user allowed only their namespace gets the report without the ConfigMap, and is told why.
  await cluster.apply(devAccess());
  const dev = await report(['--kubeconfig', await cluster.kubeconfigFor('dev'), '-n', 'shop'], 0);
  assert.deepEqual(verdicts(dev), { 'shop/web': 'served', 'shop/web-canary': 'served-with-differences' });
  assert.equal(dev.configMap, null);
  assert.match(dev.notes.join('\n'), /ConfigMaps could not be listed .*forbidden.*--configmap/);
  const denied = await migrate(['--kubeconfig', await cluster.kubeconfigFor('dev'), '-A']);
  assert.equal(denied.code, 2, 'listing Ingresses everywhere is forbidden: no report');
  assert.match(denied.stderr, /^error: cannot list ingresses: HTTP 403/);

  // A protective ConfigMap key: nothing would be served, whatever the Ingresses say.
  await cluster.kubectlOk(['-n', 'ingress-nginx', 'patch', 'configmap', 'ingress-nginx-controller', '--type=merge', '-p', '{"data":{"enable-modsecurity":"true"}}']);
  const closed = await report([...kubeconfig, '-n', 'shop'], 1);
  assert.equal(closed.install.served, false);
  assert.match(closed.install.why.join('\n'), /enable-modsecurity/);
  assert.deepEqual(verdicts(closed), { 'shop/web': 'not-served', 'shop/web-canary': 'not-served' });

  // Text output (the default) ends with the summary line.
  const text = await migrate([...kubeconfig, '-A']);
  assert.equal(text.code, 1);
  assert.match(text.stdout, /\nSummary: 4 Ingresses: 0 served as is, 0 served with differences, 4 not served; .*exit 1\n$/);

  // Usage errors and an unknown context: exit 2, one line on stderr, no report.
  for (const args of [[...kubeconfig, '--context', 'nope'], [...kubeconfig, '-n', 'shop', '-A']]) {
    const run = await migrate(args);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^error: /);
  }
});
