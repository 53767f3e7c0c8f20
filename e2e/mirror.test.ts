// E2E: mirror-target, mirror-request-body and mirror-host as ingress-nginx users
// write them, applied with the real kubectl and checked with curl through the
// real NGINX. The mirror targets are HTTP servers of this test on loopback
// addresses that record what they receive (an echo pod's answer to a copy is
// dropped by NGINX, so only the target can tell what the copy was). The client
// always gets the echo pod's answer; the copy carries the method, URI, Host
// and, unless mirror-request-body is off, the body; a slow or dead mirror
// fails nothing; a mirrored request is one client request in the metrics; a
// target NGINX cannot resolve refuses its own Ingress only; and
// annotations-risk-level Medium refuses mirror-target (High risk) as
// ingress-nginx does.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { appManifest, freePort, ingressManifest, request, startStack, waitFor, waitForResponse, yamlDocuments } from './harness/index.ts';

const run = promisify(execFile);
const PREFIX = 'nginx.ingress.kubernetes.io';

/** One request as a mirror target received it. */
interface Copy {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A mirror target that records each request and answers after `holdMs`. */
async function mirrorTarget(holdMs = 0): Promise<{ server: Server; port: number; copies: Copy[] }> {
  const copies: Copy[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      copies.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      setTimeout(() => res.end('mirror answer'), holdMs).unref();
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { server, port: (server.address() as AddressInfo).port, copies };
}

function configMap(data: Record<string, string>): string {
  return yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resty-config', namespace: 'default' }, data }]);
}

function mirrored(name: string, host: string, annotations: Record<string, string>): string {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value]));
  // The harness's YAML leaves `off` bare, which kubectl (YAML 1.1) reads as a boolean; users quote it.
  return ingressManifest({ name, host, annotations: prefixed, paths: [{ path: '/', service: 'web' }] }).replace(/: off$/gmu, ': "off"');
}

/** curl through NGINX: status, the answering pod and the seconds it took. */
async function curl(http: string, host: string, path: string, args: readonly string[] = []): Promise<{ status: number; pod: string; seconds: number }> {
  const { stdout } = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code} %{time_total} %header{x-pod}', '-H', `Host: ${host}`, ...args, `${http}${path}`]);
  const [status = '0', seconds = '0', pod = ''] = stdout.trim().split(' ');
  return { status: Number(status), pod, seconds: Number(seconds) };
}

/** The requests counter of `host` summed over its series (method, status, path…). */
async function requestsOf(metricsUrl: string, host: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  let sum = 0;
  for (const match of text.matchAll(/^nginx_ingress_controller_requests\{([^}]*)\} (\d+)$/gmu)) {
    if ((match[1] ?? '').includes(`host="${host}"`)) sum += Number(match[2]);
  }
  return sum;
}

test('mirror-target copies requests to the target; the client gets the main answer', async (t) => {
  const { cluster, controller } = await startStack(t, { controller: { args: ['--configmap', 'default/resty-config'] } });
  const target = await mirrorTarget();
  const slow = await mirrorTarget(3000);
  t.after(() => {
    for (const { server } of [target, slow]) {
      server.closeAllConnections();
      server.close();
    }
  });
  const deadPort = await freePort();
  const at = (port: number, rest: string): string => `http://127.0.0.1:${port}${rest}`;
  await cluster.apply([
    configMap({}),
    appManifest({ name: 'web', replicas: 1 }),
    mirrored('copy', 'copy.test', { 'mirror-target': at(target.port, '$request_uri'), 'mirror-host': 'shadow.test' }),
    mirrored('nobody', 'nobody.test', { 'mirror-target': at(target.port, '/shadow$request_uri'), 'mirror-request-body': 'off' }),
    mirrored('dead', 'dead.test', { 'mirror-target': at(deadPort, '$request_uri') }),
    mirrored('slow', 'slow.test', { 'mirror-target': at(slow.port, '$request_uri') }),
  ].join('---\n'));
  for (const host of ['copy.test', 'nobody.test', 'dead.test', 'slow.test']) {
    await waitForResponse(controller.http, { host, path: '/' }, (r) => r.status === 200);
  }
  /** The copies `target` received while `act` ran (and up to 5 s after, until `count`). */
  const copiesOf = async (act: () => Promise<unknown>, count = 1): Promise<Copy[]> => {
    target.copies.length = 0;
    await act();
    await waitFor(`${count} copies`, async () => (target.copies.length >= count ? true : undefined), { timeoutMs: 5000 });
    return [...target.copies];
  };

  await t.test('the copy: method, URI and query, body, and the Host mirror-host says; the client gets the echo pod', async () => {
    let answer = { status: 0, pod: '', seconds: 0 };
    const [copy] = await copiesOf(async () => {
      answer = await curl(controller.http, 'copy.test', '/items?x=1', ['-X', 'POST', '--data-binary', 'payload']);
    });
    assert.equal(answer.status, 200);
    assert.match(answer.pod, /^web-/u, 'the echo pod answered the client');
    assert.deepEqual([copy?.method, copy?.url, copy?.body], ['POST', '/items?x=1', 'payload']);
    assert.equal(copy?.headers.host, 'shadow.test');
    assert.equal(copy?.headers['x-forwarded-host'], 'copy.test');
  });

  await t.test('mirror-request-body off: the copy has no body; Host defaults to the target\'s host', async () => {
    const [copy] = await copiesOf(() => curl(controller.http, 'nobody.test', '/a/b?y=2', ['-X', 'PUT', '--data-binary', 'secret']));
    assert.deepEqual([copy?.method, copy?.url, copy?.body, copy?.headers['content-length']], ['PUT', '/shadow/a/b?y=2', '', undefined]);
    assert.equal(copy?.headers.host, '127.0.0.1');
  });

  await t.test('a dead mirror does not fail the client\'s requests', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await curl(controller.http, 'dead.test', '/')).status, 200);
  });

  await t.test('a slow mirror does not fail nor hold the client\'s answer', async () => {
    const answer = await curl(controller.http, 'slow.test', '/slow');
    assert.equal(answer.status, 200);
    assert.ok(answer.seconds < 2, `the client waited ${answer.seconds} s for a mirror that answers after 3 s`);
    await waitFor('the slow mirror got its copy', async () => (slow.copies.some((c) => c.url === '/slow') ? true : undefined), { timeoutMs: 5000 });
  });

  await t.test('a mirrored request counts once in the request metrics (the copy is no client request)', async () => {
    assert.ok(controller.metricsUrl, 'metrics are served');
    const metrics = controller.metricsUrl;
    // Lines are flushed once a second; wait for the counter to stop moving before counting.
    let before = -1;
    await waitFor('the counter settles', async () => {
      const now = await requestsOf(metrics, 'copy.test');
      const settled = now === before;
      before = now;
      return settled ? true : undefined;
    }, { timeoutMs: 20_000, intervalMs: 1500 });
    const n = 20;
    const copies = await copiesOf(async () => {
      for (let i = 0; i < n; i++) assert.equal((await curl(controller.http, 'copy.test', `/count/${i}`)).status, 200);
    }, n);
    assert.equal(copies.length, n, 'each request was copied once');
    await waitFor(`${n} more requests counted`, async () => ((await requestsOf(metrics, 'copy.test')) >= before + n ? true : undefined), { timeoutMs: 10_000 });
    await new Promise((done) => setTimeout(done, 2500));
    assert.equal(await requestsOf(metrics, 'copy.test'), before + n, 'the copies were counted as requests too');
    const text = await (await fetch(metrics)).text();
    assert.doesNotMatch(text, /_mirror-|host="(shadow\.test|127\.0\.0\.1)"/u, 'no series names the mirror');
  });

  await t.test('a target NGINX cannot resolve refuses its own Ingress only', async () => {
    await cluster.apply(mirrored('unresolvable', 'unresolvable.test', { 'mirror-target': 'http://mirror.invalid/$request_uri' }));
    const warning = await waitFor('a RejectedByNginx Warning on the unresolvable Ingress', async () => (await cluster.events('involvedObject.name=unresolvable,type=Warning'))
      .find((e) => e.reason === 'RejectedByNginx'), { timeoutMs: 20_000 });
    assert.match(warning.message, /mirror\.invalid/u);
    assert.equal((await request(controller.http, { host: 'unresolvable.test', path: '/' })).status, 404);
    // Everyone else is served, and a change after it still applies.
    assert.equal((await curl(controller.http, 'copy.test', '/')).status, 200);
    await cluster.apply(mirrored('later', 'later.test', { 'mirror-target': at(target.port, '/later$request_uri') }));
    await waitForResponse(controller.http, { host: 'later.test', path: '/' }, (r) => r.status === 200);
    await cluster.kubectlOk(['delete', 'ingress', 'unresolvable']);
  });

  await t.test('annotations-risk-level Medium refuses mirror-target and mirror-host (High risk), as ingress-nginx', async () => {
    await cluster.apply(configMap({ 'annotations-risk-level': 'Medium' }));
    const risky = await waitFor('a RiskyAnnotation Warning on copy', async () => (await cluster.events('involvedObject.name=copy,type=Warning'))
      .find((e) => e.reason === 'RiskyAnnotation'), { timeoutMs: 20_000 });
    assert.match(risky.message, /mirror-(host|target) is High risk/u);
    await waitForResponse(controller.http, { host: 'copy.test', path: '/' }, (r) => r.status === 404);
    await cluster.apply(configMap({ 'annotations-risk-level': 'High' }));
    await waitForResponse(controller.http, { host: 'copy.test', path: '/' }, (r) => r.status === 200);
  });
});
