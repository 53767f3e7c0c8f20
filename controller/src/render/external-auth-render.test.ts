// External auth (auth-url, auth-signin, auth-response-headers, global-auth-url,
// enable-global-auth, no-auth-locations) through a rendered nginx.conf in the
// real data-plane NGINX, against a local auth service: allowed → the
// backend's answer with the auth answer's headers received upstream (the
// client's own never); 401/403 passed (401 with the auth's WWW-Authenticate);
// signed out with auth-signin → 302 with the exact escaped `rd`; an auth
// service that answers 5xx or cannot be reached → 500 (auth_request's rule, as
// ingress-nginx). The latency the subrequest adds is the external-auth
// benchmark's (bench/external-auth), not a unit test's.
// Fails (never skips) without the runtime: the test command runs setup first.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import { parseAnnotations, readConfigMap } from '../model/features/testing.ts';
import type { ExternalAuthConfig, IngressRef, Location, Model } from '../model/types.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { acceptedByNginx, refusedByNginx } from './testdata/nginx-refusal.ts';
import { ownersOfLine } from './conf-owners.ts';
import { renderConfig } from './render-config.ts';
import { backend, DEFAULT_SETTINGS, goldenOptions, model, notFound, proxied, server } from './testdata/model-fixtures.ts';
import { makePrefix, startNginx, type RunningNginx } from './testdata/nginx-runner.ts';

const HOST = 'shop.test';
const ref = (name: string): IngressRef => ({ namespace: 'shop', name });

/** The auth config an Ingress's annotations give over `settings` (parsed by the feature module, as the builder does). */
function auth(annotations: Record<string, string>, settings: Model['settings'] = DEFAULT_SETTINGS): ExternalAuthConfig {
  const parsed = parseAnnotations(annotations, settings);
  assert.ok(parsed.ok && parsed.value.policy.externalAuth, JSON.stringify(parsed));
  return parsed.value.policy.externalAuth;
}

function at(path: string, name: string, backendName: string, config?: ExternalAuthConfig, settings = DEFAULT_SETTINGS): Location {
  return proxied(path, 'prefix', backendName, { ingress: ref(name), policy: config === undefined ? {} : { externalAuth: config }, host: HOST, settings });
}

interface Seen { readonly method: string; readonly url: string; readonly headers: IncomingHttpHeaders; readonly body: string }

/** A server recording requests; `answer` picks status and headers by URL. */
async function recorder(answer: (url: string) => { status: number; headers?: Record<string, string> }): Promise<{ server: HttpServer; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const { status, headers } = answer(req.url ?? '');
      res.writeHead(status, headers).end(`answer ${status}`);
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

interface Reply { readonly status: number; readonly headers: IncomingHttpHeaders; readonly body: string }

function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { host: HOST, ...headers }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

void describe('external auth in real NGINX', () => {
  const web = backend('shop-web');
  let nginx: RunningNginx;
  let httpPort: number;
  let main: Awaited<ReturnType<typeof recorder>>;
  let authService: Awaited<ReturnType<typeof recorder>>;

  before(async () => {
    // The backend fails on /cookie-*: auth-always-set-cookie decides whether the auth answer's cookie still goes out.
    main = await recorder((url) => ({ status: url.startsWith('/cookie-') ? 503 : 200 }));
    authService = await recorder((url): { status: number; headers?: Record<string, string> } => {
      if (url.startsWith('/allow')) return { status: 200, headers: { 'X-User': 'alice', 'X-Auth-Groups': 'admins', 'Set-Cookie': 'session=s1' } };
      // No Set-Cookie: NGINX caches no answer that sets a cookie (as in ingress-nginx).
      if (url.startsWith('/cache')) return { status: 200, headers: { 'X-User': 'carol' } };
      if (url.startsWith('/deny')) return { status: 401, headers: { 'WWW-Authenticate': 'Bearer realm="shop"' } };
      if (url.startsWith('/forbid')) return { status: 403 };
      return { status: 502 };
    });
    const deadPort = await freePort();
    const service = (rest: string): string => `http://127.0.0.1:${authService.port}${rest}`;
    const global = readConfigMap({ 'global-auth-url': service('/allow/global'), 'global-auth-response-headers': 'X-User' });
    assert.deepEqual(global.failures, []);
    const settings = { ...DEFAULT_SETTINGS, externalAuth: global.settings.externalAuth };
    const site: Model = model([
      server('_', [notFound('/')]),
      server(HOST, [
        at('/allowed', 'allowed', web.name, auth({ 'auth-url': service('/allow?x=1'), 'auth-response-headers': 'X-User, X-Auth-Groups' }, settings), settings),
        at('/denied', 'denied', web.name, auth({ 'auth-url': service('/deny') }, settings), settings),
        at('/forbidden', 'forbidden', web.name, auth({ 'auth-url': service('/forbid') }, settings), settings),
        at('/signin', 'signin', web.name, auth({ 'auth-url': service('/deny'), 'auth-signin': 'https://login.example/start' }, settings), settings),
        at('/signin-param', 'signin-param', web.name, auth({
          'auth-url': service('/deny'), 'auth-signin': 'https://$host/oauth2/start?x=1', 'auth-signin-redirect-param': 'next' }, settings), settings),
        at('/post', 'post', web.name, auth({ 'auth-url': service('/allow'), 'auth-method': 'POST', 'auth-request-redirect': 'https://app.example/back' }, settings), settings),
        at('/cached', 'cached', web.name, auth({ 'auth-url': service('/cache'), 'auth-cache-key': '$http_x_token', 'auth-cache-duration': '200 1m' }, settings), settings),
        at('/broken', 'broken', web.name, auth({ 'auth-url': service('/broken') }, settings), settings),
        at('/cookie-default', 'cookie-default', web.name, auth({ 'auth-url': service('/allow') }, settings), settings),
        at('/cookie-always', 'cookie-always', web.name, auth({ 'auth-url': service('/allow'), 'auth-always-set-cookie': 'true' }, settings), settings),
        at('/down', 'down', web.name, auth({ 'auth-url': `http://127.0.0.1:${deadPort}/auth` }, settings), settings),
        at('/optout', 'optout', web.name, auth({ 'enable-global-auth': 'false' }, settings), settings),
        at('/.well-known/acme-challenge', 'acme', web.name, undefined, settings),
        proxied('/generated', 'prefix', web.name, { ingress: null, host: HOST, settings }),
        at('/', 'front', web.name, undefined, settings),
      ]),
    ], [web], settings);
    httpPort = await freePort();
    const statusPort = await freePort();
    const dataplane = findDataplane();
    const prefix = makePrefix();
    const rendered = renderConfig(site, { ...goldenOptions(dataplane, prefix), httpPort, httpsPort: await freePort(), statusPort, workerProcesses: 1 });
    nginx = await startNginx(dataplane, prefix, rendered.conf, `http://127.0.0.1:${statusPort}/healthz`);
    const push = await fetch(`http://127.0.0.1:${statusPort}/configuration/backends`, {
      method: 'POST',
      body: JSON.stringify([{ name: web.name, endpoints: [{ address: '127.0.0.1', port: main.port }], loadBalance: 'round_robin' }]),
    });
    assert.equal(push.status, 201, await push.text());
    for (let i = 0; i < 80 && (await send(httpPort, 'GET', '/optout')).status !== 200; i++) await sleep(25);
  });

  after(async () => {
    const log = nginx?.errorLog() ?? '';
    await nginx?.stop();
    for (const { server } of [main, authService]) {
      server?.closeAllConnections();
      server?.close();
    }
    // The dead and the failing auth service are logged as [error] on purpose; nothing else may be.
    const expected = /Connection refused|auth request unexpected status: 502/u;
    const errors = log.split('\n').filter((line) => line.includes('[error]') && !expected.test(line));
    assert.deepEqual(errors, []);
  });

  void it('allowed: the backend answers; the auth answer\'s headers reach it, replacing the client\'s; the auth service gets the request\'s facts, no body', async () => {
    main.seen.length = 0;
    authService.seen.length = 0;
    const res = await send(httpPort, 'POST', '/allowed/items?q=1', { 'X-User': 'mallory', 'X-Auth-Groups': 'root' }, 'payload');
    assert.deepEqual([res.status, res.body, res.headers['set-cookie']], [200, 'answer 200', ['session=s1']]);
    const upstream = main.seen.at(-1);
    assert.deepEqual([upstream?.url, upstream?.body, upstream?.headers['x-user'], upstream?.headers['x-auth-groups']],
      ['/allowed/items?q=1', 'payload', 'alice', 'admins']);
    assert.equal(upstream?.headers.host, HOST, 'the one header list is printed again whole');
    assert.equal(upstream?.headers['x-forwarded-for'], '127.0.0.1');
    const asked = authService.seen.at(-1);
    // NGINX's subrequests are GETs (as in ingress-nginx) unless auth-method says otherwise.
    assert.deepEqual([asked?.method, asked?.url, asked?.body], ['GET', '/allow?x=1', '']);
    assert.equal(asked?.headers.host, '127.0.0.1');
    assert.equal(asked?.headers['x-original-url'], `http://${HOST}/allowed/items?q=1`);
    assert.equal(asked?.headers['x-original-method'], 'POST');
    assert.equal(asked?.headers['x-auth-request-redirect'], '/allowed/items?q=1');
    assert.equal(asked?.headers['x-sent-from'], 'nginx-ingress-controller');
    assert.equal(asked?.headers['content-length'], undefined);
  });

  void it('denied: 401 with the auth service\'s WWW-Authenticate, 403 passed; the backend sees nothing', async () => {
    main.seen.length = 0;
    const denied = await send(httpPort, 'GET', '/denied/x');
    assert.deepEqual([denied.status, denied.headers['www-authenticate']], [401, 'Bearer realm="shop"']);
    assert.equal((await send(httpPort, 'GET', '/forbidden/x')).status, 403);
    assert.equal(main.seen.length, 0);
  });

  void it('signed out with auth-signin: 302 to the sign-in URL with the original URL escaped as ingress-nginx\'s set_escape_uri', async () => {
    const res = await send(httpPort, 'GET', '/signin/a%20b?c=d&e=!*\'()~@,$|[]');
    assert.equal(res.status, 302);
    assert.equal(res.headers.location, `https://login.example/start?rd=http://${HOST}%2Fsignin%2Fa%2520b%3Fc%3Dd%26e%3D!*'()~@,$|%5B%5D`);
    const param = await send(httpPort, 'GET', '/signin-param/p?q=1');
    assert.equal(param.status, 302);
    assert.equal(param.headers.location, `https://${HOST}/oauth2/start?x=1&next=http://${HOST}%2Fsignin-param%2Fp%3Fq%3D1`);
  });

  void it('auth-method and auth-request-redirect: the subrequest\'s method, X-Original-URI and X-Auth-Request-Redirect', async () => {
    authService.seen.length = 0;
    assert.equal((await send(httpPort, 'GET', '/post/z')).status, 200);
    const asked = authService.seen.at(-1);
    assert.deepEqual([asked?.method, asked?.headers['x-original-uri'], asked?.headers['x-auth-request-redirect'], asked?.headers['x-original-method']],
      ['POST', '/post/z', 'https://app.example/back', 'GET']);
  });

  void it('auth-cache-key: the auth service is asked once per key while the answer is fresh (an answer with Set-Cookie is never cached)', async () => {
    authService.seen.length = 0;
    for (const token of ['a', 'a', 'b', 'a', 'b']) {
      assert.equal((await send(httpPort, 'GET', `/cached/${token}`, { 'X-Token': token })).status, 200);
    }
    assert.deepEqual(authService.seen.map((seen) => seen.headers['x-token']), ['a', 'b']);
    assert.equal(main.seen.at(-1)?.headers['x-user'], undefined, 'no auth-response-headers asked for');
  });

  void it('the auth answer\'s Set-Cookie on a backend error: dropped by default, sent with auth-always-set-cookie (ingress-nginx\'s e2e cases)', async () => {
    const plain = await send(httpPort, 'GET', '/cookie-default/x');
    assert.deepEqual([plain.status, plain.headers['set-cookie']], [503, undefined]);
    const always = await send(httpPort, 'GET', '/cookie-always/x');
    assert.deepEqual([always.status, always.headers['set-cookie']], [503, ['session=s1']]);
  });

  void it('an auth service answering 5xx, or one that cannot be reached: 500', async () => {
    main.seen.length = 0;
    assert.equal((await send(httpPort, 'GET', '/broken/x')).status, 500);
    assert.equal((await send(httpPort, 'GET', '/down/x')).status, 500);
    assert.equal(main.seen.length, 0);
  });

  void it('global-auth-url protects Ingresses without auth-url; enable-global-auth "false" and no-auth-locations do not', async () => {
    authService.seen.length = 0;
    main.seen.length = 0;
    assert.equal((await send(httpPort, 'GET', '/front', { 'X-User': 'mallory' })).status, 200);
    assert.equal(authService.seen.at(-1)?.url, '/allow/global');
    assert.equal(main.seen.at(-1)?.headers['x-user'], 'alice');
    authService.seen.length = 0;
    assert.equal((await send(httpPort, 'GET', '/optout/x')).status, 200);
    assert.equal((await send(httpPort, 'GET', '/.well-known/acme-challenge/token')).status, 200);
    assert.equal((await send(httpPort, 'GET', '/generated/x')).status, 200, 'a generated location (the default backend\'s) is no Ingress\'s');
    assert.equal(authService.seen.length, 0);
  });
});

void describe('an auth location nginx -t refuses, blamed on the Ingress at fault', () => {
  const web = backend('shop-web');
  const bad = at('/bad', 'bad', web.name, auth({ 'auth-url': 'http://auth.invalid/verify' }));
  const good = at('/good', 'good', web.name, auth({ 'auth-url': 'http://127.0.0.1:9/verify' }));
  const site = (locations: Location[]): Model => model([server('_', [notFound('/')]), server(HOST, locations)], [web]);

  void it('an auth host that does not resolve fails nginx -t on a line of that Ingress alone; without it the rest passes', async () => {
    const withBad = site([good, bad]);
    const refused = await refusedByNginx(withBad);
    assert.match(refused.nginxOutput, /host not found in upstream "auth\.invalid"/u);
    assert.deepEqual(ownersOfLine(withBad, refused.conf, refused.line), [ref('bad')]);
    await acceptedByNginx(site([good]));
  });
});
