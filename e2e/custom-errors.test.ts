// E2E: custom-http-errors, default-backend and disable-proxy-intercept-errors as
// ingress-nginx users write them, applied with the real kubectl, requests through
// the real NGINX; the echo pods show what reached them. An app's 404 and 503 are
// answered by the Ingress's default backend with ingress-nginx's headers (and the
// usual forwarded ones); a Service that loses its last endpoint switches to the
// default backend and back without a reload; disable-proxy-intercept-errors passes
// the app's error through; the ConfigMap's codes go to --default-backend-service.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  appManifest, ingressManifest, request, startStack, waitFor, waitForResponse, yamlDocuments, type HttpResponse,
} from './harness/index.ts';

const PREFIX = 'nginx.ingress.kubernetes.io';

function annotations(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [`${PREFIX}/${key}`, value]));
}

function configMap(data: Record<string, string>): string {
  return yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resty-config', namespace: 'default' }, data }]);
}

/** The Deployment of the pod that answered (`web-…` → web), or null. */
function deploymentOf(res: HttpResponse): string | null {
  return res.pod === null ? null : res.pod.replace(/-[a-z0-9]+-[a-z0-9]+$/u, '');
}

const ERROR_HEADERS = ['x-code', 'x-format', 'x-original-uri', 'x-namespace', 'x-ingress-name', 'x-service-name', 'x-service-port', 'x-request-id'] as const;

/** ingress-nginx's error headers as the error backend received them (x-request-id checked for shape, then blanked). */
function errorHeaders(res: HttpResponse): Record<string, unknown> {
  const seen = res.echo?.headers ?? {};
  assert.match(String(seen['x-request-id']), /^[0-9a-f]{32}$/u, 'x-request-id is the request id');
  return { ...Object.fromEntries(ERROR_HEADERS.map((name) => [name, seen[name]])), 'x-request-id': 'id' };
}

test('custom error pages and the default-backend annotation', async (t) => {
  const { cluster, controller } = await startStack(t, {
    controller: { args: ['--configmap', 'default/resty-config', '--default-backend-service', 'default/fallback'] },
  });
  const before = controller.logs().length;
  await cluster.apply([
    configMap({}),
    appManifest({ name: 'web', replicas: 1 }),
    appManifest({ name: 'errors', replicas: 1 }),
    appManifest({ name: 'fallback', replicas: 1 }),
    ingressManifest({
      name: 'shop', host: 'shop.test', paths: [{ path: '/', service: 'web' }],
      annotations: annotations({ 'custom-http-errors': '404,503', 'default-backend': 'errors' }),
    }),
  ].join('---\n'));
  await waitForResponse(controller.http, { host: 'shop.test', path: '/' }, (r) => deploymentOf(r) === 'web');
  await controller.waitForReload(before);

  await t.test('an app\'s 404 and 503 are answered by the default backend, with every header ingress-nginx sends', async () => {
    const rows = [{ code: '404', path: '/cart/item?status=404' }, { code: '503', path: '/?status=503' }];
    for (const row of rows) {
      const res = await request(controller.http, { host: 'shop.test', path: row.path, headers: { accept: 'text/html', 'x-code': 'forged' } });
      assert.equal(deploymentOf(res), 'errors', `${row.code}: the default backend answered`);
      // It gets "/" and the query; this echo answers the status the query asks for, as an error page would.
      assert.equal(res.echo?.path, `/?status=${row.code}`);
      assert.equal(res.status, Number(row.code));
      assert.deepEqual(errorHeaders(res), {
        'x-code': row.code, 'x-format': 'text/html', 'x-original-uri': row.path, 'x-namespace': 'default',
        'x-ingress-name': 'shop', 'x-service-name': 'web', 'x-service-port': '80', 'x-request-id': 'id',
      });
      // The named location declares no proxy_set_header, so http {}'s whole set still reaches the error backend.
      const seen = res.echo?.headers ?? {};
      assert.deepEqual([seen.host, seen['x-forwarded-for'], seen['x-real-ip'], seen['x-forwarded-host'], seen['x-forwarded-proto']],
        ['shop.test', '127.0.0.1', '127.0.0.1', 'shop.test', 'http']);
    }
  });

  await t.test('a status not in the list passes through', async () => {
    const res = await request(controller.http, { host: 'shop.test', path: '/?status=500' });
    assert.deepEqual([res.status, deploymentOf(res)], [500, 'web']);
    assert.equal(res.echo?.headers['x-code'], undefined);
  });

  await t.test('the app losing its last endpoint switches to the default backend and back, with 0 reloads', async () => {
    const reloads = controller.reloadCount();
    await cluster.kubectlOk(['scale', 'deployment/web', '--replicas=0']);
    const fallback = await waitForResponse(controller.http, { host: 'shop.test', path: '/orders?id=7' }, (r) => deploymentOf(r) === 'errors');
    assert.equal(fallback.status, 200);
    assert.equal(fallback.echo?.path, '/orders?id=7', 'the client\'s URI');
    const headers = errorHeaders(fallback);
    assert.deepEqual(headers, {
      'x-code': '503', 'x-format': undefined, 'x-original-uri': undefined, 'x-namespace': 'default',
      'x-ingress-name': 'shop', 'x-service-name': 'web', 'x-service-port': '80', 'x-request-id': 'id',
    });
    await cluster.kubectlOk(['scale', 'deployment/web', '--replicas=1']);
    const back = await waitForResponse(controller.http, { host: 'shop.test', path: '/orders' }, (r) => deploymentOf(r) === 'web');
    assert.equal(back.echo?.headers['x-code'], undefined);
    assert.equal(controller.reloadCount() - reloads, 0, 'switching to and from the default backend reloaded NGINX');
  });

  await t.test('a path whose Service does not exist is answered by the default backend (ingress-nginx\'s own e2e case)', async () => {
    const logged = controller.logs().length;
    await cluster.apply(ingressManifest({
      name: 'ghost', host: 'ghost.test', paths: [{ path: '/', service: 'missing' }], annotations: annotations({ 'default-backend': 'errors' }),
    }));
    const res = await waitForResponse(controller.http, { host: 'ghost.test', path: '/alma/armud' }, (r) => deploymentOf(r) === 'errors', 15_000);
    assert.deepEqual([res.status, res.echo?.path, res.echo?.headers['x-code'], res.echo?.headers['x-service-name'], res.echo?.headers['x-ingress-name']],
      [200, '/alma/armud', '503', 'missing', 'ghost']);
    // A new Ingress reloads; wait for it, so the next test counts only its own reloads.
    await controller.waitForReload(logged);
  });

  await t.test('the default backend\'s own endpoints change without a reload', async () => {
    const reloads = controller.reloadCount();
    await cluster.kubectlOk(['rollout', 'restart', 'deployment/errors']);
    await cluster.kubectlOk(['rollout', 'status', 'deployment/errors', '--timeout=20s']);
    const res = await waitForResponse(controller.http, { host: 'shop.test', path: '/?status=404' }, (r) => deploymentOf(r) === 'errors');
    assert.equal(res.echo?.headers['x-code'], '404');
    assert.equal(controller.reloadCount() - reloads, 0);
  });

  await t.test('while the default backend has no endpoints its pages come from --default-backend-service, with 0 reloads', async () => {
    const reloads = controller.reloadCount();
    await cluster.kubectlOk(['scale', 'deployment/errors', '--replicas=0']);
    const res = await waitForResponse(controller.http, { host: 'shop.test', path: '/?status=404' }, (r) => deploymentOf(r) === 'fallback');
    assert.deepEqual([res.echo?.headers['x-code'], res.echo?.headers['x-ingress-name']], ['404', 'shop']);
    await cluster.kubectlOk(['scale', 'deployment/errors', '--replicas=1']);
    await waitForResponse(controller.http, { host: 'shop.test', path: '/?status=404' }, (r) => deploymentOf(r) === 'errors');
    assert.equal(controller.reloadCount() - reloads, 0);
  });

  await t.test('disable-proxy-intercept-errors passes the app\'s error through; turned off, the page comes back', async () => {
    const raw = (disable: string): string => ingressManifest({
      name: 'raw', host: 'raw.test', paths: [{ path: '/', service: 'web' }],
      annotations: annotations({ 'custom-http-errors': '404', 'default-backend': 'errors', 'disable-proxy-intercept-errors': disable }),
    });
    await cluster.apply(raw('true'));
    const passed = await waitForResponse(controller.http, { host: 'raw.test', path: '/?status=404' }, (r) => deploymentOf(r) === 'web');
    assert.equal(passed.status, 404);
    await cluster.apply(raw('false'));
    const page = await waitForResponse(controller.http, { host: 'raw.test', path: '/?status=404' }, (r) => deploymentOf(r) === 'errors', 15_000);
    assert.equal(page.echo?.headers['x-code'], '404');
    assert.equal(page.echo?.headers['x-ingress-name'], 'raw');
  });

  await t.test('the ConfigMap\'s custom-http-errors go to --default-backend-service for Ingresses without their own', async () => {
    await cluster.apply([
      ingressManifest({ name: 'plain', host: 'plain.test', paths: [{ path: '/', service: 'web' }] }),
      configMap({ 'custom-http-errors': '404' }),
    ].join('---\n'));
    const res = await waitForResponse(controller.http, { host: 'plain.test', path: '/x?status=404' }, (r) => deploymentOf(r) === 'fallback' && r.echo?.headers['x-code'] === '404', 15_000);
    assert.deepEqual(errorHeaders(res), {
      'x-code': '404', 'x-format': undefined, 'x-original-uri': '/x?status=404', 'x-namespace': 'default',
      'x-ingress-name': 'plain', 'x-service-name': 'web', 'x-service-port': '80', 'x-request-id': 'id',
    });
    // shop's own list (404,503) replaces the ConfigMap's, to its own default backend.
    assert.equal(deploymentOf(await request(controller.http, { host: 'shop.test', path: '/?status=404' })), 'errors');
  });

  await t.test('an invalid custom-http-errors refuses the Ingress, with a Warning Event', async () => {
    await cluster.apply(ingressManifest({
      name: 'bad', host: 'bad.test', paths: [{ path: '/', service: 'web' }], annotations: annotations({ 'custom-http-errors': '301' }),
    }));
    await waitFor('the InvalidAnnotation Event', async () =>
      ((await cluster.events('involvedObject.name=bad,type=Warning')).some((e) => e.reason === 'InvalidAnnotation') ? true : undefined));
    assert.notEqual(deploymentOf(await request(controller.http, { host: 'bad.test', path: '/' })), 'web');
  });
});
