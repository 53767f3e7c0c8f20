// What a backend receives of the client's request headers, through a rendered
// nginx.conf in the real data-plane NGINX and an echo backend. ingress-nginx's
// default (use-forwarded-headers false) is the contract: X-Forwarded-For is the
// connection's address alone, X-Forwarded-Host/Proto/Port and X-Scheme describe the
// request NGINX received, whatever the client claims (its own X-Forwarded-For/-Host
// go on as X-Original-Forwarded-For/-Host), X-Request-ID is the client's or a
// generated one (features/client-address-http.njk); and a client's `Proxy:` header is
// cleared (HTTPoxy, CVE-2016-5385: CGI-style backends turn it into HTTP_PROXY).
// Every kind of proxied location is tried: a location that set a
// proxy_set_header of its own would silently drop every inherited one. The
// upstream-vhost and x-forwarded-prefix locations do set their own: they must
// send the same list (proxy-headers.njk), plus their Host / X-Forwarded-Prefix,
// and still pass a websocket's Upgrade and Connection.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type OutgoingHttpHeaders, type Server as HttpServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { renderConfig } from './render-config.ts';
import { backend, DEFAULT_PROXY, goldenOptions, model, proxied, server } from './testdata/model-fixtures.ts';
import { makePrefix, startNginx, type RunningNginx } from './testdata/nginx-runner.ts';

const HOST = 'app.example.com';

/** What the echo backend saw: the URL and the headers as node:http parsed them (lower-case names). */
interface Seen { readonly url: string; readonly headers: Record<string, string | string[] | undefined> }

/** GET with arbitrary headers (fetch() refuses Host and some others); resolves with status and body. */
function get(port: number, path: string, headers: OutgoingHttpHeaders): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host: HOST, ...headers }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

void describe('client request headers as the backend receives them (real NGINX)', () => {
  const plain = backend('default-plain-80');
  const ewma = { ...backend('default-ewma-80'), loadBalance: 'ewma' as const };
  const site = model(
    [
      server(HOST, [
        proxied('/', 'prefix', plain.name),
        proxied('/exact', 'exact', plain.name),
        proxied('/rewrite(/|$)(.*)', 'regex', plain.name, { policy: { rewrite: { target: '/$2', useRegex: false } } }),
        proxied('/tuned', 'prefix', plain.name, { policy: { proxy: { ...DEFAULT_PROXY, bodySize: '8m', connectTimeout: 2, readTimeout: 9, sendTimeout: 9 } } }),
        proxied('/no-redirect', 'prefix', plain.name, { policy: { sslRedirect: { redirect: false, force: false } } }),
        proxied('/ewma', 'prefix', ewma.name),
        proxied('/vhost', 'prefix', plain.name, { policy: { upstreamHeaders: { host: 'internal.svc:8080', prefix: null } } }),
        proxied('/prefixed', 'prefix', plain.name, { policy: { upstreamHeaders: { host: null, prefix: '/shop' } } }),
        proxied('/both(/|$)(.*)', 'regex', plain.name, {
          policy: { upstreamHeaders: { host: 'internal.svc', prefix: '/both/$2' }, nextUpstream: { conditions: ['error'], timeout: 5, tries: 1 } },
        }),
      ]),
    ],
    [plain, ewma],
  );
  const paths = ['/', '/exact', '/rewrite/x', '/tuned', '/no-redirect', '/ewma', '/vhost', '/prefixed', '/both/x'];
  let nginx: RunningNginx | undefined;
  let echo: HttpServer | undefined;
  let httpPort = 0;

  /** The request the backend got for `path` with the client's `headers`. */
  async function seenBy(path: string, headers: OutgoingHttpHeaders): Promise<Seen> {
    const res = await get(httpPort, path, headers);
    assert.equal(res.status, 200, `${path}: ${res.body}`);
    return JSON.parse(res.body) as Seen;
  }

  before(async () => {
    echo = createServer((req, res) => res.end(JSON.stringify({ url: req.url, headers: req.headers })));
    // A websocket handshake: switch protocols, send what was received, close.
    echo.on('upgrade', (req, socket) => {
      socket.end(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n${JSON.stringify({ url: req.url, headers: req.headers })}`);
    });
    await new Promise<void>((ready) => echo?.listen(0, '127.0.0.1', ready));
    const endpoint = { address: '127.0.0.1', port: (echo.address() as AddressInfo).port };
    httpPort = await freePort();
    const statusPort = await freePort();
    const dataplane = findDataplane();
    const prefix = makePrefix();
    const options = { ...goldenOptions(dataplane, prefix), httpPort, httpsPort: await freePort(), statusPort, workerProcesses: 2 };
    nginx = await startNginx(dataplane, prefix, renderConfig(site, options).conf, `http://127.0.0.1:${statusPort}/healthz`);
    const push = await fetch(`http://127.0.0.1:${statusPort}/configuration/backends`, {
      method: 'POST',
      body: JSON.stringify([plain, ewma].map((b) => ({ name: b.name, endpoints: [endpoint], loadBalance: b.loadBalance }))),
    });
    assert.equal(push.status, 201, await push.text());
    // Each worker picks the push up within ~10 ms: wait until every path answers 200 (2 workers, a few tries each).
    for (const path of paths) {
      for (let i = 0; i < 40; i++) {
        if ((await get(httpPort, path, {})).status === 200 && (await get(httpPort, path, {})).status === 200) break;
        await sleep(25);
      }
    }
  });

  after(async () => {
    await nginx?.stop();
    echo?.closeAllConnections();
    echo?.close();
  });

  const rows: [name: string, sent: OutgoingHttpHeaders, expected: (httpPort: number) => Record<string, string | undefined>][] = [
    ['a spoofed X-Forwarded-For is replaced by the client address',
      { 'x-forwarded-for': '6.6.6.6' }, () => ({ 'x-forwarded-for': '127.0.0.1' })],
    ['a spoofed chain of X-Forwarded-For is replaced too',
      { 'x-forwarded-for': '6.6.6.6, 7.7.7.7' }, () => ({ 'x-forwarded-for': '127.0.0.1' })],
    ['several X-Forwarded-For header lines are replaced by one',
      { 'x-forwarded-for': ['6.6.6.6', '7.7.7.7'] }, () => ({ 'x-forwarded-for': '127.0.0.1' })],
    ['without X-Forwarded-For the backend gets the client address',
      {}, () => ({ 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '127.0.0.1' })],
    ['a spoofed X-Real-IP is replaced by the client address',
      { 'x-real-ip': '6.6.6.6' }, () => ({ 'x-real-ip': '127.0.0.1' })],
    ['spoofed X-Forwarded-Host/Proto/Port are replaced by the request NGINX received',
      { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', 'x-forwarded-port': '1' },
      (port) => ({ 'x-forwarded-host': HOST, 'x-forwarded-proto': 'http', 'x-forwarded-port': String(port) })],
    ['ingress-nginx\'s scheme headers and the client\'s forwarded ones only as X-Original-*',
      { 'x-forwarded-for': '6.6.6.6', 'x-forwarded-host': 'evil.example', 'x-scheme': 'https', 'x-forwarded-scheme': 'https' },
      () => ({ 'x-scheme': 'http', 'x-forwarded-scheme': 'http', 'x-original-forwarded-for': '6.6.6.6', 'x-original-forwarded-host': 'evil.example', 'x-original-uri': undefined })],
    ['without proxy-add-original-uri-header the client\'s X-Original-URI passes, as in ingress-nginx',
      { 'x-original-uri': '/from-client' }, () => ({ 'x-original-uri': '/from-client' })],
    ['the client\'s X-Request-ID is passed as it is',
      { 'x-request-id': 'client-chosen-id' }, () => ({ 'x-request-id': 'client-chosen-id' })],
    ['X-Forwarded-Host is the host as the client sent it (with its port), upstream-vhost or not',
      { host: `${HOST}:8080` }, () => ({ 'x-forwarded-host': `${HOST}:8080` })],
    ['a Proxy header never reaches the backend (HTTPoxy)',
      { proxy: 'http://evil:1' }, () => ({ proxy: undefined })],
    ['a Proxy header in another case never reaches the backend',
      { PROXY: 'http://evil:1' }, () => ({ proxy: undefined })],
  ];
  for (const [name, sent, expected] of rows) {
    void it(name, async () => {
      for (const path of paths) {
        const seen = await seenBy(path, sent);
        const got = Object.fromEntries(Object.keys(expected(httpPort)).map((header) => [header, seen.headers[header]]));
        assert.deepEqual(got, expected(httpPort), `${path}: the backend saw ${JSON.stringify(seen.headers)}`);
      }
    });
  }

  const upstreamRows: [name: string, path: string, host: string, prefix: string | undefined][] = [
    ['a location without upstream-vhost sends the request host, no X-Forwarded-Prefix', '/', HOST, undefined],
    ['upstream-vhost: the backend gets that Host, X-Forwarded-Host stays the request\'s', '/vhost', 'internal.svc:8080', undefined],
    ['x-forwarded-prefix: the backend gets the header and the request host', '/prefixed', HOST, '/shop'],
    ['both, with a regex capture in the prefix', '/both/x', 'internal.svc', '/both/x'],
  ];
  for (const [name, path, host, prefix] of upstreamRows) {
    void it(name, async () => {
      const seen = await seenBy(path, { 'x-forwarded-prefix': '/spoofed' });
      assert.equal(seen.headers.host, host);
      assert.equal(seen.headers['x-forwarded-host'], HOST);
      // A client's own X-Forwarded-Prefix passes where the location sets none, as in ingress-nginx.
      assert.equal(seen.headers['x-forwarded-prefix'], prefix ?? '/spoofed');
    });
  }

  void it('Host is the host as the client sent it where no upstream-vhost replaces it', async () => {
    assert.equal((await seenBy('/', { host: `${HOST}:8080` })).headers.host, `${HOST}:8080`);
    assert.equal((await seenBy('/prefixed', { host: HOST.toUpperCase() })).headers.host, HOST.toUpperCase());
  });

  void it('every location sends a generated X-Request-ID, a new one per request', async () => {
    const ids = new Set<string>();
    for (const path of paths) {
      const id = (await seenBy(path, {})).headers['x-request-id'];
      assert.match(String(id), /^[0-9a-f]{32}$/u, path);
      ids.add(String(id));
    }
    assert.equal(ids.size, paths.length);
  });

  void it('a websocket handshake passes Upgrade and Connection on every location', async () => {
    for (const path of paths) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(httpPort, '127.0.0.1', () => {
          socket.write(`GET ${path} HTTP/1.1\r\nHost: ${HOST}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nProxy: http://evil:1\r\n\r\n`);
        });
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
        socket.setTimeout(5000, () => socket.destroy(new Error(`${path}: no answer in 5 s: ${text}`)));
      });
      assert.match(answer, /^HTTP\/1\.1 101 /u, `${path}: ${answer}`);
      const seen = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Seen;
      assert.equal(seen.headers.upgrade, 'websocket', path);
      assert.equal(seen.headers.connection, 'upgrade', path);
      assert.equal(seen.headers['x-forwarded-for'], '127.0.0.1', path);
      assert.equal(seen.headers.proxy, undefined, path);
    }
  });

  void it('other client headers still reach the backend (the echo sees what is sent)', async () => {
    const seen = await seenBy('/', { 'x-custom': 'kept', 'x-proxy': 'kept too' });
    assert.equal(seen.headers['x-custom'], 'kept');
    assert.equal(seen.headers['x-proxy'], 'kept too');
  });

  void it('logs no [error]', () => {
    const serious = (nginx?.errorLog() ?? '').split('\n').filter((line) => /\[(error|alert|crit|emerg)\]/u.test(line));
    assert.deepEqual(serious, []);
  });
});
