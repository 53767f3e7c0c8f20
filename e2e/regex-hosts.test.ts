// E2E, ingress-nginx v1.15.1's regex semantics through real kubectl, curl and
// openssl against the real controller and NGINX:
// - a plain Ingress's paths turn into case-insensitive regexes anchored at the
//   start once a use-regex Ingress shares the host (its Exact path stops being
//   exact, its Prefix path matches `/docsx`), and on that host only;
// - rewrite-target to an absolute URL with a capture answers a redirect to it;
// - the generated default certificate carries ingress-nginx's fake subject.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { appManifest, ingressManifest, startStack, waitFor } from './harness/index.ts';

const run = promisify(execFile);

interface CurlAnswer {
  readonly status: number;
  readonly pod: string | null;
  readonly location: string | null;
}

/** curl, plain HTTP, by name through --resolve: the status, the pod that answered (x-pod) and the Location. */
async function curl(port: number, host: string, path: string): Promise<CurlAnswer> {
  const { stdout } = await run('curl', ['-s', '--max-time', '5', '--resolve', `${host}:${port}:127.0.0.1`, '-D', '-', '-o', '/dev/null',
    `http://${host}:${port}${path}`]);
  const header = (name: string): string | null => new RegExp(`^${name}: *(\\S+)`, 'imu').exec(stdout)?.[1] ?? null;
  return { status: Number(/^HTTP\/\S+ (\d{3})/mu.exec(stdout)?.[1]), pod: header('x-pod'), location: header('location') };
}

/** `<status> <app>` of a request: the app is the pod name's first word (alpha-…, beta-…), `-` when no pod answered. */
async function served(port: number, host: string, path: string): Promise<string> {
  const answer = await curl(port, host, path);
  return `${answer.status} ${answer.pod?.split('-')[0] ?? '-'}`;
}

test('regex hosts, absolute rewrite targets and the default certificate, as ingress-nginx', async (t) => {
  const { cluster, controller } = await startStack(t);
  const port = controller.ports.http;
  await cluster.apply([
    appManifest({ name: 'alpha', replicas: 1 }),
    appManifest({ name: 'beta', replicas: 1 }),
    ingressManifest({
      name: 'plain', host: 'mixed.test',
      paths: [{ path: '/docs', service: 'alpha' }, { path: '/health', service: 'alpha', pathType: 'Exact' }],
    }),
    ingressManifest({ name: 'elsewhere', host: 'other.test', paths: [{ path: '/docs', service: 'alpha' }] }),
  ].join('---\n'));
  await waitFor('the plain Ingresses served', async () => (await served(port, 'mixed.test', '/docs')) === '200 alpha' || undefined);
  await waitFor('the other host served', async () => (await served(port, 'other.test', '/docs')) === '200 alpha' || undefined);

  // Without a regex Ingress on the host, NGINX's own exact and prefix matching (case-sensitive).
  const plainRows = [
    { path: '/docs/a', want: '200 alpha' },
    { path: '/DOCS', want: '404 -' },
    { path: '/docsx', want: '404 -' },
    { path: '/health', want: '200 alpha' },
    { path: '/healthz', want: '404 -' },
  ];
  await t.test('before: the plain Ingress keeps exact and prefix matching', async () => {
    for (const row of plainRows) assert.equal(await served(port, 'mixed.test', row.path), row.want, row.path);
  });

  await t.test('a use-regex Ingress on the host turns every path of the host into a case-insensitive regex', async () => {
    await cluster.apply(ingressManifest({
      name: 'regexy', host: 'mixed.test', annotations: { 'nginx.ingress.kubernetes.io/use-regex': 'true' },
      paths: [{ path: '/api/v[0-9]+', service: 'beta', pathType: 'ImplementationSpecific' }],
    }));
    await waitFor('the regex Ingress served', async () => (await served(port, 'mixed.test', '/api/v2')) === '200 beta' || undefined);
    const rows = [
      { name: 'the regex path, any case', path: '/API/V7/x', want: '200 beta' },
      { name: 'the plain Prefix path in another case', path: '/DOCS', want: '200 alpha' },
      { name: 'the plain Prefix path as ^/docs', path: '/docsx', want: '200 alpha' },
      { name: 'the plain Exact path is no longer exact', path: '/healthz', want: '200 alpha' },
      { name: 'the plain Exact path in another case', path: '/HEALTH', want: '200 alpha' },
      { name: 'nothing matches: still 404', path: '/nothing', want: '404 -' },
    ];
    for (const row of rows) assert.equal(await served(port, 'mixed.test', row.path), row.want, row.name);
  });

  await t.test('another host keeps exact and prefix matching', async () => {
    assert.equal(await served(port, 'other.test', '/docs/a'), '200 alpha');
    assert.equal(await served(port, 'other.test', '/DOCS'), '404 -');
    assert.equal(await served(port, 'other.test', '/docsx'), '404 -');
  });

  await t.test('rewrite-target to an absolute URL: a redirect carrying the capture and the query', async () => {
    await cluster.apply(ingressManifest({
      name: 'moved', host: 'moved.test',
      annotations: { 'nginx.ingress.kubernetes.io/use-regex': 'true', 'nginx.ingress.kubernetes.io/rewrite-target': 'https://other.example/$1' },
      paths: [{ path: '/old/(.*)', service: 'alpha', pathType: 'ImplementationSpecific' }],
    }));
    const answer = await waitFor('the redirect', async () => {
      const got = await curl(port, 'moved.test', '/Old/a/b?x=1');
      return got.status === 302 ? got : undefined;
    });
    assert.equal(answer.location, 'https://other.example/a/b?x=1');
    assert.equal(answer.pod, null, 'NGINX answers itself: no backend involved');
  });

  await t.test('the generated default certificate has ingress-nginx\'s subject (openssl s_client)', async () => {
    const { stdout } = await run('bash', ['-c',
      `openssl s_client -connect 127.0.0.1:${controller.ports.https} -servername unknown.test </dev/null 2>/dev/null | openssl x509 -noout -subject -issuer -ext subjectAltName`]);
    assert.match(stdout, /^subject=O = Acme Co, CN = Kubernetes Ingress Controller Fake Certificate$/mu);
    assert.match(stdout, /^issuer=O = Acme Co, CN = Kubernetes Ingress Controller Fake Certificate$/mu);
    assert.match(stdout, /DNS:ingress\.local/u);
  });
});
