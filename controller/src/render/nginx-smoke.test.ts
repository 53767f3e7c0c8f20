// Starts a rendered nginx.conf in the real data-plane NGINX (temp prefix,
// 127.0.0.1, free ports) and checks the status server and the routing that
// needs no backend: the controller relies on /config-version and /healthz;
// and that only NGINX's workers reach the fallback servers' unix sockets.
// Fails (never skips) without the runtime: the test command runs setup first.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { createServer, get as httpGet, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import { connectAs, STRANGER, uidOf } from '../../../lua/test/socket-access.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { renderConfig, type RenderedConfig } from './render-config.ts';
import { fallbackSocketPaths } from './render-options.ts';
import { backend, goldenOptions, model, notFound, proxied, server } from './testdata/model-fixtures.ts';
import { makePrefix, startNginx, type RunningNginx } from './testdata/nginx-runner.ts';

const AS_ROOT = process.geteuid?.() === 0;

/** GET through node:http: fetch() refuses to set a Host header, and routing is by host. */
function get(url: string, host?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = host === undefined ? {} : { host };
    const request = httpGet(url, { headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    request.on('error', reject);
  });
}

void describe('rendered nginx.conf in real NGINX', () => {
  const web = backend('default-web-80');
  const site = model(
    [
      server('_', [notFound('/')]),
      server('app.example.com', [
        proxied('/', 'prefix', web.name),
        notFound('/gone'),
        proxied('/api(/|$)(.*)', 'regex', web.name, { policy: { rewrite: { target: '/v2/$2', useRegex: false } } }),
      ]),
      // Path matching as ingress-nginx users rely on it: here 503 = the proxied
      // location (no endpoints yet), 404 = a not-found location.
      server('match.example.com', [
        notFound('/'),
        proxied('/foo', 'exact', web.name),
        notFound('/foo', 'prefix'),
        proxied('/bar', 'prefix', web.name),
      ]),
    ],
    [web],
  );
  let nginx: RunningNginx;
  let rendered: RenderedConfig;
  let httpPort: number;
  let statusPort: number;
  let echo: HttpServer;

  before(async () => {
    httpPort = await freePort();
    statusPort = await freePort();
    const dataplane = findDataplane();
    const prefix = makePrefix();
    const httpsPort = await freePort();
    rendered = renderConfig(site, { ...goldenOptions(dataplane, prefix), httpPort, httpsPort, statusPort, workerProcesses: 2 });
    nginx = await startNginx(dataplane, prefix, rendered.conf, `http://127.0.0.1:${statusPort}/healthz`);
  });

  after(async () => {
    await nginx?.stop();
    echo?.closeAllConnections();
    echo?.close();
  });

  void it('answers its rendered version on /config-version', async () => {
    assert.deepEqual(await get(`http://127.0.0.1:${statusPort}/config-version`), { status: 200, body: rendered.version });
  });

  void it('answers ok on /healthz', async () => {
    assert.deepEqual(await get(`http://127.0.0.1:${statusPort}/healthz`), { status: 200, body: 'ok' });
  });

  const routes: [name: string, host: string, path: string, status: number][] = [
    ['unknown host → catch-all 404', 'unknown.example.com', '/', 404],
    ['not-found location → 404', 'app.example.com', '/gone', 404],
    ['backend without endpoints → 503 from Lua', 'app.example.com', '/', 503],
    ['Exact beats Prefix for the same path', 'match.example.com', '/foo', 503],
    ['the Prefix of the same path takes what is below it', 'match.example.com', '/foo/x', 404],
    ['Prefix /bar matches /bar', 'match.example.com', '/bar', 503],
    ['Prefix /bar matches /bar/', 'match.example.com', '/bar/', 503],
    ['Prefix /bar matches /bar/x', 'match.example.com', '/bar/x', 503],
    ['Prefix /bar does not match /barx', 'match.example.com', '/barx', 404],
  ];
  for (const [name, host, path, status] of routes) {
    void it(name, async () => {
      const res = await get(`http://127.0.0.1:${httpPort}${path}`, host);
      assert.equal(res.status, status, res.body);
    });
  }

  void it('proxies to a pushed endpoint with rewrite-target and forwarded headers', async () => {
    // The echo backend answers what it received, so the test sees the upstream request.
    echo = createServer((req, res) => res.end(JSON.stringify({ url: req.url, headers: req.headers })));
    await new Promise<void>((ready) => echo.listen(0, '127.0.0.1', ready));
    const endpoint = { address: '127.0.0.1', port: (echo.address() as AddressInfo).port };
    const push = await fetch(`http://127.0.0.1:${statusPort}/configuration/backends`, {
      method: 'POST',
      body: JSON.stringify([{ name: web.name, endpoints: [endpoint], loadBalance: 'round_robin' }]),
    });
    assert.equal(push.status, 201, await push.text());
    let res = await get(`http://127.0.0.1:${httpPort}/API/items?x=1`, 'app.example.com');
    // Workers pick the push up within ~10 ms; allow a few polls.
    for (let i = 0; i < 40 && res.status === 503; i++) {
      await sleep(25);
      res = await get(`http://127.0.0.1:${httpPort}/API/items?x=1`, 'app.example.com');
    }
    assert.equal(res.status, 200, res.body);
    const seen = JSON.parse(res.body) as { url: string; headers: Record<string, string> };
    assert.equal(seen.url, '/v2/items?x=1', 'rewrite-target, case-insensitive, keeps the query');
    assert.equal(seen.headers.host, 'app.example.com');
    assert.equal(seen.headers['x-forwarded-host'], 'app.example.com');
    assert.equal(seen.headers['x-forwarded-proto'], 'http');
    assert.equal(seen.headers['x-forwarded-port'], String(httpPort));
    assert.equal(seen.headers['x-real-ip'], '127.0.0.1');
    assert.equal(seen.headers['x-forwarded-for'], '127.0.0.1');
    assert.equal(seen.headers.connection, undefined, 'no "Connection: close", so upstream keepalive works');
  });

  void it('keeps the fallback sockets to its workers: in a 0700 directory of theirs', async () => {
    // The 503 rows above went through the unavailable socket: the workers reach it.
    const dir = fallbackSocketPaths(nginx.prefix).dir;
    const info = statSync(dir);
    assert.equal((info.mode & 0o7777).toString(8), '700', `mode of ${dir}`);
    assert.equal(info.uid, AS_ROOT ? uidOf('nobody') : process.getuid?.(), `owner of ${dir}: the workers' user`);
    for (const socket of [fallbackSocketPaths(nginx.prefix).unavailable, fallbackSocketPaths(nginx.prefix).httpsRedirect]) {
      assert.ok(statSync(socket).isSocket(), `${socket} exists`);
      if (AS_ROOT) assert.equal(await connectAs(STRANGER, socket), 'EACCES', `another user connects to ${socket}`);
    }
  });

  void it('writes its files inside the prefix and logs no [error]', () => {
    for (const file of ['nginx.pid', 'error.log', 'access.log', 'client_body_temp', 'proxy_temp']) {
      assert.ok(existsSync(join(nginx.prefix, file)), `${file} not in the prefix`);
    }
    const serious = nginx.errorLog().split('\n').filter((line) => /\[(error|alert|crit|emerg)\]/u.test(line));
    assert.deepEqual(serious, []);
  });
});
