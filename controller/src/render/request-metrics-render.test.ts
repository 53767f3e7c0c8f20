// --enable-metrics=false as render sees it (RenderOptions.requestMetrics):
// the switch removes exactly the per-request metrics lines (the metrics
// log_format, the status server's declaration of $resty_route, the logs of
// each server with proxied locations and the access log its 404 locations
// keep) and nothing else (each proxied location keeps `set $resty_route`:
// the balancer reads it),
// `nginx -t` accepts the result, and real NGINX then writes no metrics log.
// With metrics on, real NGINX writes a labelled line for every proxied
// request (503, force-ssl-redirect) and none for a 404 beside them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { renderConfig } from './render-config.ts';
import { assertNginxAccepts } from './testdata/golden-check.ts';
import { backend, goldenOptions, model, notFound, proxied, server } from './testdata/model-fixtures.ts';
import { makePrefix, startNginx } from './testdata/nginx-runner.ts';
import { getStatus } from './testdata/http-status.ts';

const web = backend('default-web-80');
const api = { ...backend('default-api-80'), loadBalance: 'ewma' as const };
// Proxied locations of every kind (prefix: two blocks but for "/"; exact; regex; EWMA) next to ones that answer 404.
const site = model([
  server('_', [notFound('/')]),
  server('app.example.com', [
    proxied('/', 'prefix', web.name),
    proxied('/shop', 'prefix', web.name),
    proxied('/exact', 'exact', web.name),
    // Written raw by the metrics log (escape=none): the controller reads the UTF-8 bytes.
    proxied('/café', 'exact', web.name),
    proxied('/api(/|$)(.*)', 'regex', api.name, { policy: { rewrite: { target: '/$2', useRegex: false } } }),
    proxied('/secure', 'exact', web.name, { policy: { sslRedirect: { redirect: true, force: true } } }),
    notFound('/gone'),
  ]),
], [web, api]);

/** How many times each line occurs in `text`. */
function lineCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) counts.set(line, (counts.get(line) ?? 0) + 1);
  return counts;
}

/** Lines of `a` not matched by a line of `b` (as a multiset), in `a`'s order. */
function linesOnlyIn(a: string, b: string): string[] {
  const left = lineCounts(b);
  return a.split('\n').filter((line) => {
    const n = left.get(line) ?? 0;
    if (n > 0) left.set(line, n - 1);
    return n === 0;
  });
}

/** Lines that name the config version (they differ whenever the options do). */
const isVersionLine = (line: string): boolean => /Config version "|return 200 "[0-9a-f]{16}";/u.test(line);

void describe('request metrics off: rendered', () => {
  const on = renderConfig(site, goldenOptions());
  const off = renderConfig(site, { ...goldenOptions(), requestMetrics: false });

  void it('the default is on: same conf as requestMetrics: true', () => {
    assert.equal(renderConfig(site, { ...goldenOptions(), requestMetrics: true }).conf, on.conf);
    assert.match(on.conf, /log_format resty_metrics /u);
  });

  void it('removes exactly the metrics log, and adds nothing', () => {
    // The catch-all's @resty_pending (pending-hosts.njk) proxies too, with no `set` of its own.
    const proxiedBlocks = (on.conf.match(/proxy_pass /gu)?.length ?? 0) - 1;
    assert.equal(proxiedBlocks, 7, '"/", "/shop" (= and prefix blocks), three exact, regex');
    const routes = (conf: string): number => conf.match(/^\s*set \$resty_route "\S+ \S+ app\.example\.com /gmu)?.length ?? 0;
    assert.deepEqual([routes(on.conf), routes(off.conf)], [proxiedBlocks, proxiedBlocks], 'one route per proxied location block, on and off');
    const removed = linesOnlyIn(on.conf, off.conf).filter((line) => !isVersionLine(line)).map((line) => line.trim());
    // The server with proxied locations logs at its level (its access_log replaces the inherited
    // one, so the access log is repeated there); its two 404 blocks ("/gone" = and prefix) keep the access log alone.
    const accessLogs = removed.filter((line) => line === 'access_log "/golden/prefix/access.log" upstreaminfo;');
    const metricsLogs = removed.filter((line) => line === 'access_log "/golden/prefix/metrics.log" resty_metrics buffer=64k flush=1s;');
    const perServer = new Set<string>([...accessLogs, ...metricsLogs]);
    assert.deepEqual(removed.filter((line) => !perServer.has(line)), [
      '# Per-request metrics: servers with proxied locations add a metrics log to the access',
      '# log above (server.njk); written 64 KB at a time and read',
      '# by the controller (controller/src/metrics). escape=none: the labels are our own text',
      '# (render refuses quotes, backslashes and control characters), the rest is numbers and the',
      "# method NGINX parsed; escaping would scan every byte twice for nothing.",
      String.raw`log_format resty_metrics escape=none '$resty_route\t$request_method\t$status\t$request_time\t$upstream_response_time\t$request_length\t$bytes_sent\t$upstream_connect_time\t$upstream_header_time';`,
      '# Declares the variable the metrics log reads, for a configuration without any proxied location.',
      'set $resty_route "";',
    ]);
    assert.equal(metricsLogs.length, 1, 'one metrics log, in the one server with proxied locations');
    assert.equal(accessLogs.length, 1 + 2, 'the access log beside it and in each of its 404 blocks');
    assert.doesNotMatch(on.conf, /if=\$resty_route/u);
    assert.deepEqual(linesOnlyIn(off.conf, on.conf).filter((line) => !isVersionLine(line)), []);
  });

  void it('leaves no trace of the metrics variable or file', () => {
    assert.doesNotMatch(off.conf, /resty_metrics|metrics\.log/u);
  });

  void it('changes the config version (switching it needs a reload)', () => {
    assert.notEqual(off.version, on.version);
  });

  void it('nginx -t accepts it', async () => {
    await assertNginxAccepts(off.conf);
  });
});


void describe('request metrics: what real NGINX writes', () => {
  const rows: { name: string; requestMetrics: boolean }[] = [
    { name: 'on: a proxied request becomes a metrics log line', requestMetrics: true },
    { name: 'off: no metrics log at all', requestMetrics: false },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      // freePort may hand out a port it handed out before (it was free again): three distinct ones.
      const ports = new Set<number>();
      while (ports.size < 3) ports.add(await freePort());
      const [httpPort, statusPort, httpsPort] = [...ports] as [number, number, number];
      const dataplane = findDataplane();
      const prefix = makePrefix();
      const { conf } = renderConfig(site, { ...goldenOptions(dataplane, prefix), httpPort, httpsPort, statusPort, requestMetrics: row.requestMetrics });
      const nginx = await startNginx(dataplane, prefix, conf, `http://127.0.0.1:${statusPort}/healthz`);
      try {
        // No endpoints were pushed: the proxied location answers 503, a request all the same.
        assert.equal(await getStatus(httpPort, 'app.example.com', '/exact'), 503);
        const path = join(prefix, 'metrics.log');
        // NGINX opens its logs at start, so "no file" now means no metrics log in this configuration.
        assert.equal(existsSync(path), row.requestMetrics, `metrics.log exists: ${existsSync(path)}`);
        if (!row.requestMetrics) return;
        // The line arrives within flush=1s.
        let text = '';
        for (let i = 0; i < 60 && text === ''; i++) {
          if (i > 0) await sleep(50);
          text = readFileSync(path, 'utf8');
        }
        assert.match(text, /^r default-web-80 app\.example\.com default web web \/exact\tGET\t503\t/mu);
        assert.equal(await getStatus(httpPort, 'app.example.com', '/caf%C3%A9'), 503);
        for (let i = 0; i < 60 && !text.includes('/café\t'); i++) {
          await sleep(50);
          text = readFileSync(path, 'utf8');
        }
        assert.match(text, /^r default-web-80 app\.example\.com default web web \/café\tGET\t503\t/mu);
        // A 404 beside proxied locations: in the access log, not in the metrics log (the line
        // after it arriving proves it would have been written by then).
        assert.equal(await getStatus(httpPort, 'app.example.com', '/gone'), 404);
        // force-ssl-redirect answers before the proxy: its line has the location's labels too.
        assert.equal(await getStatus(httpPort, 'app.example.com', '/secure'), 308);
        for (let i = 0; i < 60 && !text.includes('/secure\t'); i++) {
          await sleep(50);
          text = readFileSync(path, 'utf8');
        }
        assert.match(text, /^- default-web-80 app\.example\.com default web web \/secure\tGET\t308\t/mu);
        assert.match(readFileSync(join(prefix, 'access.log'), 'utf8'), /"GET \/gone HTTP\/1\.1" 404 /u);
        assert.deepEqual(text.trimEnd().split('\n').map((line) => line.split('\t').slice(0, 3).join(' ')), [
          'r default-web-80 app.example.com default web web /exact GET 503',
          'r default-web-80 app.example.com default web web /café GET 503',
          '- default-web-80 app.example.com default web web /secure GET 308',
        ]);
        assert.doesNotMatch(readFileSync(join(prefix, 'error.log'), 'utf8'), /uninitialized/u);
      } finally {
        await nginx.stop();
      }
    });
  }
});
