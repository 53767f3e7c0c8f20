// The http- and main-level ConfigMap keys as rendered (gzip, HTTP/2, workers,
// hash sizes, TLS sessions, log escaping, skipped URIs, the error log's level),
// each nginx.conf checked by the real `nginx -t`; then real NGINX proxying to a
// node:http backend: gzip by Content-Type and size, the access log's
// $namespace/$ingress_name/$service_name/$service_port, and skip-access-log-urls.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, request, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:tls';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import { routeKey } from '../model/route-key.ts';
import type { Backend, GlobalSettings, Location, Model } from '../model/types.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { renderConfig } from './render-config.ts';
import { assertNginxAccepts } from './testdata/golden-check.ts';
import { DEFAULT_SETTINGS, goldenOptions, model, notFound, server } from './testdata/model-fixtures.ts';
import { makePrefix, startNginx } from './testdata/nginx-runner.ts';

// A backend whose namespace, Service and named port hold dashes: $service_port must still be "http".
const SHOP: Backend = {
  name: 'team-a-checkout-api-http', namespace: 'team-a', service: 'checkout-api', port: 'http', endpoints: [],
  loadBalance: 'round_robin', hash: null, affinity: null, routed: true,
};
const shopLocation: Location = {
  path: '/', match: 'prefix', ingress: { namespace: 'team-a', name: 'shop-ingress' }, policy: {},
  route: {
    kind: 'backend', backend: SHOP.name,
    key: routeKey('-', SHOP.name, 'app.example.com', { namespace: 'team-a', name: 'shop-ingress' }, { namespace: 'team-a', service: 'checkout-api', port: 'http' }, '/'),
  },
};

type Changes = { readonly [K in keyof GlobalSettings]?: Partial<GlobalSettings[K]> };
function withSettings(changes: Changes): GlobalSettings {
  const settings: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const [name, change] of Object.entries(changes)) settings[name] = { ...(DEFAULT_SETTINGS as unknown as Record<string, object>)[name], ...change };
  return settings as unknown as GlobalSettings;
}
const site = (changes: Changes): Model => model([server('_', [notFound('/')]), server('app.example.com', [shopLocation])], [SHOP], withSettings(changes));

void describe('http/main ConfigMap keys: rendered, nginx -t', () => {
  const rows: { name: string; changes: Changes; expect: RegExp[]; absent?: RegExp[] }[] = [
    { name: 'defaults: ingress-nginx\'s sizes, HTTP/2 on, no gzip, sessions cached, no tickets', changes: {},
      expect: [/\n {4}variables_hash_bucket_size 256;\n {4}variables_hash_max_size 2048;\n {4}map_hash_bucket_size 64;\n/u,
        /\n {4}http2_max_concurrent_streams 128;\n/u, /\n {4}http2 on;\n/u, /\nworker_processes 1;\n/u, /\n {4}worker_connections 16384;\n/u,
        /\nworker_shutdown_timeout 240s;\n/u, /\nerror_log "[^"]+" "notice";\n/u,
        /\n {4}ssl_session_cache "shared:SSL:10m";\n {4}ssl_session_timeout "10m";\n/u, /\n {4}ssl_session_tickets off;\n {4}ssl_buffer_size "4k";\n {4}ssl_ecdh_curve "auto";\n/u],
      absent: [/gzip/u, /ssl_early_data/u, /resty_loggable/u, /upstreaminfo escape=/u, /map \$resty_route/u, /uninitialized_variable_warn/u] },
    { name: 'a log format reading $service_port (braced): the four maps, and no warning for 404s', changes: { accessLog: { format: '$status ${service_port}' } },
      expect: [/\n {4}map \$resty_route \$namespace \{\n/u, /\n {4}map \$resty_route \$service_port \{\n/u, /\n {4}uninitialized_variable_warn off;\n/u] },
    { name: 'a variable that only starts like one of them prints no maps', changes: { accessLog: { format: '$status $http_namespace_x' } },
      expect: [/\$http_namespace_x/u], absent: [/map \$resty_route/u] },
    { name: 'use-gzip with its keys: ingress-nginx\'s lines', changes: { gzip: { enabled: true, level: 6, minLength: 100, types: ['application/json', 'text/plain'], disable: 'msie6' } },
      expect: [/\n {4}gzip on;\n {4}gzip_comp_level 6;\n {4}gzip_disable "msie6";\n {4}gzip_http_version 1\.1;\n {4}gzip_min_length 100;\n {4}gzip_types "application\/json" "text\/plain";\n {4}gzip_proxied any;\n {4}gzip_vary on;\n/u] },
    { name: 'use-http2 false: off at http level, the fallback servers keep it', changes: { http2: { enabled: false, maxConcurrentStreams: 32 } },
      expect: [/\n {4}http2 off;\n/u, /\n {4}http2_max_concurrent_streams 32;\n/u, /unavailable\.sock";\n {8}http2 on;\n/u, /https-redirect\.sock";\n {8}http2 on;\n/u] },
    { name: 'workers and the error log\'s level over the options', changes: { workers: { processes: 3, connections: 2048, shutdownTimeout: 15 }, accessLog: { errorLogLevel: 'warn' } },
      expect: [/\nworker_processes 3;\n/u, /\n {4}worker_connections 2048;\n/u, /\nworker_shutdown_timeout 15s;\n/u, /\nerror_log "[^"]+" "warn";\n/u] },
    { name: 'worker-processes auto leaves the command line\'s count', changes: { workers: { processes: 'auto' } }, expect: [/\nworker_processes 1;\n/u] },
    { name: 'hash sizes below NGINX\'s own are raised, server names never below what the hosts need',
      changes: { hashSizes: { variablesBucketSize: 1, variablesMaxSize: 1, mapBucketSize: 1, serverNamesBucketSize: 1, serverNamesMaxSize: 1 } },
      expect: [/\n {4}variables_hash_bucket_size 64;\n {4}variables_hash_max_size 1024;\n {4}map_hash_bucket_size 64;\n/u, /\n {4}server_names_hash_max_size 1024;\n {4}server_names_hash_bucket_size 128;\n/u] },
    { name: 'hash sizes above: as given', changes: { hashSizes: { variablesBucketSize: 512, variablesMaxSize: 8192, mapBucketSize: 256, serverNamesBucketSize: 512, serverNamesMaxSize: 4096 } },
      expect: [/\n {4}variables_hash_bucket_size 512;\n {4}variables_hash_max_size 8192;\n {4}map_hash_bucket_size 256;\n/u, /\n {4}server_names_hash_max_size 4096;\n {4}server_names_hash_bucket_size 512;\n/u] },
    { name: 'TLS sessions: cache off, tickets, buffer, curves, early data',
      changes: { tlsSession: { cache: false, tickets: true, bufferSize: '16k', ecdhCurve: 'X25519:prime256v1', earlyData: true } },
      expect: [/\n {4}ssl_session_tickets on;\n {4}ssl_buffer_size "16k";\n {4}ssl_ecdh_curve "X25519:prime256v1";\n {4}ssl_early_data on;\n/u], absent: [/ssl_session_cache/u, /ssl_session_timeout/u] },
    { name: 'a long whole-string block-user-agents key: the map bucket grows to hold it (else nginx -t fails: found by the render property test)',
      changes: { accessControl: { ...DEFAULT_SETTINGS.accessControl, blockUserAgents: [{ kind: 'exact', value: `bot-${'x'.repeat(200)}` }] } },
      expect: [/\n {4}map_hash_bucket_size 256;\n/u] },
    { name: 'a long skip-access-log-urls URI: the same', changes: { accessLog: { skipUrls: [`/${'p'.repeat(100)}`] } }, expect: [/\n {4}map_hash_bucket_size 128;\n/u] },
    { name: 'log-format-escape-none wins over -json', changes: { accessLog: { escapeJson: true, escapeNone: true } }, expect: [/log_format upstreaminfo escape=none '/u] },
    { name: 'log-format-escape-json alone', changes: { accessLog: { escapeJson: true } }, expect: [/log_format upstreaminfo escape=json '/u] },
    { name: 'skip-access-log-urls: a map, and if= on every upstreaminfo log', changes: { accessLog: { skipUrls: ['/healthz', '/ping?probe=1'] } },
      expect: [/\n {4}map \$request_uri \$resty_loggable \{\n {8}"\/healthz" 0;\n {8}"\/ping\?probe=1" 0;\n {8}default 1;\n {4}\}\n/u],
      absent: [/upstreaminfo;/u] },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const { conf } = renderConfig(site(row.changes), goldenOptions());
      for (const pattern of row.expect) assert.match(conf, pattern);
      for (const pattern of row.absent ?? []) assert.doesNotMatch(conf, pattern);
      await assertNginxAccepts(conf);
    });
  }
});

interface Answer { readonly status: number; readonly headers: Record<string, string | string[] | undefined>; readonly body: Buffer }

function get(port: number, host: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path, headers: { host, ...headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The backend: /<size>.<ext> answers `size` bytes of the extension's type. */
function startBackend(): Promise<HttpServer> {
  const types: Record<string, string> = { txt: 'text/plain', json: 'application/json', bin: 'application/octet-stream', html: 'text/html' };
  const backendServer = createServer((req, res) => {
    const match = /^\/(\d+)\.(\w+)$/u.exec(req.url ?? '');
    if (!match) return void res.end('ok');
    res.setHeader('content-type', types[match[2]!] ?? 'text/plain');
    res.end('a'.repeat(Number(match[1])));
  });
  return new Promise((ready) => backendServer.listen(0, '127.0.0.1', () => ready(backendServer)));
}

void describe('http/main ConfigMap keys: real NGINX', () => {
  let backendServer: HttpServer | undefined;
  after(() => { backendServer?.closeAllConnections(); backendServer?.close(); });

  void it('gzip by type and size, the per-location log variables, skipped URIs', async () => {
    backendServer = await startBackend();
    const [httpPort, statusPort, httpsPort] = [await freePort(), await freePort(), await freePort()];
    const dataplane = findDataplane();
    const prefix = makePrefix();
    const settings: Changes = {
      gzip: { enabled: true, minLength: 100, types: ['application/json', 'text/plain'] },
      accessLog: { format: '$namespace|$ingress_name|$service_name|$service_port|$request_uri|$status', skipUrls: ['/healthz'] },
    };
    const { conf } = renderConfig(site(settings), { ...goldenOptions(dataplane, prefix), httpPort, httpsPort, statusPort });
    const nginx = await startNginx(dataplane, prefix, conf, `http://127.0.0.1:${statusPort}/healthz`);
    try {
      const endpoint = { address: '127.0.0.1', port: (backendServer.address() as AddressInfo).port };
      const push = await fetch(`http://127.0.0.1:${statusPort}/configuration/backends`, {
        method: 'POST', body: JSON.stringify([{ name: SHOP.name, endpoints: [endpoint], loadBalance: 'round_robin' }]),
      });
      assert.equal(push.status, 201);
      let probe = await get(httpPort, 'app.example.com', '/healthz');
      for (let i = 0; i < 40 && probe.status !== 200; i++) {
        await sleep(25); // workers pick the push up within ~10 ms
        probe = await get(httpPort, 'app.example.com', '/healthz');
      }
      assert.equal(probe.status, 200);

      const gz = { 'accept-encoding': 'gzip' };
      const cases: { path: string; headers: Record<string, string>; gzip: boolean }[] = [
        { path: '/1000.txt', headers: gz, gzip: true },
        { path: '/1000.json', headers: gz, gzip: true },
        { path: '/1000.html', headers: gz, gzip: true }, // text/html is always in gzip_types
        { path: '/1000.bin', headers: gz, gzip: false }, // not a listed type
        { path: '/50.txt', headers: gz, gzip: false }, // under gzip-min-length
        { path: '/1000.txt', headers: {}, gzip: false }, // the client did not ask
      ];
      for (const row of cases) {
        const answer = await get(httpPort, 'app.example.com', row.path, row.headers);
        const label = `${row.path} ${JSON.stringify(row.headers)}`;
        assert.equal(answer.status, 200, label);
        assert.equal(answer.headers['content-encoding'], row.gzip ? 'gzip' : undefined, label);
        if (row.gzip) assert.match(String(answer.headers.vary), /Accept-Encoding/u, label);
      }
      assert.equal((await get(httpPort, 'unknown.example.com', '/nowhere')).status, 404);

      let lines: string[] = [];
      for (let i = 0; i < 40; i++) {
        lines = readFileSync(join(prefix, 'access.log'), 'utf8').split('\n').filter((line) => line !== '');
        if (lines.some((line) => line.includes('/nowhere'))) break;
        await sleep(25);
      }
      assert.ok(lines.includes('team-a|shop-ingress|checkout-api|http|/1000.json|200'), lines.join('\n'));
      assert.equal(lines.filter((line) => line.startsWith('team-a|shop-ingress|checkout-api|http|/1000.txt|200')).length, 2, lines.join('\n'));
      // No Ingress path served it: empty values, as ingress-nginx's `set $namespace ""` there logs them.
      assert.ok(lines.includes('||||/nowhere|404'), lines.join('\n'));
      assert.deepEqual(lines.filter((line) => line.includes('/healthz')), [], 'skip-access-log-urls');
      assert.doesNotMatch(nginx.errorLog(), /\[(error|crit|alert|emerg)\]|uninitialized/u);
    } finally {
      await nginx.stop();
    }
  });
});

/** Whether a TLS handshake with `servername` (none: no SNI) completes. */
function handshake(port: number, servername: string | null): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...(servername === null ? {} : { servername }) });
    socket.setTimeout(5000, () => { socket.destroy(); resolve(false); });
    socket.once('secureConnect', () => { socket.end(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

void describe('ssl-reject-handshake: real NGINX', () => {
  for (const reject of [false, true]) {
    void it(`${reject}: a host no Ingress serves, and no SNI, ${reject ? 'are refused' : 'get the catch-all'}; an Ingress host is served`, async () => {
      const [httpPort, statusPort, httpsPort] = [await freePort(), await freePort(), await freePort()];
      const dataplane = findDataplane();
      const prefix = makePrefix();
      const { conf } = renderConfig(site({ tlsSession: { rejectHandshake: reject } }), { ...goldenOptions(dataplane, prefix), httpPort, httpsPort, statusPort });
      assert.equal(conf.includes('ssl_reject_handshake on;'), reject);
      const nginx = await startNginx(dataplane, prefix, conf, `http://127.0.0.1:${statusPort}/healthz`);
      try {
        assert.equal(await handshake(httpsPort, 'app.example.com'), true);
        assert.equal(await handshake(httpsPort, 'unknown.example.com'), !reject);
        assert.equal(await handshake(httpsPort, null), !reject);
        assert.doesNotMatch(nginx.errorLog(), /\[(error|crit|alert|emerg)\]/u);
      } finally {
        await nginx.stop();
      }
    });
  }
});
