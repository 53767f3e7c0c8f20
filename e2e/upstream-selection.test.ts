// E2E: upstream selection as ingress-nginx users write it, applied with the
// real kubectl and checked with curl through the real NGINX:
// - upstream-vhost and x-forwarded-prefix: the Host and X-Forwarded-Prefix the
//   echo pod received, every other forwarded header still sent; an empty
//   x-forwarded-prefix sends none;
// - proxy-next-upstream*: a Service whose EndpointSlice lists one live pod and
//   one whose server is gone (connection refused, as a crashed pod before its
//   readiness probe fails): the default retries it away; tries 1, "off" and
//   "timeout" alone answer 502 for the dead one; the ConfigMap's tries apply
//   where no annotation sets them;
// - service-upstream: the backend's one endpoint becomes the Service's
//   ClusterIP. Here a ClusterIP is only reachable if something listens on it:
//   the Service asks for a loopback ClusterIP, and this test plays kube-proxy
//   there (a TCP forwarder to the ready pods, counting what NGINX sends), so a
//   request proves it went through the ClusterIP. Turning it on and off, by
//   annotation or ConfigMap, reloads NGINX 0 times (Lua gets new endpoints).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { appManifest, ingressManifest, request, startStack, waitFor, waitForResponse, yamlDocuments, type Cluster } from './harness/index.ts';

const run = promisify(execFile);
const PREFIX = 'nginx.ingress.kubernetes.io';
const CONFIG_MAP = 'upstream-config';

interface Echoed { readonly status: number; readonly headers: Readonly<Record<string, string | string[] | undefined>> }

/** curl through NGINX; the echo pod's view of the request (the headers it received). */
async function curlEcho(http: string, host: string, headers: Readonly<Record<string, string>> = {}): Promise<Echoed> {
  const args = ['-s', '-w', '\n%{http_code}', '-H', `Host: ${host}`];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  const { stdout } = await run('curl', [...args, `${http}/`]);
  const cut = stdout.lastIndexOf('\n');
  const status = Number(stdout.slice(cut + 1));
  return { status, headers: status === 200 ? (JSON.parse(stdout.slice(0, cut)) as { headers: Echoed['headers'] }).headers : {} };
}

/** The statuses of `count` curls to `host`, counted. */
async function statuses(http: string, host: string, count: number): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  for (let i = 0; i < count; i += 1) {
    const { stdout } = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', `Host: ${host}`, `${http}/`]);
    seen[stdout] = (seen[stdout] ?? 0) + 1;
  }
  return seen;
}

/** An Ingress as JSON (which kubectl reads as YAML): YAML 1.1 would read a bare `off` as false. */
function annotated(name: string, host: string, service: string, annotations: Record<string, string>): string {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value]));
  const [doc] = parseAllDocuments(ingressManifest({ name, host, annotations: prefixed, paths: [{ path: '/', service }] }));
  return `${JSON.stringify(doc?.toJS())}\n`;
}

/** A loopback address outside the simulator's pools (127.64–127.127) and the Lua tests' (127.0.x). */
function spareLoopback(): string {
  return `127.${200 + randomInt(50)}.${randomInt(256)}.${1 + randomInt(250)}`;
}

/**
 * kube-proxy for one Service: listens on its ClusterIP and port, forwards each connection to a ready
 * pod in turn. `received()` counts the chunks NGINX sent through it (its upstream connections are
 * kept alive, so connections alone would miss later requests).
 */
async function startKubeProxy(cluster: Cluster, address: string, deployment: string): Promise<{ received: () => number; close: () => Promise<void> }> {
  let received = 0;
  let next = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    client.on('data', () => { received += 1; });
    const pods = cluster.pods(deployment).filter((pod) => pod.state === 'ready');
    const pod = pods[next++ % Math.max(1, pods.length)];
    if (pod === undefined) {
      client.destroy();
      return;
    }
    const upstream = connect(pod.port, pod.ip);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => { client.destroy(); upstream.destroy(); });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(80, address, resolve);
  });
  return {
    received: () => received,
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

/**
 * The endpoints Lua holds for `backend` (NGINX's loopback configuration API), once every worker
 * applied the stored version: the shared dict changes first and each worker polls it every 5 ms, so
 * a request sent on the dict's word alone can still meet a worker with the old endpoints.
 */
async function luaEndpoints(statusUrl: string, backend: string): Promise<string[]> {
  const res = await fetch(`${statusUrl}/configuration/backends?name=${backend}`);
  const backends = (await res.json()) as { endpoints: { address: string; port: number }[] }[];
  // Read after the endpoints: a version pushed in between only makes this wait longer.
  const status = (await (await fetch(`${statusUrl}/configuration/status`)).json()) as { version: number; applied: number };
  if (status.applied < status.version) return [];
  return (backends[0]?.endpoints ?? []).map((e) => `${e.address}:${e.port}`).sort();
}

test('upstream-vhost, x-forwarded-prefix, next-upstream and service-upstream through real NGINX', async (t) => {
  const { cluster, controller } = await startStack(t, { controller: { args: ['--configmap', `default/${CONFIG_MAP}`] } });
  const configMap = (data: Record<string, string>): string =>
    yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CONFIG_MAP, namespace: 'default' }, data }]);

  await t.test('upstream-vhost and x-forwarded-prefix: what the pod receives', async () => {
    const before = controller.logs().length;
    await cluster.apply([
      configMap({}),
      appManifest({ name: 'web', replicas: 1 }),
      annotated('vhost', 'vhost.test', 'web', { 'upstream-vhost': 'internal.svc:8080', 'x-forwarded-prefix': '/shop' }),
      annotated('no-prefix', 'no-prefix.test', 'web', { 'x-forwarded-prefix': '' }),
    ].join('---\n'));
    await waitForResponse(controller.http, { host: 'vhost.test', path: '/' }, (r) => r.status === 200);
    await controller.waitForReload(before);

    const spoofed = { 'X-Forwarded-For': '6.6.6.6', 'X-Forwarded-Host': 'evil.test', 'Proxy': 'http://evil:1', 'X-Forwarded-Prefix': '/evil' };
    const vhost = await curlEcho(controller.http, 'vhost.test', spoofed);
    assert.equal(vhost.status, 200);
    assert.equal(vhost.headers.host, 'internal.svc:8080');
    assert.equal(vhost.headers['x-forwarded-prefix'], '/shop');
    // The rest of the list is still sent by a location that sets headers of its own.
    assert.equal(vhost.headers['x-forwarded-host'], 'vhost.test');
    assert.equal(vhost.headers['x-forwarded-for'], '127.0.0.1');
    assert.equal(vhost.headers['x-real-ip'], '127.0.0.1');
    assert.equal(vhost.headers['x-forwarded-proto'], 'http');
    assert.equal(vhost.headers.proxy, undefined);

    const plain = await curlEcho(controller.http, 'no-prefix.test');
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.host, 'no-prefix.test');
    assert.equal(plain.headers['x-forwarded-prefix'], undefined, 'an empty x-forwarded-prefix sends no header');
  });

  await t.test('upstream-vhost with ssl-redirect: plain HTTP is redirected to the client\'s host, not the upstream Host', async () => {
    const certificate = createSelfSignedCertificate({ dnsNames: ['secure-vhost.test'] });
    const b64 = (text: string): string => Buffer.from(text).toString('base64');
    const secret = yamlDocuments([{
      apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name: 'secure-vhost-tls', namespace: 'default' },
      data: { 'tls.crt': b64(certificate.cert), 'tls.key': b64(certificate.key) },
    }]);
    const ingress = JSON.parse(annotated('secure-vhost', 'secure-vhost.test', 'web', { 'upstream-vhost': 'internal.svc:8080' })) as { spec: Record<string, unknown> };
    ingress.spec.tls = [{ hosts: ['secure-vhost.test'], secretName: 'secure-vhost-tls' }];
    const before = controller.logs().length;
    await cluster.apply([secret, `${JSON.stringify(ingress)}\n`].join('---\n'));
    // The catch-all server redirects the host too until its own server is live: wait for that reload.
    await controller.waitForReload(before);
    const res = await waitForResponse(controller.http, { host: 'secure-vhost.test', path: '/cart?id=7' }, (r) => r.status === 308);
    assert.equal(res.headers.location, 'https://secure-vhost.test/cart?id=7');
  });

  await t.test('next-upstream: one pod of two fails (connection refused)', async () => {
    const [pod] = cluster.pods('web');
    assert.ok(pod, 'the web pod runs');
    // A Service without selector: its EndpointSlice is ours, listing the live pod and a dead one.
    const dead = spareLoopback();
    const before = controller.logs().length;
    await cluster.apply([
      yamlDocuments([
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'flaky', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80, targetPort: pod.port }] } },
        {
          apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
          metadata: { name: 'flaky-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'flaky', 'endpointslice.kubernetes.io/managed-by': 'e2e' } },
          addressType: 'IPv4',
          ports: [{ name: 'http', port: pod.port, protocol: 'TCP' }],
          endpoints: [{ addresses: [pod.ip], conditions: { ready: true } }, { addresses: [dead], conditions: { ready: true } }],
        },
      ]),
      annotated('retry-default', 'retry.test', 'flaky', {}),
      annotated('retry-twice', 'twice.test', 'flaky', { 'proxy-next-upstream-tries': '2' }),
      annotated('retry-once', 'once.test', 'flaky', { 'proxy-next-upstream-tries': '1' }),
      annotated('retry-off', 'off.test', 'flaky', { 'proxy-next-upstream': 'off' }),
      annotated('retry-timeout-only', 'timeout.test', 'flaky', { 'proxy-next-upstream': 'timeout' }),
    ].join('---\n'));
    await waitForResponse(controller.http, { host: 'timeout.test', path: '/' }, (r) => r.status === 200 || r.status === 502);
    await controller.waitForReload(before);
    await waitFor('both endpoints in Lua', async () => ((await luaEndpoints(controller.statusUrl, 'default-flaky-80')).length === 2 ? true : undefined));

    const rows = [
      { name: 'the default (error timeout, 3 tries) retries the dead pod away', host: 'retry.test', want: ['200'] },
      { name: 'tries 2: one retry is enough', host: 'twice.test', want: ['200'] },
      { name: 'tries 1: no retry, the dead pod\'s share answers 502', host: 'once.test', want: ['200', '502'] },
      { name: 'off: no retry', host: 'off.test', want: ['200', '502'] },
      { name: 'timeout alone: a refused connection is an error, not retried', host: 'timeout.test', want: ['200', '502'] },
    ];
    for (const row of rows) assert.deepEqual(Object.keys(await statuses(controller.http, row.host, 20)).sort(), row.want, row.name);

    // The ConfigMap's tries apply where no annotation sets them; an annotation keeps its own.
    const reloaded = controller.logs().length;
    await cluster.apply(configMap({ 'proxy-next-upstream-tries': '1' }));
    await controller.waitForReload(reloaded);
    assert.deepEqual(Object.keys(await statuses(controller.http, 'retry.test', 20)).sort(), ['200', '502'], 'ConfigMap tries 1');
    assert.deepEqual(Object.keys(await statuses(controller.http, 'twice.test', 20)).sort(), ['200'], 'annotation tries 2 over the ConfigMap');
  });

  await t.test('service-upstream: the ClusterIP as the one endpoint, toggled without a reload', async (st) => {
    const clusterIP = spareLoopback();
    const proxy = await startKubeProxy(cluster, clusterIP, 'svcup');
    st.after(() => proxy.close());
    const docs = parseAllDocuments(appManifest({ name: 'svcup', replicas: 2 })).map((doc) => doc.toJS() as { kind: string; spec: Record<string, unknown> });
    for (const doc of docs) if (doc.kind === 'Service') doc.spec.clusterIP = clusterIP;
    const before = controller.logs().length;
    await cluster.apply([yamlDocuments(docs), annotated('svcup', 'svcup.test', 'svcup', {})].join('---\n'));
    await waitForResponse(controller.http, { host: 'svcup.test', path: '/' }, (r) => r.status === 200);
    await controller.waitForReload(before);
    const reloads = controller.reloadCount();
    const pods = cluster.pods('svcup').map((pod) => `${pod.ip}:${pod.port}`).sort();
    await waitFor('the pods as endpoints', async () => ((await luaEndpoints(controller.statusUrl, 'default-svcup-80')).join() === pods.join() ? true : undefined));
    assert.equal(proxy.received(), 0, 'nothing went through the ClusterIP yet');

    await cluster.kubectlOk(['annotate', 'ingress', 'svcup', `${PREFIX}/service-upstream=true`]);
    await waitFor('the ClusterIP as the one endpoint', async () =>
      ((await luaEndpoints(controller.statusUrl, 'default-svcup-80')).join() === `${clusterIP}:80` ? true : undefined));
    for (let i = 0; i < 10; i += 1) {
      const res = await request(controller.http, { host: 'svcup.test', path: '/' });
      assert.equal(res.status, 200);
      assert.ok(res.pod?.startsWith('svcup-'), `answered by ${res.pod}`);
    }
    assert.ok(proxy.received() >= 10, 'the requests went through the ClusterIP');

    await cluster.kubectlOk(['annotate', 'ingress', 'svcup', `${PREFIX}/service-upstream-`]);
    await waitFor('the pods as endpoints again', async () => ((await luaEndpoints(controller.statusUrl, 'default-svcup-80')).join() === pods.join() ? true : undefined));
    const received = proxy.received();
    for (let i = 0; i < 10; i += 1) assert.equal((await request(controller.http, { host: 'svcup.test', path: '/' })).status, 200);
    assert.equal(proxy.received(), received, 'no request went through the ClusterIP once it was off');

    // The ConfigMap's key turns it on for every Ingress that does not say otherwise, also without a reload.
    await cluster.apply(configMap({ 'proxy-next-upstream-tries': '1', 'service-upstream': 'true' }));
    await waitFor('the ClusterIP from the ConfigMap', async () =>
      ((await luaEndpoints(controller.statusUrl, 'default-svcup-80')).join() === `${clusterIP}:80` ? true : undefined));
    assert.equal((await request(controller.http, { host: 'svcup.test', path: '/' })).status, 200);
    assert.ok(proxy.received() > received, 'the request went through the ClusterIP again');
    assert.equal(controller.reloadCount() - reloads, 0, 'toggling service-upstream reloaded NGINX');
  });
});
