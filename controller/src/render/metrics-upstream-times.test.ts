// RenderOptions.metricsUpstreamTimes (false when --exclude-socket-metrics names
// both connect_duration_seconds and header_duration_seconds): the metrics
// log_format writes "-" in the two upstream time fields instead of formatting
// them, and nothing else changes. Real NGINX then writes lines the controller
// parses as before (same field count, "-" = no observation).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import { parseMetricsLog } from '../metrics/index.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { renderConfig } from './render-config.ts';
import { assertNginxAccepts } from './testdata/golden-check.ts';
import { backend, goldenOptions, model, proxied, server } from './testdata/model-fixtures.ts';
import { makePrefix, startNginx } from './testdata/nginx-runner.ts';
import { getStatus } from './testdata/http-status.ts';

const web = backend('default-web-80');
const site = model([server('app.example.com', [proxied('/exact', 'exact', web.name)])], [web]);
const TIMES = String.raw`\t$upstream_connect_time\t$upstream_header_time';`;
const DASHES = String.raw`\t-\t-';`;

/** The conf's lines, without those naming the config version (they differ whenever the options do). */
const lines = (conf: string): string[] => conf.split('\n').filter((line) => !/Config version "|return 200 "[0-9a-f]{16}";/u.test(line));

void describe('metrics log without upstream times: rendered', () => {
  const on = renderConfig(site, goldenOptions());
  const off = renderConfig(site, { ...goldenOptions(), metricsUpstreamTimes: false });

  const rows: { name: string; conf: string; ends: string; not: string }[] = [
    { name: 'default: both times formatted', conf: on.conf, ends: TIMES, not: DASHES },
    { name: 'false: two "-" fields in their place', conf: off.conf, ends: DASHES, not: TIMES },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const format = row.conf.split('\n').find((line) => line.includes('log_format resty_metrics'));
      assert.ok(format !== undefined && format.endsWith(row.ends), format);
      assert.ok(!row.conf.includes(row.not));
      assert.equal(format.split(String.raw`\t`).length, 9, 'the contract\'s nine fields');
    });
  }

  void it('changes nothing else, and the version', () => {
    const [a, b] = [lines(on.conf), lines(off.conf)];
    assert.deepEqual(a.filter((line, i) => line !== b[i]).map((line) => line.trim().slice(0, 32)), ['log_format resty_metrics escape=']);
    assert.notEqual(on.version, off.version);
    assert.equal(renderConfig(site, { ...goldenOptions(), metricsUpstreamTimes: true }).conf, on.conf);
  });

  void it('nginx -t accepts it', async () => {
    await assertNginxAccepts(off.conf);
  });
});


void describe('metrics log without upstream times: what real NGINX writes', () => {
  void it('"-" in both fields, a line the controller parses, no connect or header observation', async () => {
    const ports = new Set<number>();
    while (ports.size < 3) ports.add(await freePort());
    const [httpPort, statusPort, httpsPort] = [...ports] as [number, number, number];
    const dataplane = findDataplane();
    const prefix = makePrefix();
    const { conf } = renderConfig(site, { ...goldenOptions(dataplane, prefix), httpPort, httpsPort, statusPort, metricsUpstreamTimes: false });
    const nginx = await startNginx(dataplane, prefix, conf, `http://127.0.0.1:${statusPort}/healthz`);
    try {
      // No endpoints were pushed: the balancer's fallback peer answers 503 (an upstream was connected).
      assert.equal(await getStatus(httpPort, 'app.example.com', '/exact'), 503);
      let text = '';
      for (let i = 0; i < 60 && text === ''; i++) {
        if (i > 0) await sleep(50);
        text = readFileSync(join(prefix, 'metrics.log'), 'utf8');
      }
      const fields = text.trimEnd().split('\t');
      assert.equal(fields.length, 9, text);
      assert.deepEqual(fields.slice(7), ['-', '-']);
      assert.match(fields[4] ?? '', /^\d+\.\d{3}$/u, 'the response time is still written');
      const parsed = parseMetricsLog(text);
      assert.equal(parsed.rejected.malformed, 0);
      const histograms = parsed.aggregates[0]?.histograms;
      assert.deepEqual([histograms?.requestDuration.count, histograms?.responseDuration.count, histograms?.connectDuration.count, histograms?.headerDuration.count], [1, 1, 0, 0]);
    } finally {
      await nginx.stop();
    }
  });
});
