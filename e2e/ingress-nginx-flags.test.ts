// E2E: the controller started with the flags an ingress-nginx install passes
// (its chart's own plus a typical controller.extraArgs, in pflag's forms) runs
// and serves, logging one line per ingress-nginx flag it has none for, once;
// a refused flag stops it at once with what to do instead (docs/flags.md).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { appManifest, ingressClassManifest, ingressManifest, request, REPO_ROOT, startCluster, startController, startStack, waitForResponse, type LogEntry } from './harness/index.ts';

/** The ingress-nginx flags taken without a flag of ours, by name, with the pino level they must be logged at. */
const NOTICED: Readonly<Record<string, number>> = {
  'v': 30, 'profiling': 40, 'sync-period': 40, 'post-shutdown-grace-period': 40,
  'enable-topology-aware-routing': 40, 'report-node-internal-ip-address': 40, 'logtostderr': 40, 'watch-namespace-selector': 40,
};

const HEALTHZ_HOST = '127.0.0.3';

const INGRESS_NGINX_ARGS = [
  // what ingress-nginx's chart renders
  '--publish-service=default/ingress-nginx-controller', '--election-id=ingress-nginx-leader',
  '--controller-class=k8s.io/ingress-nginx', '--ingress-class=nginx', '--enable-metrics=true',
  // a typical controller.extraArgs, as --name=value, plus the other forms pflag takes
  '--v=2', '--watch-ingress-without-class=true', '--profiling=false', '--sync-period', '10m',
  '--post-shutdown-grace-period=5', '--time-buckets=0.1,0.5,1,5', '--enable-topology-aware-routing',
  '--report-node-internal-ip-address=true', '--logtostderr', '--watch-namespace-selector=', '--disable-catch-all=false',
  '-v', '2', // given twice (the chart's args and extraArgs can repeat one): still one line
  // the health endpoint on another loopback address, with ingress-nginx's other health path
  `--healthz-host=${HEALTHZ_HOST}`, '--health-check-path=/live',
];

/** Log lines about ingress-nginx flag `name`. */
const linesAbout = (logs: readonly LogEntry[], name: string): LogEntry[] => logs.filter((entry) => entry.flag === name && entry.msg.startsWith(`ingress-nginx flag --${name}=`));

test('an ingress-nginx command line starts the controller, which serves and warns once per flag', async (t) => {
  const { cluster, controller } = await startStack(t, { ingressClass: ['nginx', 'k8s.io/ingress-nginx'], controller: { args: INGRESS_NGINX_ARGS } });
  await cluster.apply([
    appManifest({ name: 'app', replicas: 1 }),
    ingressManifest({ name: 'classed', host: 'classed.test', className: 'nginx', paths: [{ path: '/', service: 'app' }] }),
    ingressManifest({ name: 'classless', host: 'classless.test', className: null, paths: [{ path: '/', service: 'app' }] }),
  ].join('---\n'));

  await t.test('serves the Ingress of class nginx and, with --watch-ingress-without-class, the classless one', async () => {
    await waitForResponse(controller.http, { host: 'classless.test' }, (r) => r.status === 200);
    await waitForResponse(controller.http, { host: 'classed.test' }, (r) => r.status === 200);
    assert.equal((await request(controller.http, { host: 'unknown.test' })).status, 404);
  });

  await t.test('--healthz-host and --health-check-path: liveness on the given address and path only', async () => {
    const base = `http://${HEALTHZ_HOST}:${controller.ports.healthz}`;
    for (const path of ['/live', '/healthz']) assert.equal((await request(base, { path })).status, 200, path);
    await assert.rejects(request(`http://127.0.0.1:${controller.ports.healthz}`, { path: '/healthz' }), 'nothing listens on the harness\'s address');
  });

  await t.test('one line per flag taken, at its level, still one after a reload', async () => {
    const before = controller.logs().length;
    await cluster.apply(ingressManifest({ name: 'later', host: 'later.test', className: 'nginx', paths: [{ path: '/', service: 'app' }] }));
    await controller.waitForReload(before, 20_000);
    for (const [name, level] of Object.entries(NOTICED)) {
      const lines = linesAbout(controller.logs(), name);
      assert.equal(lines.length, 1, `--${name}: ${lines.map((line) => line.raw).join('\n')}`);
      assert.equal(lines[0]?.level, level, `--${name} level`);
    }
    assert.match(linesAbout(controller.logs(), 'v')[0]?.msg ?? '', /--v=2: .*--log-level info/);
    const others = controller.logs().filter((entry) => typeof entry.flag === 'string' && !(entry.flag in NOTICED));
    assert.deepEqual(others.map((entry) => entry.raw), [], 'flags the controller parses itself say nothing');
  });
});

test('--apiserver-host and --certificate-authority: the API server a kubeconfig does not name', async (t) => {
  const cluster = await startCluster();
  t.after(() => cluster.stop());
  await cluster.apply(ingressClassManifest('resty', 'resty-ingress.dev/controller'));
  // The admin kubeconfig with a closed port for its server and without its CA: only the flags make it work.
  const text = await readFile(cluster.kubeconfig, 'utf8');
  const server = /server: (https:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
  const caData = /certificate-authority-data: (\S+)/.exec(text)?.[1];
  assert.ok(server !== undefined && caData !== undefined, 'the admin kubeconfig names its server and CA');
  const elsewhere = join(cluster.dir, 'kubeconfig-elsewhere');
  const caFile = join(cluster.dir, 'apiserver-ca.crt');
  await writeFile(elsewhere, text.replace(server, 'https://127.0.0.1:9').replace(/\n\s*certificate-authority-data: \S+/, ''));
  await writeFile(caFile, Buffer.from(caData, 'base64'));
  const controller = await startController(cluster, { kubeconfig: elsewhere, args: [`--apiserver-host=${server}`, '--certificate-authority', caFile] });
  t.after(() => controller.stop());
  await cluster.apply([
    appManifest({ name: 'app', replicas: 1 }),
    ingressManifest({ name: 'app', host: 'app.test', paths: [{ path: '/', service: 'app' }] }),
  ].join('---\n'));
  await waitForResponse(controller.http, { host: 'app.test' }, (r) => r.status === 200);
});

/** Runs the launcher with `args` and resolves with its exit code and stderr (it must exit before anything starts). */
function runLauncher(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/resty-ingress.js'), ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`still running after 20 s: ${stderr}`)); }, 20_000);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, stderr }); });
  });
}

test('a refused or unknown flag stops the controller at once with one line saying why', async (t) => {
  const rows = [
    { name: 'refused: says what to do instead', args: ['--v=2', '--watch-namespace-selector=team=a'], says: /^error: ingress-nginx flag --watch-namespace-selector=team=a is not supported: .*--watch-namespace/ },
    { name: 'a flag nobody has', args: ['--v=2', '--enable-magic'], says: /^error: .*--enable-magic/ },
    { name: 'a bad value for an ignored flag', args: ['--sync-period=soon'], says: /^error: .*--sync-period/ },
  ];
  for (const row of rows) {
    await t.test(row.name, async () => {
      const { code, stderr } = await runLauncher(row.args);
      assert.equal(code, 2, stderr);
      assert.match(stderr, row.says);
      assert.equal(stderr.trim().split('\n').length, 1, stderr);
    });
  }
});
