// auth-keepalive through a rendered nginx.conf in the real data-plane NGINX (one worker), against
// a local auth service that counts the connections it accepts: with keepalive the auth
// subrequests of many requests share one connection (an answer without a body, as oauth2-proxy's);
// auth-keepalive-requests closes it after that many; without keepalive each subrequest opens its
// own; an answer with a body closes it (auth_request reads no body: documented). An auth upstream
// whose host does not resolve fails nginx -t on a line blamed on its Ingress alone.
// Fails (never skips) without the runtime: the test command runs setup first.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import { parseAnnotations } from '../model/features/testing.ts';
import type { ExternalAuthConfig, IngressRef, Location, Model } from '../model/types.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { acceptedByNginx, refusedByNginx } from './testdata/nginx-refusal.ts';
import { ownersOfLine } from './conf-owners.ts';
import { renderConfig } from './render-config.ts';
import { backend, DEFAULT_SETTINGS, goldenOptions, model, notFound, proxied, server } from './testdata/model-fixtures.ts';
import { makePrefix, startNginx, type RunningNginx } from './testdata/nginx-runner.ts';

const HOST = 'shop.test';
const ref = (name: string): IngressRef => ({ namespace: 'shop', name });

function auth(annotations: Record<string, string>): ExternalAuthConfig {
  const parsed = parseAnnotations(annotations, DEFAULT_SETTINGS);
  assert.ok(parsed.ok && parsed.value.policy.externalAuth, JSON.stringify(parsed));
  return parsed.value.policy.externalAuth;
}

const at = (path: string, name: string, backendName: string, config: ExternalAuthConfig): Location =>
  proxied(path, 'prefix', backendName, { ingress: ref(name), policy: { externalAuth: config }, host: HOST });

/** An HTTP server counting the connections it accepted; `/body…` answers with a body, the rest with none. */
async function countingService(): Promise<{ server: HttpServer; port: number; connections: () => number; requests: () => number }> {
  let connections = 0;
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    if ((req.url ?? '').startsWith('/body')) res.writeHead(200).end('authorized');
    else res.writeHead(200, { 'Content-Length': '0' }).end();
  });
  server.on('connection', () => connections++);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections, requests: () => requests };
}

function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host: HOST }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

void describe('auth-keepalive in real NGINX', () => {
  const web = backend('shop-web');
  let nginx: RunningNginx;
  let httpPort: number;
  let main: HttpServer;
  let authService: Awaited<ReturnType<typeof countingService>>;

  before(async () => {
    main = createServer((_req, res) => res.writeHead(200).end('app'));
    await new Promise<void>((ready) => main.listen(0, '127.0.0.1', ready));
    authService = await countingService();
    const service = (rest: string): string => `http://127.0.0.1:${authService.port}${rest}`;
    const site: Model = model([
      server('_', [notFound('/')]),
      server(HOST, [
        at('/kept', 'kept', web.name, auth({ 'auth-url': service('/ok'), 'auth-keepalive': '4' })),
        at('/short', 'short', web.name, auth({ 'auth-url': service('/ok/short'), 'auth-keepalive': '4', 'auth-keepalive-requests': '2' })),
        at('/plain', 'plain', web.name, auth({ 'auth-url': service('/ok/plain') })),
        at('/body', 'body', web.name, auth({ 'auth-url': service('/body'), 'auth-keepalive': '4' })),
      ]),
    ], [web]);
    httpPort = await freePort();
    const statusPort = await freePort();
    const dataplane = findDataplane();
    const prefix = makePrefix();
    const rendered = renderConfig(site, { ...goldenOptions(dataplane, prefix), httpPort, httpsPort: await freePort(), statusPort, workerProcesses: 1 });
    nginx = await startNginx(dataplane, prefix, rendered.conf, `http://127.0.0.1:${statusPort}/healthz`);
    const push = await fetch(`http://127.0.0.1:${statusPort}/configuration/backends`, {
      method: 'POST',
      body: JSON.stringify([{ name: web.name, endpoints: [{ address: '127.0.0.1', port: (main.address() as AddressInfo).port }], loadBalance: 'round_robin' }]),
    });
    assert.equal(push.status, 201, await push.text());
    for (let i = 0; i < 80 && (await get(httpPort, '/plain')) !== 200; i++) await sleep(25);
  });

  after(async () => {
    const log = nginx?.errorLog() ?? '';
    await nginx?.stop();
    for (const server of [main, authService?.server]) {
      server?.closeAllConnections();
      server?.close();
    }
    assert.deepEqual(log.split('\n').filter((line) => line.includes('[error]')), []);
  });

  /** The connections and auth requests the auth service saw while `paths` were each asked once, in order. */
  async function counted(paths: readonly string[]): Promise<{ connections: number; requests: number }> {
    const [connections, requests] = [authService.connections(), authService.requests()];
    for (const path of paths) assert.equal(await get(httpPort, path), 200, path);
    return { connections: authService.connections() - connections, requests: authService.requests() - requests };
  }

  const rows: { name: string; path: string; want: number }[] = [
    { name: 'auth-keepalive: ten subrequests over one connection', path: '/kept/x', want: 1 },
    { name: 'auth-keepalive-requests 2: a new connection every two', path: '/short/x', want: 5 },
    { name: 'no auth-keepalive: a connection per subrequest', path: '/plain/x', want: 10 },
    { name: 'auth-keepalive, an auth answer with a body: closed each time (auth_request reads no body)', path: '/body/x', want: 10 },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      // Each row's first request may reuse nothing: its upstream's cache starts empty (or holds the last row's connection, of another upstream).
      assert.deepEqual(await counted(Array.from({ length: 10 }, () => row.path)), { connections: row.want, requests: 10 });
    });
  }
});

void describe('an auth upstream nginx -t refuses, blamed on the Ingress at fault', () => {
  const web = backend('shop-web');
  const bad = at('/bad', 'bad', web.name, auth({ 'auth-url': 'http://auth.invalid/verify', 'auth-keepalive': '8' }));
  const good = at('/good', 'good', web.name, auth({ 'auth-url': 'http://127.0.0.1:9/verify', 'auth-keepalive': '8' }));
  const site = (locations: Location[]): Model => model([server('_', [notFound('/')]), server(HOST, locations)], [web]);

  void it('an auth host that does not resolve fails nginx -t in its upstream, owned by that Ingress alone; without it the rest passes', async () => {
    const withBad = site([good, bad]);
    const refused = await refusedByNginx(withBad);
    assert.match(refused.conf, /upstream resty_auth_[0-9a-f]{16} \{\n\s+server "auth\.invalid:80";\n\s+keepalive 8;/u);
    assert.match(refused.nginxOutput, /host not found in upstream "auth\.invalid(:80)?"/u);
    assert.deepEqual(ownersOfLine(withBad, refused.conf, refused.line), [ref('bad')]);
    await acceptedByNginx(site([good]));
  });
});
