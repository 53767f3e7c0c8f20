// E2E: the ConfigMap's header settings as ingress-nginx v1.15.1 (nginx.tmpl; e2e
// settings/custom_header.go, server_tokens.go; docs/examples/customization/custom-headers),
// with the real kubectl and curl through real NGINX to the echo backend (which answers
// with the request headers it got, and sends `X-Pod` itself):
// - proxy-set-headers: the headers of the ConfigMap it names reach the backend, NGINX
//   variables expanded (`t=${msec}`); an entry naming a header the controller sends itself
//   is refused (the controller's value stays, a warning Event on the controller's ConfigMap);
// - add-headers: the headers reach the client, on NGINX's own 404 too, replacing the
//   backend's header of the same name;
// - hide-headers: the backend's header is gone;
// - enable-underscores-in-headers / ignore-invalid-headers: a header with `_` or `.` in its
//   name reaches the backend only when switched on / off;
// - server-tokens: the version in the Server header only when on;
// - an edit of a ConfigMap of headers applies; a missing one is logged and reported (Event)
//   and the rest is served;
// - a controller starting with the ConfigMaps in place: its first configuration already has
//   the headers (no later reload adds them).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { appManifest, ingressClassManifest, ingressManifest, sleep, startCluster, startController, startStack, waitFor, yamlDocuments } from './harness/index.ts';

const run = promisify(execFile);
const HOST = 'headers.test';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

function configMap(name: string, data: Record<string, string>): string {
  return yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data }]);
}

/** curl through NGINX: the status, the response headers (lower-case names) and, from the echo backend, the request headers it received. */
async function curl(url: string, host: string, headers: Readonly<Record<string, string>> = {}): Promise<{ status: number; response: Record<string, string[]>; seen: Headers }> {
  const args = ['-s', '--max-time', '5', '-D', '-', '-H', `Host: ${host}`];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  args.push(`${url}/`);
  const { stdout } = await run('curl', args);
  const split = stdout.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = stdout.slice(0, split).split('\r\n');
  const response: Record<string, string[]> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    (response[name] ??= []).push(line.slice(colon + 1).trim());
  }
  let seen: Headers = {};
  try { seen = (JSON.parse(stdout.slice(split + 4)) as { headers: Headers }).headers; } catch { /* not the echo's answer */ }
  return { status: Number(statusLine.split(' ')[1]), response, seen };
}

test('header settings: proxy-set-headers, add-headers, hide-headers, header names, server tokens', async (t) => {
  const { cluster, controller } = await startStack(t, { controller: { args: ['--configmap', 'default/resty-config'] } });
  const get = (headers?: Record<string, string>): ReturnType<typeof curl> => curl(controller.http, HOST, headers);
  /** Applies `yaml`, then waits until `probe` holds. */
  const change = async (yaml: string, what: string, probe: () => Promise<boolean>): Promise<void> => {
    await cluster.apply(yaml);
    await waitFor(what, async () => (await probe()) || undefined, { timeoutMs: 20_000 });
  };
  await cluster.apply([
    configMap('resty-config', {}),
    configMap('custom-headers', { 'X-Using-Nginx-Controller': 'true', 'X-Request-Start': 't=${msec}', 'X-Forwarded-Proto': 'https' }),
    configMap('response-headers', { 'X-Frame-Options': 'DENY', 'Content-Security-Policy': "default-src 'self'; img-src *", 'X-Pod': 'replaced' }),
    appManifest({ name: 'web', replicas: 1 }),
    ingressManifest({ name: 'web', host: HOST, paths: [{ path: '/', service: 'web' }] }),
  ].join('---\n'));
  await waitFor('the host is served', async () => (await get()).status === 200 || undefined, { timeoutMs: 20_000 });

  await t.test('defaults: none of the headers, the backend\'s X-Pod passes, Server without a version, odd names dropped', async () => {
    const res = await get({ X_Under: 'u', 'X.Dot': 'd' });
    assert.equal(res.seen['x-using-nginx-controller'], undefined);
    assert.equal(res.response['x-frame-options'], undefined);
    assert.match(String(res.response['x-pod']), /^web-/u);
    assert.deepEqual(res.response.server, ['nginx']);
    assert.equal(res.seen.x_under, undefined, 'underscores_in_headers off drops it');
    assert.equal(res.seen['x.dot'], undefined, 'ignore_invalid_headers on drops it');
  });

  await t.test('proxy-set-headers and add-headers name the ConfigMaps: the backend and the client get their headers', async () => {
    await change(configMap('resty-config', { 'proxy-set-headers': 'default/custom-headers', 'add-headers': 'default/response-headers' }),
      'the headers are sent', async () => (await get()).seen['x-using-nginx-controller'] === 'true');
    const res = await get();
    assert.match(String(res.seen['x-request-start']), /^t=\d{10}\.\d{3}$/u, 'NGINX expanded ${msec}');
    assert.equal(res.seen['x-forwarded-proto'], 'http', 'the controller\'s own header is not overridden (nor sent twice)');
    assert.deepEqual(res.response['x-frame-options'], ['DENY']);
    assert.deepEqual(res.response['content-security-policy'], ["default-src 'self'; img-src *"]);
    assert.deepEqual(res.response['x-pod'], ['replaced'], 'ours replaces the backend\'s header');
    const notFound = await curl(controller.http, 'nobody.test');
    assert.equal(notFound.status, 404);
    assert.deepEqual(notFound.response['x-frame-options'], ['DENY'], 'NGINX\'s own answer carries them too');
    await waitFor('a warning Event on the controller\'s ConfigMap names the refused entry', async () =>
      (await cluster.events('involvedObject.name=resty-config,type=Warning')).some((e) => e.reason === 'InvalidHeader' && e.message.includes('X-Forwarded-Proto')) || undefined,
    { timeoutMs: 20_000 });
  });

  await t.test('an edit of a ConfigMap of headers applies', async () => {
    await change(configMap('custom-headers', { 'X-Using-Nginx-Controller': 'edited', 'X-Drop': '' }),
      'the edited header reaches the backend', async () => (await get()).seen['x-using-nginx-controller'] === 'edited');
    const res = await get({ 'X-Drop': 'from-client' });
    assert.equal(res.seen['x-request-start'], undefined, 'a removed key is no longer sent');
    assert.equal(res.seen['x-drop'], undefined, 'an empty value drops the client\'s header');
    await change(configMap('response-headers', { 'X-Frame-Options': 'SAMEORIGIN' }),
      'the edited response header reaches the client', async () => String((await get()).response['x-frame-options']) === 'SAMEORIGIN');
    assert.match(String((await get()).response['x-pod']), /^web-/u, 'no longer added: the backend\'s passes again');
  });

  await t.test('hide-headers: the backend\'s header is gone', async () => {
    await change(configMap('resty-config', { 'proxy-set-headers': 'default/custom-headers', 'add-headers': 'default/response-headers', 'hide-headers': 'X-Pod' }),
      'X-Pod is hidden', async () => (await get()).response['x-pod'] === undefined);
    const res = await get();
    assert.equal(res.status, 200);
    assert.deepEqual(res.response['x-frame-options'], ['SAMEORIGIN'], 'the rest still applies');
  });

  await t.test('enable-underscores-in-headers, ignore-invalid-headers false, server-tokens true', async () => {
    await change(configMap('resty-config', { 'enable-underscores-in-headers': 'true', 'ignore-invalid-headers': 'false', 'server-tokens': 'true' }),
      'an underscore header reaches the backend', async () => (await get({ X_Under: 'u' })).seen.x_under === 'u');
    const res = await get({ X_Under: 'u', 'X.Dot': 'd' });
    assert.equal(res.seen['x.dot'], 'd');
    assert.match(String(res.response.server), /^nginx\/\d+\.\d+\.\d+$/u);
    await change(configMap('resty-config', { 'enable-underscores-in-headers': 'false' }),
      'switched off again, the underscore header is dropped', async () => (await get({ X_Under: 'u' })).seen.x_under === undefined);
  });

  await t.test('a missing ConfigMap of headers: logged and reported, the rest is served', async () => {
    await change(configMap('resty-config', { 'proxy-set-headers': 'default/nowhere', 'add-headers': 'default/response-headers' }),
      'the add-headers still apply', async () => String((await get()).response['x-frame-options']) === 'SAMEORIGIN' && (await get()).seen['x-using-nginx-controller'] === undefined);
    await waitFor('a warning Event says the ConfigMap is missing', async () =>
      (await cluster.events('involvedObject.name=resty-config,type=Warning')).some((e) => e.reason === 'HeadersConfigMapNotFound' && e.message.includes('default/nowhere')) || undefined,
    { timeoutMs: 20_000 });
    assert.ok(controller.logs().some((line) => line.reason === 'HeadersConfigMapNotFound' && line.level === 40), 'a warning log line');
    assert.equal((await get()).status, 200);
  });
});

test('header settings: the first configuration after a start already has the headers', async (t) => {
  const cluster = await startCluster();
  t.after(() => cluster.stop());
  await cluster.apply([
    ingressClassManifest('resty', 'resty-ingress.dev/controller'),
    configMap('resty-config', { 'proxy-set-headers': 'default/custom-headers', 'add-headers': 'default/response-headers' }),
    configMap('custom-headers', { 'X-Using-Nginx-Controller': 'true' }),
    configMap('response-headers', { 'X-Frame-Options': 'DENY' }),
    appManifest({ name: 'web', replicas: 1 }),
    ingressManifest({ name: 'web', host: HOST, paths: [{ path: '/', service: 'web' }] }),
  ].join('---\n'));
  const controller = await startController(cluster, { args: ['--configmap', 'default/resty-config'] });
  t.after(() => controller.stop());
  // startController resolves once the first configuration is live.
  const first = await curl(controller.http, HOST);
  assert.equal(first.status, 200);
  assert.deepEqual(first.response['x-frame-options'], ['DENY']);
  assert.equal(first.seen['x-using-nginx-controller'], 'true');
  await sleep(1500);
  assert.equal(controller.reloadCount(), 0, 'no reload came to add the headers later');
});
