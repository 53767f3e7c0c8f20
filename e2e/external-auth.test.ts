// E2E: external authentication (auth-url, auth-signin, auth-response-headers,
// auth-method; the ConfigMap's global-auth-url and enable-global-auth) as
// ingress-nginx users write them, applied with the real kubectl and checked
// with curl through the real NGINX. The auth service is an HTTP server of this
// test on a loopback address: /allow answers 200 with X-User, /deny 401 with
// WWW-Authenticate, /forbid 403. Allowed → the echo pod's answer, and the echo
// pod saw the auth answer's X-User (never the client's own); denied → 401/403;
// signed out with auth-signin → 302 to the sign-in URL with the exact escaped
// `rd` (or the auth-signin-redirect-param's name); an auth service that cannot be reached → 500 (ingress-nginx's status:
// auth_request's rule); an auth-url that is no URL → the Ingress is
// refused, with a Warning Event, and its paths answer 503 (ingress-nginx's
// location denied), also where the host's `/` is served open by another, and
// so do those of one NGINX refuses (an auth host that does not resolve); the
// global auth protects Ingresses without
// auth-url unless they say enable-global-auth: "false"; auth-proxy-set-headers
// sends its ConfigMap's headers to the auth service (a change of the ConfigMap
// applies), and a missing ConfigMap answers 503 with a Warning Event;
// auth-keepalive reuses connections to the auth service (counted there).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { appManifest, freePort, ingressManifest, request, startStack, waitFor, waitForResponse, yamlDocuments } from './harness/index.ts';

const run = promisify(execFile);
const PREFIX = 'nginx.ingress.kubernetes.io';

interface Asked { readonly method: string; readonly url: string; readonly headers: IncomingHttpHeaders }

async function authService(): Promise<{ server: Server; port: number; asked: Asked[]; connections: () => number }> {
  const asked: Asked[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    asked.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const url = req.url ?? '';
    if (url.startsWith('/empty')) res.writeHead(200, { 'Content-Length': '0' }).end();
    else if (url.startsWith('/allow')) res.writeHead(200, { 'X-User': 'alice' }).end('ok');
    else if (url.startsWith('/deny')) res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="auth"' }).end('no');
    else if (url.startsWith('/forbid')) res.writeHead(403).end('no');
    else res.writeHead(500).end('broken');
  });
  server.on('connection', () => connections++);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { server, port: (server.address() as AddressInfo).port, asked, connections: () => connections };
}

function configMap(data: Record<string, string>): string {
  return yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resty-config', namespace: 'default' }, data }]);
}

function protectedIngress(name: string, host: string, annotations: Record<string, string>): string {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value]));
  return ingressManifest({ name, host, annotations: prefixed, paths: [{ path: '/', service: 'web' }] });
}

/** curl through NGINX: the status and the Location and WWW-Authenticate headers. */
async function curl(http: string, host: string, path: string, args: readonly string[] = []): Promise<{ status: number; location: string; authenticate: string }> {
  const { stdout } = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}\n%header{location}\n%header{www-authenticate}', '-H', `Host: ${host}`, ...args, `${http}${path}`]);
  const [status = '0', location = '', authenticate = ''] = stdout.split('\n');
  return { status: Number(status), location, authenticate };
}

test('external auth: allowed, denied, signed out, auth service down, global auth', async (t) => {
  const { cluster, controller } = await startStack(t, { controller: { args: ['--configmap', 'default/resty-config'] } });
  const auth = await authService();
  t.after(() => {
    auth.server.closeAllConnections();
    auth.server.close();
  });
  const service = (rest: string): string => `http://127.0.0.1:${auth.port}${rest}`;
  const deadPort = await freePort();
  await cluster.apply([
    configMap({ 'global-auth-url': service('/allow/global'), 'global-auth-response-headers': 'X-User' }),
    appManifest({ name: 'web', replicas: 1 }),
    protectedIngress('allowed', 'allowed.test', { 'auth-url': service('/allow'), 'auth-response-headers': 'X-User' }),
    protectedIngress('denied', 'denied.test', { 'auth-url': service('/deny') }),
    protectedIngress('forbidden', 'forbidden.test', { 'auth-url': service('/forbid') }),
    protectedIngress('signin', 'signin.test', { 'auth-url': service('/deny'), 'auth-signin': 'https://login.example/oauth2/start' }),
    protectedIngress('signin-param', 'signin-param.test', {
      'auth-url': service('/deny'), 'auth-signin': 'https://$host/oauth2/start?x=1', 'auth-signin-redirect-param': 'next',
    }),
    protectedIngress('down', 'down.test', { 'auth-url': `http://127.0.0.1:${deadPort}/auth`, 'auth-method': 'POST' }),
    protectedIngress('global', 'global.test', {}),
    protectedIngress('optout', 'optout.test', { 'enable-global-auth': 'false' }),
  ].join('---\n'));
  await waitForResponse(controller.http, { host: 'allowed.test', path: '/' }, (r) => r.status === 200);
  await waitForResponse(controller.http, { host: 'optout.test', path: '/' }, (r) => r.status === 200);

  await t.test('allowed: the echo pod answers and sees the auth answer\'s X-User, not the client\'s', async () => {
    auth.asked.length = 0;
    const res = await request(controller.http, { host: 'allowed.test', path: '/items?x=1', headers: { 'x-user': 'mallory' } });
    assert.equal(res.status, 200);
    assert.match(res.pod ?? '', /^web-/u);
    assert.equal(res.echo?.headers['x-user'], 'alice');
    const asked = auth.asked.at(-1);
    assert.deepEqual([asked?.method, asked?.url, asked?.headers['x-original-url']], ['GET', '/allow', 'http://allowed.test/items?x=1']);
  });

  await t.test('denied: 401 with the auth service\'s WWW-Authenticate; 403 passed', async () => {
    assert.deepEqual(await curl(controller.http, 'denied.test', '/x'), { status: 401, location: '', authenticate: 'Basic realm="auth"' });
    assert.equal((await curl(controller.http, 'forbidden.test', '/x')).status, 403);
  });

  await t.test('signed out with auth-signin: 302 to the sign-in URL, rd the escaped original URL', async () => {
    const res = await curl(controller.http, 'signin.test', '/app/page?a=b&c=d');
    assert.equal(res.status, 302);
    assert.equal(res.location, 'https://login.example/oauth2/start?rd=http://signin.test%2Fapp%2Fpage%3Fa%3Db%26c%3Dd');
    const param = await curl(controller.http, 'signin-param.test', '/p?q=1');
    assert.deepEqual([param.status, param.location], [302, 'https://signin-param.test/oauth2/start?x=1&next=http://signin-param.test%2Fp%3Fq%3D1'],
      'auth-signin-redirect-param names the parameter, appended after the sign-in URL\'s own query');
  });

  await t.test('the auth service cannot be reached: 500', async () => {
    assert.equal((await curl(controller.http, 'down.test', '/x')).status, 500);
  });

  await t.test('global-auth-url protects an Ingress without auth-url; enable-global-auth "false" opts out', async () => {
    auth.asked.length = 0;
    const res = await request(controller.http, { host: 'global.test', path: '/g', headers: { 'x-user': 'mallory' } });
    assert.equal(res.status, 200);
    assert.equal(res.echo?.headers['x-user'], 'alice');
    assert.equal(auth.asked.at(-1)?.url, '/allow/global');
    auth.asked.length = 0;
    assert.equal((await request(controller.http, { host: 'optout.test', path: '/o' })).status, 200);
    assert.deepEqual(auth.asked, []);
  });

  await t.test('an auth-url that is no URL: the Ingress is refused with a Warning Event, its paths answer 503 (never another Ingress\'s open `/`)', async () => {
    await cluster.apply([
      protectedIngress('broken', 'broken.test', { 'auth-url': 'auth.example/verify' }),
      // On optout.test, whose `/` is served without auth: /admin must not fall through to it.
      ingressManifest({ name: 'broken-admin', host: 'optout.test', annotations: { [`${PREFIX}/auth-url`]: 'https://invalid..auth.url' }, paths: [{ path: '/admin', service: 'web' }] }),
    ].join('---\n'));
    for (const name of ['broken', 'broken-admin']) {
      const warning = await waitFor(`a Warning on ${name}`, async () => (await cluster.events(`involvedObject.name=${name},type=Warning`))
        .find((e) => e.reason === 'InvalidAnnotation'), { timeoutMs: 20_000 });
      assert.match(warning.message, /auth-url/u);
    }
    await waitForResponse(controller.http, { host: 'optout.test', path: '/admin' }, (r) => r.status === 503);
    assert.equal((await request(controller.http, { host: 'broken.test', path: '/' })).status, 503);
    assert.equal((await request(controller.http, { host: 'optout.test', path: '/' })).status, 200);
    assert.equal((await request(controller.http, { host: 'allowed.test', path: '/' })).status, 200);
  });

  await t.test('an auth host that does not resolve: NGINX refuses the Ingress, left out with an Event; its path answers 503, not the host\'s open `/`', async () => {
    await cluster.apply(ingressManifest({
      name: 'unresolved', host: 'optout.test', annotations: { [`${PREFIX}/auth-url`]: 'http://auth.invalid/verify' }, paths: [{ path: '/unresolved', service: 'web' }],
    }));
    const event = await waitFor('a RejectedByNginx Warning on unresolved', async () => (await cluster.events('involvedObject.name=unresolved,type=Warning'))
      .find((e) => e.reason === 'RejectedByNginx'), { timeoutMs: 30_000 });
    assert.match(event.message, /auth\.invalid/u);
    await waitForResponse(controller.http, { host: 'optout.test', path: '/unresolved' }, (r) => r.status === 503);
    assert.equal((await request(controller.http, { host: 'optout.test', path: '/' })).status, 200);
  });

  await t.test('auth-proxy-set-headers: the auth service gets the ConfigMap\'s headers; a change applies; a missing ConfigMap is 503 + Event', async () => {
    const headers = (data: Record<string, string>): string =>
      yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'auth-headers', namespace: 'default' }, data }]);
    await cluster.apply([
      headers({ 'X-Client': 'shop-frontend', 'X-Tenant': 'acme corp' }),
      protectedIngress('headers', 'headers.test', { 'auth-url': service('/allow/headers'), 'auth-proxy-set-headers': 'auth-headers' }),
      protectedIngress('headers-missing', 'headers-missing.test', { 'auth-url': service('/allow/missing'), 'auth-proxy-set-headers': 'no-such-headers' }),
    ].join('---\n'));
    const askedWith = async (want: string): Promise<true | undefined> => {
      auth.asked.length = 0;
      const res = await request(controller.http, { host: 'headers.test', path: '/h', headers: { 'x-client': 'mallory' } });
      const asked = auth.asked.find((item) => item.url === '/allow/headers');
      return res.status === 200 && asked?.headers['x-client'] === want ? true : undefined;
    };
    await waitFor('the auth service sees X-Client from the ConfigMap', () => askedWith('shop-frontend'), { timeoutMs: 20_000 });
    assert.equal(auth.asked.find((item) => item.url === '/allow/headers')?.headers['x-tenant'], 'acme corp');
    await cluster.apply(headers({ 'X-Client': 'shop-backoffice' }));
    await waitFor('the changed ConfigMap applies', () => askedWith('shop-backoffice'), { timeoutMs: 20_000 });
    assert.equal(auth.asked.find((item) => item.url === '/allow/headers')?.headers['x-tenant'], undefined, 'a removed key is no longer sent');

    await waitFor('the missing ConfigMap answers 503', async () =>
      ((await request(controller.http, { host: 'headers-missing.test', path: '/' })).status === 503 ? true : undefined), { timeoutMs: 20_000 });
    const warning = await waitFor('an AuthProxyHeadersUnusable Warning on headers-missing', async () => (await cluster.events('involvedObject.name=headers-missing,type=Warning'))
      .find((e) => e.reason === 'AuthProxyHeadersUnusable'), { timeoutMs: 20_000 });
    assert.match(warning.message, /ConfigMap default\/no-such-headers not found/u);
  });

  await t.test('auth-keepalive: the auth subrequests of many requests share the connections kept (at most one per NGINX worker)', async () => {
    await cluster.apply([
      protectedIngress('kept', 'kept.test', { 'auth-url': service('/empty/kept'), 'auth-keepalive': '4' }),
      protectedIngress('unkept', 'unkept.test', { 'auth-url': service('/empty/unkept') }),
    ].join('---\n'));
    for (const host of ['kept.test', 'unkept.test']) {
      await waitForResponse(controller.http, { host, path: '/' }, (r) => r.status === 200);
    }
    const count = async (host: string): Promise<number> => {
      const before = auth.connections();
      for (let i = 0; i < 12; i++) assert.equal((await request(controller.http, { host, path: `/${i}` })).status, 200);
      return auth.connections() - before;
    };
    // The e2e NGINX runs two workers, each with its own cache of kept connections.
    assert.ok((await count('kept.test')) <= 2, 'auth-keepalive: connections reused');
    assert.equal(await count('unkept.test'), 12, 'without it: one connection per subrequest');
  });
});
