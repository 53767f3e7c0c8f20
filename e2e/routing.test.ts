// E2E: Ingresses applied with real kubectl are served by the real controller
// and NGINX — by host and path, 404 for unknown hosts, 503 without
// endpoints, oldest wins a conflict (the newer one gets a Warning Event), a
// bad annotation skips only its Ingress or, where ingress-nginx ignores it, is
// ignored (log + Warning Event either way), and an edited Ingress is live
// within a second after one reload.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appManifest, ingressManifest, request, sleep, startStack, waitFor, waitForResponse, yamlDocuments, type LogEntry } from './harness/index.ts';

const isPodOf = (app: string) => (pod: string | null): boolean => pod !== null && pod.startsWith(`${app}-`);

test('routing through kubectl, the controller and NGINX', async (t) => {
  const { cluster, controller } = await startStack(t);
  const before = controller.logs().length;
  await cluster.apply([
    appManifest({ name: 'alpha', replicas: 2 }),
    appManifest({ name: 'beta', replicas: 1 }),
    ingressManifest({ name: 'shop', host: 'shop.test', paths: [{ path: '/', service: 'alpha' }, { path: '/api', service: 'beta' }] }),
    ingressManifest({ name: 'blog', host: 'blog.test', paths: [{ path: '/', service: 'beta' }] }),
  ].join('---\n'));
  await waitForResponse(controller.http, { host: 'shop.test', path: '/' }, (r) => r.status === 200);
  await waitForResponse(controller.http, { host: 'shop.test', path: '/api' }, (r) => r.status === 200);
  await waitForResponse(controller.http, { host: 'blog.test', path: '/' }, (r) => r.status === 200);
  await controller.waitForReload(before); // until then an old worker may answer 404 for the new hosts

  // Beyond client_body_buffer_size NGINX's worker writes the body to <prefix>/client_body_temp:
  // run as root, that worker is nobody and must be able to enter the prefix.
  await t.test('a request body larger than the buffer reaches the upstream whole', async () => {
    const body = 'x'.repeat(200_000);
    const res = await request(controller.http, { host: 'shop.test', path: '/upload', method: 'POST', body });
    assert.equal(res.status, 200);
    assert.equal(res.echo?.bodyLength, body.length);
  });

  await t.test('host and path pick the backend; the upstream sees the original path', async () => {
    const cases = [
      { name: 'shop root', host: 'shop.test', path: '/cart?id=7', app: 'alpha' },
      { name: 'shop api prefix', host: 'shop.test', path: '/api/orders', app: 'beta' },
      { name: 'shop api exact', host: 'shop.test', path: '/api', app: 'beta' },
      { name: 'prefix is per segment', host: 'shop.test', path: '/apiary', app: 'alpha' },
      { name: 'other host', host: 'blog.test', path: '/post/1', app: 'beta' },
    ];
    for (const row of cases) {
      const res = await request(controller.http, { host: row.host, path: row.path });
      assert.equal(res.status, 200, row.name);
      assert.ok(isPodOf(row.app)(res.pod), `${row.name}: served by ${res.pod}, expected a ${row.app} pod`);
      assert.equal(res.echo?.path, row.path, row.name);
      assert.equal(res.echo?.headers.host, row.host, `${row.name}: Host reaches the upstream`);
    }
  });

  await t.test('requests spread over both pods of a Deployment', async () => {
    const seen = new Set<string | null>();
    for (let i = 0; i < 10; i++) seen.add((await request(controller.http, { host: 'shop.test' })).pod);
    assert.deepEqual([...seen].sort(), cluster.pods('alpha').map((p) => p.name).sort());
  });

  await t.test('unknown host → 404', async () => {
    assert.equal((await request(controller.http, { host: 'nobody.test' })).status, 404);
  });

  await t.test('a Service without endpoints → 503', async () => {
    const ghost = yamlDocuments([{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'ghost' }, spec: { selector: { app: 'ghost' }, ports: [{ port: 80, targetPort: 8080 }] } }]);
    await cluster.apply(`${ghost}---\n${ingressManifest({ name: 'ghost', host: 'ghost.test', paths: [{ path: '/', service: 'ghost' }] })}`);
    const res = await waitForResponse(controller.http, { host: 'ghost.test' }, (r) => r.status !== 404);
    assert.equal(res.status, 503);
  });

  await t.test('oldest wins a host+path; the newer Ingress gets a warning log line and a Warning Event', async () => {
    // Named so that name order would pick the newer one: only age decides.
    await cluster.apply(ingressManifest({ name: 'zz-older', host: 'clash.test', paths: [{ path: '/', service: 'alpha' }] }));
    await waitForResponse(controller.http, { host: 'clash.test' }, (r) => r.status === 200);
    await sleep(1_100); // creationTimestamp has one-second resolution
    const from = controller.logs().length;
    await cluster.apply(ingressManifest({ name: 'aa-newer', host: 'clash.test', paths: [{ path: '/', service: 'beta' }] }));
    const warning = await controller.waitForLog((e: LogEntry) => e.ingress === 'default/aa-newer' && e.reason === 'Conflict', { from });
    assert.match(warning.msg, /default\/zz-older/);
    const event = await waitFor('a Warning Event on the newer Ingress', async () =>
      (await cluster.events('involvedObject.name=aa-newer,type=Warning')).find((e) => e.reason === 'Conflict'));
    assert.equal(event.involvedObject.kind, 'Ingress');
    assert.match(event.message, /default\/zz-older/);
    assert.deepEqual(await cluster.events('involvedObject.name=zz-older,type=Warning'), [], 'the older Ingress has no warning');
    for (let i = 0; i < 4; i++) assert.ok(isPodOf('alpha')((await request(controller.http, { host: 'clash.test' })).pod));
  });

  await t.test('an invalid annotation skips its Ingress (log line + Warning Event); others keep serving', async () => {
    const from = controller.logs().length;
    await cluster.apply(ingressManifest({
      name: 'broken', host: 'broken.test', paths: [{ path: '/', service: 'alpha' }],
      annotations: { 'nginx.ingress.kubernetes.io/load-balance': 'fastest' },
    }));
    const line = await controller.waitForLog((e: LogEntry) => e.ingress === 'default/broken', { from });
    assert.match(line.raw, /load-balance/);
    const event = await waitFor('a Warning Event on the broken Ingress', async () =>
      (await cluster.events('involvedObject.name=broken,type=Warning'))[0]);
    assert.match(`${event.reason} ${event.message}`, /InvalidAnnotation .*load-balance/);
    assert.equal((await request(controller.http, { host: 'broken.test' })).status, 404);
    assert.equal((await request(controller.http, { host: 'shop.test' })).status, 200);
  });

  await t.test('an invalid annotation ingress-nginx ignores: served with the default (log line + Warning Event)', async () => {
    const from = controller.logs().length;
    await cluster.apply(ingressManifest({
      name: 'lenient', host: 'lenient.test', paths: [{ path: '/', service: 'alpha' }],
      annotations: { 'nginx.ingress.kubernetes.io/proxy-read-timeout': 'forever' },
    }));
    const line = await controller.waitForLog((e: LogEntry) => e.ingress === 'default/lenient', { from });
    assert.match(line.raw, /proxy-read-timeout/);
    const event = await waitFor('a Warning Event on the lenient Ingress', async () =>
      (await cluster.events('involvedObject.name=lenient,type=Warning'))[0]);
    assert.match(`${event.reason} ${event.message}`, /IgnoredInvalidAnnotation .*proxy-read-timeout.*its default applies/);
    const res = await waitForResponse(controller.http, { host: 'lenient.test' }, (r) => r.status === 200);
    assert.ok(isPodOf('alpha')(res.pod));
  });

  await t.test('kubectl apply of an edited Ingress: one reload, the new path served within a second', async (st) => {
    assert.ok(isPodOf('alpha')((await request(controller.http, { host: 'blog.test', path: '/feed' })).pod) === false);
    await sleep(300); // let earlier syncs settle so the count below is this edit's alone
    const reloadsBefore = controller.reloadCount();
    await cluster.apply(ingressManifest({ name: 'blog', host: 'blog.test', paths: [{ path: '/', service: 'beta' }, { path: '/feed', service: 'alpha' }] }));
    const applied = Date.now();
    const res = await waitForResponse(controller.http, { host: 'blog.test', path: '/feed' }, (r) => isPodOf('alpha')(r.pod), 3_000);
    const servedAfterMs = Date.now() - applied;
    st.diagnostic(`new path served ${servedAfterMs} ms after kubectl apply returned`);
    assert.equal(res.echo?.path, '/feed');
    assert.ok(servedAfterMs < 1_000, `served ${servedAfterMs} ms after kubectl apply returned`);
    await sleep(500);
    assert.equal(controller.reloadCount() - reloadsBefore, 1);
  });
});
