// E2E: proxy tuning as ingress-nginx users write it, applied with the real
// kubectl and checked with curl through the real NGINX. The "pod" is a server
// of this process (a selector-less Service and an EndpointSlice): it sends a
// large response and says how long that took, times a request body's arrival, and sends
// a Set-Cookie and a redirect naming its internal host. Checked:
// - proxy-buffering: on lets the backend hand over a large response while the
//   client reads nothing (NGINX buffers it, to a temp file); off (the default)
//   takes it only as fast as the client reads;
// - proxy-request-buffering: on (the default) sends the backend nothing until
//   the whole body is read; off streams the body as it comes;
// - proxy-cookie-path / proxy-cookie-domain rewrite the Set-Cookie, and
//   proxy-redirect-from / -to the Location; an Ingress without them passes both;
// - connection-proxy-header: close reaches the backend;
// - large-client-header-buffers (ConfigMap): a header past the buffer is
//   refused with 400, a request line past it with 414; shorter ones pass.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { ingressManifest, startStack, waitForResponse, yamlDocuments } from './harness/index.ts';
import { manualServiceManifest, type Listening } from './protocol-backends.ts';

const run = promisify(execFile);
const PREFIX = 'nginx.ingress.kubernetes.io';
const GAP_MS = 1500;
/** Far more than the loopback sockets between backend, NGINX and client hold (a few MB each). */
const BIG = 48 * 1024 * 1024;
/** How long the last /big took the backend to hand over, in ms (-1: none yet). */
let bigTook = -1;

/** A loopback address outside the simulator's pool, for this test's own server. */
function ownAddress(pool: string): string {
  const [, second] = pool.split('.');
  return `127.${(Number(second) + 64) % 256 || 1}.9.${10 + Math.floor(Math.random() * 200)}`;
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const arrived = Date.now();
  const path = new URL(req.url ?? '/', 'http://backend').pathname;
  let bodyLength = 0;
  req.on('data', (chunk: Buffer) => { bodyLength += chunk.length; });
  req.on('end', () => {
    if (path === '/big') {
      // BIG bytes as fast as NGINX takes them; how long that took is kept for /big-took.
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(BIG) });
      const chunk = Buffer.alloc(64 * 1024, 120);
      let left = BIG / chunk.length;
      const pump = (): void => {
        while (left > 0) {
          left -= 1;
          if (!res.write(chunk)) { res.once('drain', pump); return; }
        }
        res.end();
      };
      res.once('finish', () => { bigTook = Date.now() - arrived; });
      pump();
      return;
    }
    if (path === '/big-took') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ms: bigTook }));
      return;
    }
    if (path === '/upload') {
      // How long the body took to arrive after the request did: ~GAP_MS when NGINX streams it.
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ bodyLength, bodyMs: Date.now() - arrived }));
      return;
    }
    if (path === '/connection') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(req.headers.connection ?? '(none)');
      return;
    }
    if (path === '/cookie') {
      res.writeHead(200, { 'set-cookie': 'sid=42; Path=/v1/session; Domain=backend.internal; HttpOnly', 'content-type': 'text/plain' }).end('ok');
      return;
    }
    if (path === '/redirect') {
      res.writeHead(302, { location: 'http://backend.internal/next?step=2' }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
}

async function startBackend(address: string): Promise<Listening> {
  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, address, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { address, port, close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

function configMap(data: Record<string, string>): string {
  return yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resty-config', namespace: 'default' }, data }]);
}

function tunedIngress(name: string, annotations: Record<string, string>): string {
  const all = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value]));
  // kubectl reads YAML 1.1, where a bare on / off is a boolean: quoted, as users must write them.
  return ingressManifest({ name, host: `${name}.test`, annotations: all, paths: [{ path: '/', service: 'own' }] })
    .replace(/: (on|off)$/gmu, ': "$1"');
}

interface Curl {
  readonly status: number;
  readonly firstByte: number;
  readonly total: number;
  readonly headers: string;
  readonly body: string;
}

/** One curl through NGINX, headers and body kept (-D -), bounded by --max-time. */
async function curl(http: string, host: string, path: string, headers: string[] = []): Promise<Curl> {
  const args = ['-s', '-D', '-', '--max-time', '20', '-w', '\n%{http_code} %{time_starttransfer} %{time_total}', '-H', `Host: ${host}`];
  for (const header of headers) args.push('-H', header);
  const { stdout } = await run('curl', [...args, `${http}${path}`], { maxBuffer: 1 << 20 });
  const cut = stdout.lastIndexOf('\n');
  const [status, firstByte, total] = stdout.slice(cut + 1).split(' ').map(Number);
  const text = stdout.slice(0, cut);
  const split = text.indexOf('\r\n\r\n');
  return { status: status ?? 0, firstByte: firstByte ?? 0, total: total ?? 0, headers: text.slice(0, split), body: text.slice(split + 4) };
}

/** A GET that reads nothing of the response body for `pauseMs`, then all of it; resolves with the bytes read. */
function slowReader(http: string, host: string, path: string, pauseMs: number): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${http}${path}`, { headers: { host }, agent: false, timeout: 30_000 }, (res) => {
      res.pause();
      let bytes = 0;
      res.on('data', (chunk: Buffer) => { bytes += chunk.length; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
      setTimeout(() => res.resume(), pauseMs);
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end();
  });
}

/** A POST whose chunked body comes in two parts GAP_MS apart; resolves with the backend's report. */
function slowUpload(http: string, host: string): Promise<{ status: number; bodyLength: number; bodyMs: number }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${http}/upload`, { method: 'POST', headers: { host, 'transfer-encoding': 'chunked' }, agent: false, timeout: 20_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        try {
          const reply = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { bodyLength: number; bodyMs: number };
          resolve({ status: res.statusCode ?? 0, ...reply });
        } catch (error) {
          reject(new Error(`status ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8')}`, { cause: error }));
        }
      });
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.write('a'.repeat(1000));
    setTimeout(() => req.end('b'.repeat(1000)), GAP_MS);
  });
}

test('proxy tuning: buffering, request buffering, cookie and redirect rewriting, header buffers', async (t) => {
  const { cluster, controller } = await startStack(t, { controller: { args: ['--configmap', 'default/resty-config'] } });
  const backend = await startBackend(ownAddress(cluster.addressPool));
  t.after(() => backend.close());
  await cluster.apply([
    configMap({}),
    manualServiceManifest('own', [backend]),
    tunedIngress('plain', {}),
    tunedIngress('buffered', { 'proxy-buffering': 'on' }),
    tunedIngress('streamed', { 'proxy-request-buffering': 'off', 'connection-proxy-header': 'close' }),
    tunedIngress('rewritten', {
      'proxy-cookie-path': '/v1/ /app/', 'proxy-cookie-domain': 'backend.internal rewritten.test',
      'proxy-redirect-from': 'http://backend.internal/', 'proxy-redirect-to': 'https://rewritten.test/app/',
    }),
  ].join('---\n'));
  for (const host of ['plain.test', 'buffered.test', 'streamed.test', 'rewritten.test']) {
    await waitForResponse(controller.http, { host, path: '/healthz' }, (r) => r.status === 200);
  }

  await t.test('proxy-buffering: on takes the whole response from the backend while the client waits, off only as fast as the client reads', async (sub) => {
    const pauseMs = 2500;
    const took = async (): Promise<number> => (JSON.parse((await curl(controller.http, 'plain.test', '/big-took')).body) as { ms: number }).ms;
    const buffered = await slowReader(controller.http, 'buffered.test', '/big', pauseMs);
    assert.deepEqual(buffered, { status: 200, bytes: BIG });
    const bufferedMs = await took();
    assert.ok(bufferedMs >= 0 && bufferedMs < pauseMs - 500, `buffered: the backend was done after ${bufferedMs} ms, before the client read`);
    const unbuffered = await slowReader(controller.http, 'plain.test', '/big', pauseMs);
    assert.deepEqual(unbuffered, { status: 200, bytes: BIG });
    const unbufferedMs = await took();
    sub.diagnostic(`backend done after ${bufferedMs} ms buffered, ${unbufferedMs} ms unbuffered (client paused ${pauseMs} ms)`);
    assert.ok(unbufferedMs >= pauseMs - 200, `unbuffered (the default): the backend waited for the client, ${unbufferedMs} ms`);
  });

  await t.test('proxy-request-buffering: on (default) holds the body until complete, off streams it', async () => {
    const held = await slowUpload(controller.http, 'plain.test');
    assert.equal(held.status, 200);
    assert.equal(held.bodyLength, 2000);
    assert.ok(held.bodyMs < 500, `buffered by NGINX: the backend got the body within ${held.bodyMs} ms of the request`);
    const streamed = await slowUpload(controller.http, 'streamed.test');
    assert.equal(streamed.status, 200);
    assert.equal(streamed.bodyLength, 2000);
    assert.ok(streamed.bodyMs >= GAP_MS - 300, `streamed: the body's end came ${streamed.bodyMs} ms after the request`);
  });

  await t.test('proxy-cookie-path and proxy-cookie-domain rewrite Set-Cookie; without them it passes as sent', async () => {
    const rewritten = await curl(controller.http, 'rewritten.test', '/cookie');
    assert.equal(rewritten.status, 200);
    assert.match(rewritten.headers, /^set-cookie: sid=42; Path=\/app\/session; Domain=rewritten\.test; HttpOnly$/imu);
    const plain = await curl(controller.http, 'plain.test', '/cookie');
    assert.match(plain.headers, /^set-cookie: sid=42; Path=\/v1\/session; Domain=backend\.internal; HttpOnly$/imu);
  });

  await t.test('proxy-redirect-from / -to rewrite Location; without them it passes as sent', async () => {
    const rewritten = await curl(controller.http, 'rewritten.test', '/redirect');
    assert.equal(rewritten.status, 302);
    assert.match(rewritten.headers, /^location: https:\/\/rewritten\.test\/app\/next\?step=2$/imu);
    const plain = await curl(controller.http, 'plain.test', '/redirect');
    assert.equal(plain.status, 302);
    assert.match(plain.headers, /^location: http:\/\/backend\.internal\/next\?step=2$/imu);
  });

  await t.test('connection-proxy-header: the backend gets Connection: close; without it, no Connection header (keep-alive)', async () => {
    assert.equal((await curl(controller.http, 'streamed.test', '/connection')).body, 'close');
    assert.equal((await curl(controller.http, 'plain.test', '/connection')).body, '(none)');
  });

  await t.test('large-client-header-buffers: a header or request line past the buffer is refused (400 / 414)', async () => {
    const header = `X-Pad: ${'x'.repeat(3000)}`;
    const longPath = `/?${'q'.repeat(3000)}`;
    assert.equal((await curl(controller.http, 'plain.test', '/', [header])).status, 200, 'the default 4 8k takes a 3 KB header');
    assert.equal((await curl(controller.http, 'plain.test', longPath)).status, 200, 'and a 3 KB request line');
    const logged = controller.logs().length;
    await cluster.apply(configMap({ 'large-client-header-buffers': '4 2k', 'client-header-buffer-size': '1k' }));
    await controller.waitForReload(logged);
    await waitForResponse(controller.http, { host: 'plain.test', path: '/', headers: { 'x-pad': 'x'.repeat(3000) } }, (r) => r.status === 400);
    const refused = await curl(controller.http, 'plain.test', '/', [header]);
    assert.equal(refused.status, 400);
    assert.match(refused.body, /Request Header Or Cookie Too Large/u);
    assert.equal((await curl(controller.http, 'plain.test', longPath)).status, 414);
    assert.equal((await curl(controller.http, 'plain.test', '/', [`X-Pad: ${'x'.repeat(1500)}`])).status, 200, 'a header within 2k still passes');
  });
});
