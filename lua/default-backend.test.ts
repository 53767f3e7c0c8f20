// default_backend.lua inside real NGINX, wired as the templates render it
// (features/custom-errors.njk, custom-errors-server.njk): a location with a
// default-backend sends its requests there, with X-Code 503 and ingress-nginx's
// headers, only while its own backend has no endpoints (a push, never a
// reload); an intercepted status goes to the error backend's named location
// with X-Code, X-Original-URI and the failed route's labels, as "/". The
// backends echo what they received.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { assertCleanErrorLog, startLuaNginx, waitAllWorkersApplied, type LuaNginx } from './test/lua-fixture.ts';
import { freePort } from './test/nginx-harness.ts';

interface Echo { readonly address: string; readonly port: number; readonly server: Server }
interface Seen { status: number; name: string; url: string; headers: IncomingHttpHeaders; route: string | null }

/** A backend that answers JSON {name, url, headers}; a path ending in /missing answers 404. */
async function echoBackend(name: string, address: string): Promise<Echo> {
  const server = createServer((req, res) => {
    res.statusCode = req.url?.split('?')[0]?.endsWith('/missing') === true ? 404 : 200;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ name, url: req.url, headers: req.headers }));
  });
  await new Promise<void>((done) => server.listen(0, address, done));
  return { address, port: (server.address() as AddressInfo).port, server };
}

const APP_ROUTE = 'x ns-app-80 app.test ns ing app /app';

function servers(port: number): string {
  return `
    map $request_id $req_id { default $request_id; }
    server {
      listen 127.0.0.1:${port};
      location /app {
        set $proxy_upstream_name "ns-app-80";
        set $resty_route "${APP_ROUTE}";
        rewrite_by_lua_block { resty_ingress.default_backend("ns-errors-8080") }
        proxy_intercept_errors on;
        error_page 404 = @custom_ns-errors-8080_404;
        add_header X-Resty-Route $resty_route always;
        proxy_pass http://upstream_balancer;
      }
      location = /gone {
        error_page 404 = @custom_ns-errors-8080_404;
        return 404;
      }
      location /alone {
        set $resty_route "- ns-app-80 app.test ns ing app /alone";
        proxy_intercept_errors on;
        error_page 404 = @custom_ns-alone-80_404;
        proxy_pass http://upstream_balancer;
      }
      location @custom_ns-alone-80_404 {
        internal;
        rewrite_by_lua_block { resty_ingress.error_page(404, "ns-alone-80") }
        rewrite (.*) / break;
        proxy_pass http://upstream_balancer;
      }
      location @custom_ns-errors-8080_404 {
        internal;
        proxy_intercept_errors off;
        set $proxy_upstream_name "ns-errors-8080";
        rewrite_by_lua_block { resty_ingress.error_page(404, "ns-errors-8080", "ns-global-80") }
        rewrite (.*) / break;
        add_header X-Resty-Route $resty_route always;
        proxy_pass http://upstream_balancer;
      }
    }`;
}

void describe('default backend and custom error pages (Lua)', () => {
  let fixture: LuaNginx;
  let port: number;
  let app: Echo;
  let errors: Echo;
  let global: Echo;
  before(async () => {
    app = await echoBackend('app', '127.0.0.2');
    errors = await echoBackend('errors', '127.0.0.3');
    global = await echoBackend('global', '127.0.0.4');
    port = await freePort();
    fixture = await startLuaNginx(servers(port));
  });
  after(async () => {
    await fixture?.nginx.stop();
    for (const echo of [app, errors, global]) echo?.server.closeAllConnections();
    await Promise.all([app, errors, global].map((echo) => new Promise((done) => echo?.server.close(done))));
  });

  async function push(backends: Record<string, Echo[] | null>): Promise<void> {
    const body = Object.entries(backends).filter(([, echoes]) => echoes !== null).map(([name, echoes]) => ({
      name, loadBalance: 'round_robin', endpoints: (echoes ?? []).map((echo) => ({ address: echo.address, port: echo.port })),
    }));
    const res = await fetch(`${fixture.statusUrl}/configuration/backends`, { method: 'POST', body: JSON.stringify(body) });
    assert.equal(res.status, 201, await res.text());
    await waitAllWorkersApplied(fixture);
  }

  async function get(path: string, headers: Record<string, string> = {}): Promise<Seen> {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { host: 'app.test', accept: 'text/html', ...headers } });
    const text = await res.text();
    const parsed = res.headers.get('content-type') === 'application/json' ? JSON.parse(text) as Omit<Seen, 'status' | 'route'> : { name: text, url: '', headers: {} };
    return { status: res.status, ...parsed, route: res.headers.get('x-resty-route') };
  }

  const ERROR_HEADERS = ['x-code', 'x-format', 'x-original-uri', 'x-namespace', 'x-ingress-name', 'x-service-name', 'x-service-port', 'x-request-id'];
  function errorHeaders(seen: Seen): Record<string, string | undefined> {
    return Object.fromEntries(ERROR_HEADERS.map((name) => [name, seen.headers[name] as string | undefined]));
  }

  const fallbackRows: { name: string; app: () => Echo[] | null; errors: () => Echo[] | null; want: { status: number; name: string } }[] = [
    { name: 'the app has endpoints: the app answers', app: () => [app], errors: () => [errors], want: { status: 200, name: 'app' } },
    { name: 'the app has none: the default backend answers', app: () => [], errors: () => [errors], want: { status: 200, name: 'errors' } },
    { name: 'the app is unknown to Lua (Service missing): the default backend answers', app: () => null, errors: () => [errors], want: { status: 200, name: 'errors' } },
    { name: 'neither has endpoints: 503', app: () => [], errors: () => [], want: { status: 503, name: '' } },
    { name: 'the default backend is unknown: 503', app: () => [], errors: () => null, want: { status: 503, name: '' } },
  ];
  for (const row of fallbackRows) {
    void it(row.name, async () => {
      await push({ 'ns-app-80': row.app(), 'ns-errors-8080': row.errors() });
      const seen = await get('/app/page?x=1');
      assert.equal(seen.status, row.want.status);
      if (row.want.status === 200) assert.equal(seen.name, row.want.name);
      assertCleanErrorLog(fixture);
    });
  }

  void it('the fallback sends the client\'s URI with X-Code 503 and the route\'s labels, and routes by the default backend', async () => {
    await push({ 'ns-app-80': [], 'ns-errors-8080': [errors] });
    const seen = await get('/app/page?x=1', { 'x-code': 'forged', 'x-original-uri': '/kept' });
    assert.equal(seen.url, '/app/page?x=1');
    const headers = errorHeaders(seen);
    assert.match(headers['x-request-id'] ?? '', /^[0-9a-f]{32}$/u);
    assert.deepEqual({ ...headers, 'x-request-id': 'id' }, {
      'x-code': '503', 'x-format': 'text/html', 'x-original-uri': '/kept', 'x-namespace': 'ns', 'x-ingress-name': 'ing',
      'x-service-name': 'app', 'x-service-port': '80', 'x-request-id': 'id',
    });
    assert.equal(seen.route, 'x ns-errors-8080 app.test ns ing app /app', 'flags and labels kept, the backend word replaced');
    assertCleanErrorLog(fixture);
  });

  void it('the app regains an endpoint: it answers again, without the error headers', async () => {
    await push({ 'ns-app-80': [], 'ns-errors-8080': [errors] });
    assert.equal((await get('/app/page')).name, 'errors');
    await push({ 'ns-app-80': [app], 'ns-errors-8080': [errors] });
    const seen = await get('/app/page', { 'x-code': 'from-client' });
    assert.equal(seen.name, 'app');
    assert.equal(seen.headers['x-code'], 'from-client', 'nothing set on a request that is not an error');
    assert.equal(seen.route, APP_ROUTE);
    assertCleanErrorLog(fixture);
  });

  void it('an intercepted 404 goes to the error backend as "/" (the query kept) with every header', async () => {
    await push({ 'ns-app-80': [app], 'ns-errors-8080': [errors] });
    const seen = await get('/app/missing?q=1', { 'x-namespace': 'forged' });
    assert.equal(seen.status, 200, 'the error backend\'s status');
    assert.equal(seen.name, 'errors');
    assert.equal(seen.url, '/?q=1', 'rewrite (.*) / break keeps the query string, as in ingress-nginx');
    const headers = errorHeaders(seen);
    assert.match(headers['x-request-id'] ?? '', /^[0-9a-f]{32}$/u);
    assert.deepEqual({ ...headers, 'x-request-id': 'id' }, {
      'x-code': '404', 'x-format': 'text/html', 'x-original-uri': '/app/missing?q=1', 'x-namespace': 'ns', 'x-ingress-name': 'ing',
      'x-service-name': 'app', 'x-service-port': '80', 'x-request-id': 'id',
    });
    assert.equal(seen.route, '- ns-errors-8080 app.test ns ing app /app');
    assertCleanErrorLog(fixture);
  });

  void it('a 404 NGINX answers itself (no route): the error backend gets no labels', async () => {
    await push({ 'ns-app-80': [app], 'ns-errors-8080': [errors] });
    const seen = await get('/gone', { 'x-service-name': 'forged' });
    assert.equal(seen.name, 'errors');
    const headers = errorHeaders(seen);
    assert.deepEqual({ ...headers, 'x-request-id': 'id' }, {
      'x-code': '404', 'x-format': 'text/html', 'x-original-uri': '/gone', 'x-namespace': undefined, 'x-ingress-name': undefined,
      'x-service-name': undefined, 'x-service-port': undefined, 'x-request-id': 'id',
    });
    assert.equal(seen.route, '- ns-errors-8080 _ - - - -');
    // Reading $resty_route where no `set` ran is NGINX's [warn], not an error.
    assertCleanErrorLog(fixture);
  });

  // ingress-nginx uses a default-backend for errors only while it has endpoints, else the global
  // default backend, else its built-in one (404).
  const pageRows: { name: string; path: string; errors: () => Echo[] | null; global: () => Echo[] | null; want: string | 404 }[] = [
    { name: 'the error backend has endpoints: it answers', path: '/app/missing', errors: () => [errors], global: () => [global], want: 'errors' },
    { name: 'it has none: the global default backend answers', path: '/app/missing', errors: () => [], global: () => [global], want: 'global' },
    { name: 'it is unknown: the global default backend answers', path: '/app/missing', errors: () => null, global: () => [global], want: 'global' },
    { name: 'neither has endpoints: NGINX answers 404', path: '/app/missing', errors: () => [], global: () => [], want: 404 },
    { name: 'no global default backend and none of its own: 404', path: '/alone/missing', errors: () => [errors], global: () => [global], want: 404 },
  ];
  for (const row of pageRows) {
    void it(`error page: ${row.name}`, async () => {
      await push({ 'ns-app-80': [app], 'ns-errors-8080': row.errors(), 'ns-global-80': row.global() });
      const seen = await get(row.path);
      if (row.want === 404) {
        assert.deepEqual([seen.status, seen.headers], [404, {}], 'NGINX\'s own 404 page');
      } else {
        assert.deepEqual([seen.status, seen.name, seen.headers['x-code'], seen.headers['x-service-name']], [200, row.want, '404', 'app']);
        assert.equal(seen.route, `- ns-${row.want}-${row.want === 'errors' ? 8080 : 80} app.test ns ing app /app`);
      }
      assertCleanErrorLog(fixture);
    });
  }
});
