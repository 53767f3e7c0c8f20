// E2E: session affinity by cookie as ingress-nginx users write it, applied
// with the real kubectl and checked with curl: the Set-Cookie attributes, a
// session pinned to its pod over 24 requests, persistent mode keeping every
// session on its pod across a scale-up 2 → 4, and change-on-failure sending a
// session whose pod died (its endpoint not yet gone) to another pod with a new
// cookie (and, without it, retrying the dead pod: 502), a canary whose clients
// stay on their side (sticky) or get no cookie (legacy), and request metrics
// whose labels gain no value per session or pod. Once the Ingresses are live,
// none of it reloads NGINX: affinity is data for Lua.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { appManifest, ingressManifest, probeTcp, waitFor, waitForResponse, startStack, yamlDocuments } from './harness/index.ts';

const run = promisify(execFile);
const PREFIX = 'nginx.ingress.kubernetes.io';
const HOST = 'sticky.test';
const FRAGILE = 'fragile.test';

interface Answer {
  /** The pod that answered, or `status N`. */
  readonly pod: string;
  readonly setCookie: string | null;
}

/** One curl through NGINX with this Host and Cookie; what answered and the Set-Cookie it got. */
async function curl(http: string, host: string, cookie?: string): Promise<Answer> {
  const args = ['-s', '-o', '/dev/null', '-w', '%{http_code}\\n%header{x-pod}\\n%header{set-cookie}', '-H', `Host: ${host}`];
  if (cookie !== undefined) args.push('-H', `Cookie: ${cookie}`);
  const { stdout } = await run('curl', [...args, `${http}/`]);
  const [code = '', pod = '', setCookie = ''] = stdout.split('\n');
  return { pod: code === '200' ? pod : `status ${code}`, setCookie: setCookie === '' ? null : setCookie };
}

/** The `name=value` of a Set-Cookie, to send back. */
function pair(setCookie: string | null): string {
  assert.ok(setCookie, 'a Set-Cookie header');
  return setCookie.split(';')[0] ?? '';
}

function annotated(annotations: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value]));
}

/** A Service without selector and the EndpointSlice a test writes for it: its endpoints stay when a pod dies. */
function manualService(name: string, endpoints: readonly { ip: string; port: number }[]): string {
  return yamlDocuments([
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] } },
    {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: 'IPv4',
      metadata: { name: `${name}-manual`, namespace: 'default', labels: { 'kubernetes.io/service-name': name } },
      endpoints: endpoints.map((e) => ({ addresses: [e.ip], conditions: { ready: true, serving: true, terminating: false } })),
      ports: [{ name: 'http', port: endpoints[0]?.port ?? 8080, protocol: 'TCP' }],
    },
  ]);
}

test('session affinity by cookie, without reloads', async (t) => {
  const { cluster, controller } = await startStack(t);
  const before = controller.logs().length;
  await cluster.apply([
    appManifest({ name: 'web', replicas: 2 }),
    ingressManifest({ name: 'web', host: HOST, paths: [{ path: '/', service: 'web' }] }),
  ].join('---\n'));
  await waitForResponse(controller.http, { host: HOST, path: '/' }, (r) => r.status === 200);
  await controller.waitForReload(before);
  const reloads = controller.reloadCount();
  /** Applies the Ingress with these affinity annotations, then waits until `ready` holds for a new client. */
  const applyAffinity = async (annotations: Record<string, string>, ready: (a: Answer) => boolean): Promise<void> => {
    await cluster.apply(ingressManifest({ name: 'web', host: HOST, paths: [{ path: '/', service: 'web' }], annotations: annotated(annotations) }));
    await waitFor(`affinity ${JSON.stringify(annotations)}`, async () => (ready(await curl(controller.http, HOST)) ? true : undefined), { timeoutMs: 10_000 });
  };

  await t.test('Set-Cookie carries the attributes ingress-nginx sets, and no pod address', async () => {
    await applyAffinity({
      'affinity': 'cookie', 'session-cookie-name': 'SERVERID', 'session-cookie-expires': '172800', 'session-cookie-max-age': '172800',
      'session-cookie-samesite': 'Lax', 'session-cookie-domain': HOST,
    }, (a) => a.setCookie?.startsWith('SERVERID=') === true);
    const { setCookie } = await curl(controller.http, HOST);
    assert.match(setCookie ?? '', /^SERVERID=[^;|]+\|[0-9a-f]{32}; Expires=[A-Z][a-z]{2}, \d\d-[A-Z][a-z]{2}-\d\d \d\d:\d\d:\d\d GMT; Max-Age=172800; Domain=sticky\.test; Path=\/; HttpOnly; SameSite=Lax$/);
    for (const pod of cluster.pods('web')) assert.ok(!(setCookie ?? '').includes(pod.ip), `the cookie names no address: ${setCookie}`);
  });

  await t.test('a session stays on its pod over 24 requests; new clients spread over both pods', async () => {
    await applyAffinity({ 'affinity': 'cookie' }, (a) => a.setCookie?.startsWith('INGRESSCOOKIE=') === true);
    const first = await curl(controller.http, HOST);
    const cookie = pair(first.setCookie);
    for (let i = 0; i < 24; i++) assert.deepEqual(await curl(controller.http, HOST, cookie), { pod: first.pod, setCookie: null }, `request ${i}`);
    const seen = new Set<string>();
    for (let i = 0; i < 30 && seen.size < 2; i++) seen.add((await curl(controller.http, HOST)).pod);
    assert.equal(seen.size, 2, 'new sessions reach both pods');
  });

  await t.test('persistent: every session keeps its pod when the Deployment scales 2 → 4', async () => {
    await applyAffinity({ 'affinity': 'cookie', 'affinity-mode': 'persistent', 'session-cookie-name': 'PERSIST' }, (a) => a.setCookie?.startsWith('PERSIST=') === true);
    const sessions: Answer[] = [];
    for (let i = 0; i < 12; i++) {
      const got = await curl(controller.http, HOST);
      sessions.push({ pod: got.pod, setCookie: pair(got.setCookie) });
    }
    const original = new Set(cluster.pods('web').map((p) => p.name));
    await cluster.kubectlOk(['scale', 'deployment', 'web', '--replicas=4']);
    // New sessions reach a new pod once Lua has the new endpoints.
    await waitFor('a new pod serves new sessions', async () => (original.has((await curl(controller.http, HOST)).pod) ? undefined : true), { timeoutMs: 15_000 });
    for (const session of sessions) {
      for (let i = 0; i < 20; i++) assert.deepEqual(await curl(controller.http, HOST, session.setCookie ?? ''), { pod: session.pod, setCookie: null });
    }
  });

  await t.test('a canary (sticky by default): a client sent to either side stays there; legacy: canary clients get no cookie', async () => {
    await cluster.apply(appManifest({ name: 'web-canary', replicas: 1 }));
    const canary = (annotations: Record<string, string>): string => ingressManifest({
      name: 'web-canary', host: HOST, paths: [{ path: '/', service: 'web-canary' }], annotations: annotated({ 'canary': 'true', 'canary-weight': '50', ...annotations }),
    });
    await cluster.apply(canary({}));
    const side = (pod: string): string => (pod.startsWith('web-canary-') ? 'canary' : 'main');
    const sessions = new Map<string, Answer>();
    await waitFor('a session on each side', async () => {
      const got = await curl(controller.http, HOST);
      if (got.setCookie !== null) sessions.set(side(got.pod), got);
      return sessions.size === 2 ? true : undefined;
    }, { timeoutMs: 20_000 });
    for (const [where, session] of sessions) {
      for (let i = 0; i < 20; i++) assert.deepEqual(await curl(controller.http, HOST, pair(session.setCookie)), { pod: session.pod, setCookie: null }, `${where} session, request ${i}`);
    }
    await cluster.apply(canary({ 'affinity-canary-behavior': 'legacy' }));
    await waitFor('legacy: a canary answer without a cookie', async () => {
      const got = await curl(controller.http, HOST);
      return side(got.pod) === 'canary' && got.setCookie === null ? true : undefined;
    }, { timeoutMs: 10_000 });
    // A session of the main backend still stays there (ingress-nginx checks it first, whatever the behaviour).
    const main = sessions.get('main');
    for (let i = 0; i < 10; i++) assert.equal((await curl(controller.http, HOST, pair(main?.setCookie ?? null))).pod, main?.pod);
    await cluster.kubectlOk(['delete', 'ingress', 'web-canary']);
  });

  await t.test('the request metrics of the host carry no per-session or per-pod label values', async () => {
    assert.ok(controller.metricsUrl, 'metrics are served');
    const series = await waitFor('request series of the host', async () => {
      const text = await (await fetch(controller.metricsUrl!)).text();
      const lines = text.split('\n').filter((line) => line.startsWith('nginx_ingress_controller_requests{') && line.includes(`host="${HOST}"`));
      return lines.some((line) => line.includes('canary="default-web-canary-80"')) ? lines : undefined;
    }, { timeoutMs: 10_000 });
    const labels = new Set(series.map((line) => line.replace(/,?(method|status|controller_\w+)="[^"]*"/g, '').replace(/\} .*$/, '}')));
    assert.deepEqual([...labels].sort(), [
      `nginx_ingress_controller_requests{host="${HOST}",namespace="default",ingress="web",service="web",path="/",canary=""}`,
      `nginx_ingress_controller_requests{host="${HOST}",namespace="default",ingress="web",service="web",path="/",canary="default-web-canary-80"}`,
    ]);
  });

  await t.test('adding, changing and scaling with affinity reloaded nothing', () => {
    assert.equal(controller.reloadCount() - reloads, 0, 'affinity changes reloaded NGINX');
  });

  await t.test('change-on-failure: a session whose pod died goes to another pod with a new cookie', async () => {
    await cluster.apply(appManifest({ name: 'fragile', replicas: 2 }));
    const pods = await waitFor('two fragile pods', () => {
      const ready = cluster.pods('fragile').filter((p) => p.state === 'ready');
      return ready.length === 2 ? ready : undefined;
    });
    const logsBefore = controller.logs().length;
    await cluster.apply([
      manualService('fragile-manual', pods),
      ingressManifest({
        name: 'fragile', host: FRAGILE, paths: [{ path: '/', service: 'fragile-manual' }],
        annotations: annotated({ 'affinity': 'cookie', 'affinity-mode': 'persistent', 'session-cookie-change-on-failure': 'true' }),
      }),
    ].join('---\n'));
    // A session on each pod: whichever pod the scale-down stops, one session loses its pod.
    const sessions = new Map<string, Answer>();
    await waitFor('a session on each fragile pod', async () => {
      const got = await curl(controller.http, FRAGILE);
      if (got.setCookie !== null) sessions.set(got.pod, got);
      return sessions.size === 2 ? true : undefined;
    }, { timeoutMs: 15_000 });
    // The new host reloaded once (it may answer through Lua before that reload: wait for it); the changes below must not.
    await controller.waitForReload(logsBefore);
    const reloadsBefore = controller.reloadCount();
    // The pod dies; the Service's endpoints (written by hand) still name it, as before a real controller notices.
    await cluster.kubectlOk(['scale', 'deployment', 'fragile', '--replicas=1']);
    const victim = await waitFor('a fragile pod is gone', async () => {
      for (const pod of pods) if (!(await probeTcp(pod.ip, pod.port))) return pod;
      return undefined;
    }, { timeoutMs: 15_000 });
    const survivor = pods.find((p) => p.name !== victim.name);
    const session = sessions.get(victim.name);
    assert.ok(survivor && session, `sessions on ${[...sessions.keys()].join()}, ${victim.name} died`);
    const moved = await curl(controller.http, FRAGILE, pair(session.setCookie));
    assert.equal(moved.pod, survivor.name);
    assert.ok(moved.setCookie !== null && pair(moved.setCookie) !== pair(session.setCookie), `a new cookie: ${moved.setCookie}`);
    for (let i = 0; i < 20; i++) assert.deepEqual(await curl(controller.http, FRAGILE, pair(moved.setCookie)), { pod: survivor.name, setCookie: null });

    // Without change-on-failure every try of that session goes to its dead pod, as in ingress-nginx.
    await cluster.apply(ingressManifest({
      name: 'fragile', host: FRAGILE, paths: [{ path: '/', service: 'fragile-manual' }],
      annotations: annotated({ 'affinity': 'cookie', 'affinity-mode': 'persistent', 'session-cookie-change-on-failure': 'false' }),
    }));
    await waitFor('change-on-failure off', async () => ((await curl(controller.http, FRAGILE, pair(session.setCookie))).pod === 'status 502' ? true : undefined), { timeoutMs: 10_000 });
    assert.equal(controller.reloadCount() - reloadsBefore, 0, 'change-on-failure reloaded NGINX');
  });

  await t.test('removing affinity: no more cookies, no reload', async () => {
    const reloadsBefore = controller.reloadCount();
    await applyAffinity({}, (a) => a.setCookie === null);
    assert.equal(controller.reloadCount() - reloadsBefore, 0, 'removing affinity reloaded NGINX');
  });
});
