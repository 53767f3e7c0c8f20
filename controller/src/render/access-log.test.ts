// The access log as the ConfigMap shapes it (log-format-upstream,
// log-format-escape-json, disable-access-log): rendered text, `nginx -t` for
// every variable the model's allow-list offers, and real NGINX writing a line
// in the configured format for a proxied request. The allow-list lives in the
// model; importing it here is what proves it matches the runtime.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, request, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import { DEFAULT_LOG_FORMAT, LOG_FORMAT_VARIABLE_PREFIXES, LOG_FORMAT_VARIABLES, MAX_LOG_FORMAT_LENGTH } from '../model/log-format.ts';
import type { AccessLogSettings, Model } from '../model/types.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { RenderError } from './nginx-values.ts';
import { renderConfig } from './render-config.ts';
import { assertNginxAccepts } from './testdata/golden-check.ts';
import { backend, DEFAULT_SETTINGS, goldenOptions, model, notFound, proxied, server } from './testdata/model-fixtures.ts';
import { makePrefix, startNginx } from './testdata/nginx-runner.ts';

const web = backend('default-web-80');
const site = (accessLog: AccessLogSettings): Model =>
  model([server('_', [notFound('/')]), server('app.example.com', [proxied('/', 'prefix', web.name)])], [web], { ...DEFAULT_SETTINGS, accessLog });

const JSON_FORMAT = '{"status": $status, "method": "$request_method", "uri": "$uri", "upstream": "$proxy_upstream_name", '
  + '"upstream_addr": "$upstream_addr", "req_id": "$req_id", "alternative": "$proxy_alternative_upstream_name", "ua": "$http_user_agent"}';

void describe('access log: rendered', () => {
  const rows: { name: string; accessLog: AccessLogSettings; requestMetrics?: boolean; expect: RegExp; absent?: RegExp }[] = [
    { name: 'default: ingress-nginx\'s upstreaminfo into the prefix', accessLog: { enabled: true, format: DEFAULT_LOG_FORMAT, escapeJson: false },
      expect: /log_format upstreaminfo '\$remote_addr - .* \$req_id';\n\s+access_log "\/golden\/prefix\/access.log" upstreaminfo;/ },
    { name: 'log-format-escape-json adds escape=json', accessLog: { enabled: true, format: JSON_FORMAT, escapeJson: true },
      expect: /log_format upstreaminfo escape=json '\{"status": \$status, /u },
    // The model's bound (MAX_LOG_FORMAT_LENGTH) is the longest token NGINX reads.
    { name: 'the longest format the model accepts', accessLog: { enabled: true, format: `${'x'.repeat(MAX_LOG_FORMAT_LENGTH - 8)} $status`, escapeJson: false },
      expect: /log_format upstreaminfo 'x{4086} \$status';/u },
    // The metrics log stays: it is the controller's, not the user's access log.
    { name: 'disable-access-log turns it off', accessLog: { enabled: false, format: DEFAULT_LOG_FORMAT, escapeJson: false },
      expect: /\n {4}access_log off;\n[\s\S]*\n {8}access_log "\/golden\/prefix\/metrics.log" resty_metrics buffer=64k flush=1s;\n/u,
      absent: /access_log "\/golden\/prefix\/access.log"/ },
    // Without any access_log NGINX would write its default logs/access.log (outside what the controller manages).
    { name: 'disable-access-log with request metrics off: no log at all', accessLog: { enabled: false, format: DEFAULT_LOG_FORMAT, escapeJson: false },
      requestMetrics: false, expect: /\n {4}access_log off;\n/u, absent: /access_log "/u },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const { conf } = renderConfig(site(row.accessLog), { ...goldenOptions(), requestMetrics: row.requestMetrics ?? true });
      assert.match(conf, row.expect);
      if (row.absent) assert.doesNotMatch(conf, row.absent);
      await assertNginxAccepts(conf);
    });
  }

  void it('render refuses a format that would leave its quotes, even if the model let it through', () => {
    const smuggled = site({ enabled: true, format: "$status'; error_log /tmp/x; '", escapeJson: false });
    assert.throws(() => renderConfig(smuggled, goldenOptions()), (error: unknown) => error instanceof RenderError && error.code === 'UnsafeValue');
  });

  void it('nginx -t knows every variable the allow-list offers (names and prefix families)', async () => {
    const names = [...LOG_FORMAT_VARIABLES, ...LOG_FORMAT_VARIABLE_PREFIXES.map((prefix) => `${prefix}x`)];
    const format = names.map((name) => `${name}=$${name}`).join(' ');
    await assertNginxAccepts(renderConfig(site({ enabled: true, format, escapeJson: true }), goldenOptions()).conf);
  });
});

/** GET through node:http (fetch() cannot set Host). */
function get(port: number, host: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path: '/items?page=2', headers: { host, ...headers }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

void describe('access log: real NGINX writes the configured format', () => {
  let echo: HttpServer;
  after(() => { echo?.closeAllConnections(); echo?.close(); });

  // check: the proxied request's line; checkUnrouted: the line of a request no location proxies (404).
  const rows: { name: string; accessLog: AccessLogSettings; check: (line: string, upstream: string) => void; checkUnrouted: (line: string) => void }[] = [
    {
      name: 'JSON with escape=json: one parseable object per request, quotes in headers escaped',
      accessLog: { enabled: true, format: JSON_FORMAT, escapeJson: true },
      check: (line, upstream) => {
        const entry = JSON.parse(line) as Record<string, unknown>;
        assert.deepEqual({ ...entry, req_id: typeof entry.req_id }, {
          status: 200, method: 'GET', uri: '/items', upstream: web.name, upstream_addr: upstream,
          req_id: 'string', alternative: '', ua: 'probe "quoted"',
        });
        assert.match(String(entry.req_id), /^[0-9a-f]{32}$/u, '$req_id is $request_id');
      },
      checkUnrouted: (line) => assert.deepEqual((({ status, upstream, upstream_addr }) => ({ status, upstream, upstream_addr }))(JSON.parse(line) as Record<string, unknown>),
        { status: 404, upstream: '-', upstream_addr: '' }),
    },
    {
      name: "the default: ingress-nginx's upstreaminfo field order",
      accessLog: { enabled: true, format: DEFAULT_LOG_FORMAT, escapeJson: false },
      check: (line, upstream) => {
        const pattern = new RegExp(`^127\\.0\\.0\\.1 - - \\[[^\\]]+\\] "GET /items\\?page=2 HTTP/1\\.1" 200 \\d+ "-" "probe \\\\x22quoted\\\\x22" `
          + `\\d+ [\\d.]+ \\[${web.name}\\] \\[\\] ${upstream.replace(/\./gu, '\\.')} \\d+ [\\d.]+ 200 [0-9a-f]{32}$`, 'u');
        assert.match(line, pattern);
      },
      checkUnrouted: (line) => assert.match(line, /"GET \/items\?page=2 HTTP\/1\.1" 404 \d+ "-" "probe" \d+ [\d.]+ \[-\] \[\] - - - - [0-9a-f]{32}$/u),
    },
  ];

  for (const row of rows) {
    void it(row.name, async () => {
      echo ??= createServer((_req, res) => res.end('ok'));
      if (!echo.listening) await new Promise<void>((ready) => echo.listen(0, '127.0.0.1', ready));
      const upstream = `127.0.0.1:${(echo.address() as AddressInfo).port}`;
      const [httpPort, statusPort, httpsPort] = [await freePort(), await freePort(), await freePort()];
      const dataplane = findDataplane();
      const prefix = makePrefix();
      const { conf } = renderConfig(site(row.accessLog), { ...goldenOptions(dataplane, prefix), httpPort, httpsPort, statusPort });
      const nginx = await startNginx(dataplane, prefix, conf, `http://127.0.0.1:${statusPort}/healthz`);
      try {
        const endpoint = { address: '127.0.0.1', port: (echo.address() as AddressInfo).port };
        const push = await fetch(`http://127.0.0.1:${statusPort}/configuration/backends`, {
          method: 'POST', body: JSON.stringify([{ name: web.name, endpoints: [endpoint], loadBalance: 'round_robin' }]),
        });
        assert.equal(push.status, 201);
        let status = 0;
        for (let i = 0; i < 40 && status !== 200; i++) {
          if (i > 0) await sleep(25); // workers pick the push up within ~10 ms
          status = await get(httpPort, 'app.example.com', { 'user-agent': 'probe "quoted"' });
        }
        assert.equal(status, 200);
        // The line is written in the log phase, just after the response.
        let lines: string[] = [];
        for (let i = 0; i < 40; i++) {
          lines = readFileSync(join(prefix, 'access.log'), 'utf8').split('\n').filter((line) => line.includes('/items'));
          // Earlier 503s (before the workers saw the push) may be logged too; wait for the 200.
          if (lines.some((line) => /" 200 |"status": 200/u.test(line))) break;
          await sleep(25);
        }
        row.check(lines.at(-1) ?? '(no line)', upstream);
        // A host no Ingress names: no location sets the backend's name, the log says "-" without a warning.
        assert.equal(await get(httpPort, 'unknown.example.com', { 'user-agent': 'probe' }), 404);
        let unrouted: string | undefined;
        for (let i = 0; i < 40 && unrouted === undefined; i++) {
          if (i > 0) await sleep(25);
          unrouted = readFileSync(join(prefix, 'access.log'), 'utf8').split('\n').find((line) => / 404 |"status": 404/u.test(line));
        }
        row.checkUnrouted(unrouted ?? '(no line)');
        assert.doesNotMatch(readFileSync(join(prefix, 'error.log'), 'utf8'), /uninitialized/u);
      } finally {
        await nginx.stop();
      }
    });
  }
});
