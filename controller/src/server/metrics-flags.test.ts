// ingress-nginx's metrics flags from the command line to /metrics: the
// arguments go through parseOptions and requestMetricsOptions (as
// controller.ts passes them) into startObservability, NGINX's metrics log
// gets a request to a host an Ingress defines, one to the catch-all server
// and one to a wildcard server, and the scrape shows what each flag did.
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { parseOptions } from '../cli/index.ts';
import { requestMetricsOptions, startObservability } from './observability.ts';

const P = 'nginx_ingress_controller_';
const VALUES = '\tGET\t200\t0.3\t0.2\t150\t700\t0.001\t0.1\n';
const LOG = [
  `- shop-web-80 shop.test shop web web /api${VALUES}`,
  `- shop-web-80 _ shop nohost web /${VALUES}`,
  `- shop-web-80 *.shop.test shop wild web /${VALUES}`,
].join('');

/** `le` values of one histogram's series for the Ingress `web`, in order. */
function bounds(text: string, name: string): string[] {
  const pattern = new RegExp(`^${P}${name}_bucket\\{[^}]*ingress="web"[^}]*le="([^"]+)"\\}`, 'gmu');
  return [...text.matchAll(pattern)].map((match) => match[1] ?? '');
}

/** The `host` label values nginx_ingress_controller_requests has (null: a series without one). */
function requestHosts(text: string): (string | null)[] {
  const lines = text.split('\n').filter((line) => line.startsWith(`${P}requests{`));
  return lines.map((line) => /[{,]host="([^"]*)"/u.exec(line)?.[1] ?? null).sort();
}

const names = (text: string): string[] =>
  text.split('\n').filter((line) => line.startsWith('# TYPE ')).map((line) => line.split(' ')[2] ?? '');

void describe('metrics flags from the command line to /metrics', () => {
  const dir = mkdtempSync(join(tmpdir(), 'metrics-flags-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let runs = 0;

  async function scrape(argv: string[]): Promise<string> {
    const metricsLogPath = join(dir, `metrics-${String(runs++)}.log`);
    const observability = await startObservability({
      registry: new Registry(), logger: pino({ level: 'silent' }), host: '127.0.0.1', port: 0, statusUrl: 'http://127.0.0.1:1',
      ...requestMetricsOptions(parseOptions(argv)),
      metricsLogPath, electionId: 'lease', ingressClass: 'resty',
      nginxPid: () => null, liveVersion: () => null, luaVersion: () => Promise.resolve(null),
    });
    try {
      appendFileSync(metricsLogPath, LOG);
      const res = await fetch(`http://127.0.0.1:${observability.port}/metrics`);
      assert.equal(res.status, 200);
      return await res.text();
    } finally {
      await observability.close();
    }
  }

  const DEFAULT_TIME = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];
  const DEFAULT_LENGTH = ['10', '20', '30', '40', '50', '60', '70', '80', '90', '100', '+Inf'];
  const DEFAULT_SIZE = ['10', '100', '1000', '10000', '100000', '1000000', '10000000', '+Inf'];

  const bucketRows: { name: string; argv: string[]; expected: Record<string, string[]> }[] = [
    { name: 'no flags: ingress-nginx\'s defaults', argv: [], expected: { request_duration_seconds: DEFAULT_TIME, request_size: DEFAULT_LENGTH, bytes_sent: DEFAULT_SIZE } },
    {
      name: '--time-buckets: every duration histogram',
      argv: ['--time-buckets=0.25,2'],
      expected: { request_duration_seconds: ['0.25', '2', '+Inf'], response_duration_seconds: ['0.25', '2', '+Inf'], connect_duration_seconds: ['0.25', '2', '+Inf'], header_duration_seconds: ['0.25', '2', '+Inf'], request_size: DEFAULT_LENGTH },
    },
    { name: '--length-buckets: request and response size', argv: ['--length-buckets', '100,1000'], expected: { request_size: ['100', '1000', '+Inf'], response_size: ['100', '1000', '+Inf'], bytes_sent: DEFAULT_SIZE } },
    { name: '--size-buckets: bytes_sent only', argv: ['--size-buckets=500'], expected: { bytes_sent: ['500', '+Inf'], response_size: DEFAULT_LENGTH, request_duration_seconds: DEFAULT_TIME } },
  ];
  for (const row of bucketRows) {
    void it(`buckets: ${row.name}`, async () => {
      const text = await scrape(row.argv);
      for (const [name, les] of Object.entries(row.expected)) assert.deepEqual(bounds(text, name), les, name);
      if (row.argv.length > 0) {
        // The request landed in the flag's buckets: counted once, in the bucket its value belongs to.
        assert.match(text, /_request_duration_seconds_count\{[^}]*ingress="web"[^}]*\} 1$/mu);
      }
    });
  }

  void it('buckets: the observation lands in the flag\'s bucket (0.3 s: not in le=0.25, in le=2)', async () => {
    const text = await scrape(['--time-buckets=0.25,2']);
    assert.match(text, new RegExp(`^${P}request_duration_seconds_bucket\\{[^}]*ingress="web"[^}]*le="0.25"\\} 0$`, 'mu'));
    assert.match(text, new RegExp(`^${P}request_duration_seconds_bucket\\{[^}]*ingress="web"[^}]*le="2"\\} 1$`, 'mu'));
  });

  const ALL = ['requests', 'request_duration_seconds', 'response_duration_seconds', 'connect_duration_seconds', 'header_duration_seconds', 'request_size', 'response_size', 'bytes_sent'];
  const excludeRows: { name: string; argv: string[]; gone: string[] }[] = [
    { name: 'nothing by default', argv: [], gone: [] },
    { name: 'full names', argv: ['--exclude-socket-metrics=nginx_ingress_controller_connect_duration_seconds,nginx_ingress_controller_header_duration_seconds'], gone: ['connect_duration_seconds', 'header_duration_seconds'] },
    { name: 'names without the prefix, the counter too', argv: ['--exclude-socket-metrics=requests,bytes_sent'], gone: ['requests', 'bytes_sent'] },
    { name: 'a name that is no per-request metric excludes nothing', argv: ['--exclude-socket-metrics=nginx_ingress_controller_success,request_duration_seconds_bucket'], gone: [] },
  ];
  for (const row of excludeRows) {
    void it(`--exclude-socket-metrics: ${row.name}`, async () => {
      const exposed = names(await scrape(row.argv));
      assert.deepEqual(ALL.filter((name) => !exposed.includes(`${P}${name}`)), row.gone);
      assert.ok(exposed.includes(`${P}success`), 'other metrics stay');
    });
  }

  const hostRows: { name: string; argv: string[]; hosts: (string | null)[] }[] = [
    { name: 'default: only the host an Ingress defines', argv: [], hosts: ['shop.test'] },
    { name: '--metrics-per-undefined-host: the catch-all\'s and the wildcard\'s too', argv: ['--metrics-per-undefined-host'], hosts: ['', '*.shop.test', 'shop.test'] },
    { name: '--metrics-per-undefined-host=false: dropped', argv: ['--metrics-per-undefined-host=false'], hosts: ['shop.test'] },
    { name: '--metrics-per-host=false: every request, no host label', argv: ['--metrics-per-host=false'], hosts: [null, null, null] },
  ];
  for (const row of hostRows) {
    void it(`hosts: ${row.name}`, async () => {
      assert.deepEqual(requestHosts(await scrape(row.argv)), row.hosts);
    });
  }

  void it('--enable-metrics=false: none of ingress-nginx\'s metrics, resty-ingress\'s own stay', async () => {
    const exposed = names(await scrape(['--enable-metrics=false']));
    assert.deepEqual(exposed.filter((name) => name.startsWith(P)), []);
    assert.ok(exposed.includes('resty_ingress_sync_total'));
  });
});
