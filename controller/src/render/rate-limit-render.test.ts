// What limit-* print (features/rate-limit*.njk, render/rate-limit-view.ts), each row's conf
// through the real `nginx -t`, and one conf served by the real NGINX: requests past the burst
// get limit-req-status-code, an allowlisted client address is never counted, and two Ingresses
// of the same rate share a zone but not their counters. The locations have no endpoints, so a
// request that passes the limit gets the fallback's 503 and a limited one 429.
// Fails (never skips) without the runtime: the test command runs setup first.

import { strict as assert } from 'node:assert';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import { parseAnnotations } from '../model/features/testing.ts';
import type { IngressRef, Location, Model, RateLimitConfig } from '../model/types.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { renderConfig } from './render-config.ts';
import { limitId } from './rate-limit-view.ts';
import { assertNginxAccepts } from './testdata/golden-check.ts';
import { backend, DEFAULT_SETTINGS, goldenOptions, model, proxied, server } from './testdata/model-fixtures.ts';
import { makePrefix, startNginx, type RunningNginx } from './testdata/nginx-runner.ts';

const APP = backend('default-app');
const ref = (name: string): IngressRef => ({ namespace: 'shop', name });

function limits(annotations: Record<string, string>): RateLimitConfig {
  const parsed = parseAnnotations(annotations);
  assert.ok(parsed.ok && parsed.value.policy.rateLimit, JSON.stringify(parsed));
  return parsed.value.policy.rateLimit;
}

function limited(path: string, ingress: string, annotations: Record<string, string>): Location {
  return proxied(path, 'prefix', APP.name, { ingress: ref(ingress), policy: { rateLimit: limits(annotations) } });
}

function settings(configMap: Partial<RateLimitConfig>): Model['settings'] {
  return { ...DEFAULT_SETTINGS, rateLimit: { ...DEFAULT_SETTINGS.rateLimit, ...configMap } };
}

const A = limitId(ref('a'));
const B = limitId(ref('b'));

const rows: { name: string; locations: Location[]; settings?: Model['settings']; has: string[]; lacks: string[] }[] = [
  {
    name: 'limit-rps: one zone for the rate, the key is the Ingress and the client address, burst = 5 × rps',
    locations: [limited('/', 'a', { 'limit-rps': '2' })],
    has: [
      'limit_req_status 503;', 'limit_conn_status 503;', 'limit_req_zone $resty_limit_key zone=resty_rps_2:10m rate=2r/s;',
      `set $resty_limit_key "${A}$binary_remote_addr";`, 'limit_req zone=resty_rps_2 burst=10 nodelay;',
    ],
    lacks: ['limit_conn_zone', 'limit_conn ', 'geo ', 'limit_rate'],
  },
  {
    name: 'two Ingresses of one rate share its zone (printed once), each with its own key',
    locations: [limited('/a', 'a', { 'limit-rps': '2' }), limited('/b', 'b', { 'limit-rps': '2', 'limit-burst-multiplier': '1' })],
    has: [`set $resty_limit_key "${A}$binary_remote_addr";`, `set $resty_limit_key "${B}$binary_remote_addr";`, 'limit_req zone=resty_rps_2 burst=2 nodelay;'],
    lacks: [],
  },
  {
    name: 'connections, rps and rpm in ingress-nginx\'s order; the ConfigMap\'s statuses',
    locations: [limited('/', 'a', { 'limit-connections': '3', 'limit-rps': '5', 'limit-rpm': '100', 'limit-burst-multiplier': '2' })],
    settings: settings({ reqStatus: 429, connStatus: 430 }),
    has: [
      'limit_req_status 429;', 'limit_conn_status 430;', 'limit_req_zone $resty_limit_key zone=resty_rps_5:10m rate=5r/s;',
      'limit_req_zone $resty_limit_key zone=resty_rpm_100:10m rate=100r/m;', 'limit_conn_zone $resty_limit_key zone=resty_conn:10m;',
      'limit_conn resty_conn 3;\n            limit_req zone=resty_rps_5 burst=10 nodelay;\n            limit_req zone=resty_rpm_100 burst=200 nodelay;',
    ],
    lacks: [],
  },
  {
    name: 'limit-allowlist: a geo and a map for the Ingress, its key empty for listed clients',
    locations: [limited('/', 'a', { 'limit-rps': '1', 'limit-allowlist': '127.0.0.2, 2001:db8::/32' })],
    has: [
      `geo $remote_addr $resty_limit_allow_${A} {\n        default 0;\n        "127.0.0.2" 1;\n        "2001:db8::/32" 1;\n    }`,
      `map $resty_limit_allow_${A} $resty_limit_${A} {\n        default "${A}$binary_remote_addr";\n        1 "";\n    }`,
      `set $resty_limit_key $resty_limit_${A};`,
    ],
    lacks: [],
  },
  {
    name: 'limit-rate and limit-rate-after alone: per location in KiB, no zone and no key',
    locations: [limited('/', 'a', { 'limit-rate': '100', 'limit-rate-after': '1024' })],
    has: ['limit_rate_after 1024k;\n            proxy_buffering on;\n            limit_rate 100k;'],
    lacks: ['limit_req', 'limit_conn', '$resty_limit_key'],
  },
  {
    name: 'the ConfigMap\'s limit-rate: every location',
    locations: [proxied('/', 'prefix', APP.name), proxied('/x', 'prefix', APP.name)], settings: settings({ rate: 64 }),
    has: ['location "/x/" {'], lacks: ['limit_req'],
  },
  {
    name: 'no limits: nothing',
    locations: [proxied('/', 'prefix', APP.name)], settings: settings({ reqStatus: 429 }),
    has: [], lacks: ['limit_', '$resty_limit'],
  },
];

void describe('rate limits: rendered', () => {
  for (const row of rows) {
    void it(row.name, async () => {
      const conf = renderConfig(model([server('shop.test', row.locations)], [APP], row.settings), goldenOptions()).conf;
      for (const text of row.has) assert.ok(conf.includes(text), `has ${text}`);
      for (const text of row.lacks) assert.ok(!conf.includes(text), `lacks ${text}`);
      await assertNginxAccepts(conf);
    });
  }
  void it('the key is set before rewrite-target\'s `rewrite ... break`, which ends the rewrite directives', async () => {
    const policy = { rewrite: { target: '/$1', useRegex: false }, rateLimit: limits({ 'limit-rps': '2' }) };
    const location = proxied('/api/(.*)', 'regex', APP.name, { ingress: ref('a'), policy });
    const conf = renderConfig(model([server('shop.test', [location])], [APP]), goldenOptions()).conf;
    const key = conf.indexOf('set $resty_limit_key');
    const rewrite = conf.indexOf('rewrite "');
    assert.ok(key > 0 && rewrite > key, conf.slice(Math.max(0, key - 200), key + 400));
    await assertNginxAccepts(conf);
  });
  void it('the ConfigMap\'s limit-rate reaches every location (and only once in each)', () => {
    const conf = renderConfig(model([server('shop.test', [proxied('/', 'prefix', APP.name)])], [APP], settings({ rate: 64 })), goldenOptions()).conf;
    assert.equal(conf.split('limit_rate 64k;').length - 1, 1);
  });
});

/** One GET from `localAddress`; resolves with the status. */
function get(port: number, path: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, localAddress, headers: { host: 'shop.test', connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error('timeout')));
    req.end();
  });
}

async function statuses(port: number, path: string, from: string, count: number): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) seen.push(await get(port, path, from));
  return seen;
}

void describe('rate limits: served by NGINX', () => {
  let nginx: RunningNginx | null = null;
  let port = 0;
  before(async () => {
    const dataplane = findDataplane();
    const prefix = makePrefix();
    port = await freePort();
    const statusPort = await freePort();
    const site = model([server('shop.test', [
      // rps 1 with burst 2: 3 requests pass at once, then the rest of the second is limited.
      limited('/a', 'a', { 'limit-rps': '1', 'limit-burst-multiplier': '2', 'limit-allowlist': '127.0.0.2' }),
      limited('/b', 'b', { 'limit-rps': '1', 'limit-burst-multiplier': '2' }),
    ])], [APP], settings({ reqStatus: 429 }));
    const rendered = renderConfig(site, { ...goldenOptions(dataplane, prefix), httpPort: port, httpsPort: await freePort(), statusPort, workerProcesses: 1 });
    nginx = await startNginx(dataplane, prefix, rendered.conf, `http://127.0.0.1:${statusPort}/healthz`);
  });
  after(async () => {
    await nginx?.stop();
  });

  void it('past the burst, limit-req-status-code; other Ingresses and allowlisted clients keep their own count', async () => {
    // Well inside one second: the rate adds at most one more request.
    const first = await statuses(port, '/a/', '127.0.0.1', 6);
    assert.deepEqual(first.slice(0, 3), [503, 503, 503], `three within the burst pass (to the no-endpoint 503): ${first}`);
    assert.ok(first.slice(4).every((s) => s === 429), `then 429: ${first}`);
    const other = await statuses(port, '/b/', '127.0.0.1', 3);
    assert.deepEqual(other, [503, 503, 503], 'the same client on another Ingress of the same rate is counted apart');
    const allowed = await statuses(port, '/a/', '127.0.0.2', 10);
    assert.ok(allowed.every((s) => s === 503), `limit-allowlist: never limited: ${allowed}`);
    const third = await statuses(port, '/a/', '127.0.0.3', 4);
    assert.deepEqual(third.slice(0, 3), [503, 503, 503], `another address has its own count: ${third}`);
    // NGINX logs each refused request at error level (limit_req_log_level, as ingress-nginx leaves it): nothing else.
    const errors = (nginx?.errorLog() ?? '').split('\n').filter((line) => /\[(error|emerg|alert|crit)\]/u.test(line));
    assert.ok(errors.length >= 3 && errors.every((line) => line.includes('limiting requests, excess:')), errors.join('\n'));
  });
});
