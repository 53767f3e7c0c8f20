// The callgrind rows per route: which runs the profile makes, how a canary
// row proves its split from the metrics log, the bench model of each route
// and the headers wrk sends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Model } from '../../controller/src/model/types.ts';
import { hostArgs } from '../lib/wrk.ts';
import { canarySplit, type InstructionCount } from './instruction-count.ts';
import { nativeReferenceConf } from './reference-conf.ts';
import { accessRows, ACCESS_GOAL, AUTH_GOAL, canaryRows, CANARY_GOAL, expectedCanaryShare, instructionRuns, splitAsExpected } from './instruction-rows.ts';
import { createHash } from 'node:crypto';
import { renderConfig } from '../../controller/src/render/render-config.ts';
import { goldenOptions } from '../../controller/src/render/testdata/model-fixtures.ts';
import { AFFINITY_COOKIE, BENCH_HOST, BENCH_ROUTES, buildProxyModel, ROUTE_HEADERS, type BenchRoute } from './proxy-model.ts';

/**
 * wrk's location: BENCH_HOST's `/`. The fixture's /api rewrite makes the whole host regex (as in
 * ingress-nginx: model/regex-hosts.ts), so it is `~* "^/"`.
 */
function wrkLocation(conf: string): string {
  return /location ~\* "\^\/" \{[\s\S]*?\n {8}\}/u.exec(conf.slice(conf.indexOf(`server_name "${BENCH_HOST}"`)))?.[0] ?? '';
}

const PEERS = [{ address: '127.0.0.2', port: 81 }, { address: '127.0.0.3', port: 81 }];
const MODELS = Object.fromEntries(BENCH_ROUTES.map((route) => [route, buildProxyModel(PEERS, route).model])) as Record<BenchRoute, Model>;

test('buildProxyModel: the plain route has no policy, each canary route one on wrk\'s location', () => {
  const rows: { route: BenchRoute; backends: string[]; canary: Record<string, unknown> | null }[] = [
    { route: 'plain', backends: ['bench-app-80'], canary: null },
    { route: 'canary-by-header', backends: ['bench-app-80', 'bench-app-canary-80'], canary: { header: 'X-Canary', weight: 0 } },
    { route: 'canary-by-weight', backends: ['bench-app-80', 'bench-app-canary-80'], canary: { header: null, weight: 50, weightTotal: 100 } },
    { route: 'allow-list', backends: ['bench-app-80'], canary: null },
    { route: 'cors-simple', backends: ['bench-app-80'], canary: null },
    { route: 'hash-by-uri', backends: ['bench-app-80'], canary: null },
    { route: 'ewma', backends: ['bench-app-80'], canary: null },
  ];
  for (const row of rows) {
    const model = MODELS[row.route];
    assert.deepEqual(model.backends.map((b) => b.name), row.backends, `${row.route}: backends`);
    assert.ok(model.backends.every((b) => b.endpoints.length === PEERS.length), `${row.route}: the canary has the same peers`);
    if (row.canary === null) {
      assert.deepEqual(model.routes, [], `${row.route}: no policy`);
      continue;
    }
    assert.equal(model.routes.length, 1, `${row.route}: one policy`);
    const policy = model.routes[0];
    assert.equal(policy?.key, `r bench-app-80 ${BENCH_HOST} bench app app /`, `${row.route}: on the location wrk loads`);
    assert.equal(policy?.canary.backend, 'bench-app-canary-80', `${row.route}: to the canary's Service`);
    for (const [field, want] of Object.entries(row.canary)) assert.equal((policy?.canary as unknown as Record<string, unknown>)[field], want, `${row.route}: ${field}`);
  }
});

test('wrk\'s headers: the canary header with `always` only on the header route, as -H after the Host', () => {
  assert.deepEqual(ROUTE_HEADERS, {
    plain: [], 'canary-by-header': ['X-Canary: always'], 'canary-by-weight': [], 'cookie-affinity': [`Cookie: ${AFFINITY_COOKIE}`],
    'allow-list': [], 'cors-simple': ['Origin: https://app.example.com'], 'hash-by-uri': [], ewma: [], 'limit-rps': [],
    'basic-auth': [`Authorization: Basic ${Buffer.from('bench:s3cret').toString('base64')}`],
  });
  assert.deepEqual(hostArgs('http://x/', [BENCH_HOST], ROUTE_HEADERS['canary-by-header']), ['-H', `Host: ${BENCH_HOST}`, '-H', 'X-Canary: always', 'http://x/']);
  assert.deepEqual(hostArgs('http://x/', [BENCH_HOST]), ['-H', `Host: ${BENCH_HOST}`, 'http://x/']);
  assert.throws(() => hostArgs('http://x/', ['a', 'b'], ['X: 1']), /rotating hosts/);
});

test('instructionRuns: ours on every route, native once per distinct request, ablations on the plain route', () => {
  const rows: { name: string; sides: Parameters<typeof instructionRuns>[0]; routes: BenchRoute[]; want: string[] }[] = [
    { name: 'plain only', sides: ['ours', 'native'], routes: ['plain'], want: ['ours', 'native'] },
    {
      name: 'every route: native with the header once, the weight, hash and EWMA routes reuse plain native, the affinity and access routes have their own native',
      sides: ['ours', 'native'], routes: [...BENCH_ROUTES],
      want: ['ours', 'native', 'ours, canary-by-header', 'native, canary-by-header', 'ours, canary-by-weight', 'ours, cookie-affinity', 'native, cookie-affinity',
        'ours, allow-list', 'native, allow-list', 'ours, cors-simple', 'native, cors-simple', 'ours, hash-by-uri', 'ours, ewma',
        'ours, limit-rps', 'native, limit-rps', 'ours, basic-auth', 'native, basic-auth'],
    },
    {
      name: 'ablations stay plain', sides: ['ours', 'native', 'ours-no-metrics'], routes: ['canary-by-weight'],
      want: ['ours', 'native', 'ours-no-metrics', 'ours, canary-by-weight'],
    },
  ];
  for (const row of rows) assert.deepEqual(instructionRuns(row.sides, row.routes).map((r) => r.name), row.want, row.name);
});

test('canarySplit: lines of the host and path, those whose route has an 8th word went to the canary, those answered 2xx', () => {
  const line = (route: string, status = '200'): string => `${route}\tGET\t${status}\t0.001\t0.001\t80\t200`;
  const log = [
    line(`r bench-app-80 ${BENCH_HOST} bench app app / bench-app-canary-80`, '401'),
    line(`r bench-app-80 ${BENCH_HOST} bench app app /`, '499'),
    line(`r bench-app-80 ${BENCH_HOST} bench app app / bench-app-canary-80`),
    line(`e bench-app-80 ${BENCH_HOST} bench api app /api(/|\`)(.*)`),
    line('r bench-app-80 secure.example.com bench secure app / bench-app-canary-80'),
    '',
  ].join('\n');
  assert.deepEqual(canarySplit(log, BENCH_HOST, '/'), { requests: 3, canary: 2, ok: 2 });
  assert.deepEqual(canarySplit('', BENCH_HOST, '/'), { requests: 0, canary: 0, ok: 0 });
});

test('splitAsExpected: all but the start-up probe, none, or within binomial bounds of the weight', () => {
  const rows = [
    { name: 'header: every request but the probe', split: { requests: 1000, canary: 999, ok: 1000 }, share: 1, want: true },
    { name: 'header: a tenth stayed on the main backend', split: { requests: 1000, canary: 900, ok: 1000 }, share: 1, want: false },
    { name: 'weight 50: 520 of 1000', split: { requests: 1000, canary: 520, ok: 1000 }, share: 0.5, want: true },
    { name: 'weight 50: 600 of 1000 is 6 sd off', split: { requests: 1000, canary: 600, ok: 1000 }, share: 0.5, want: false },
    { name: 'weight 50: none went', split: { requests: 1000, canary: 0, ok: 1000 }, share: 0.5, want: false },
    { name: 'plain: none', split: { requests: 1000, canary: 0, ok: 1000 }, share: 0, want: true },
    { name: 'too few requests to tell', split: { requests: 5, canary: 5, ok: 5 }, share: 1, want: false },
    { name: 'no metrics log', split: null, share: 1, want: false },
  ];
  for (const row of rows) assert.equal(splitAsExpected(row.split, row.share), row.want, row.name);
  assert.deepEqual(BENCH_ROUTES.map((route) => expectedCanaryShare(route, MODELS[route])), [0, 1, 0.5, 0, 0, 0, 0, 0, 0, 0]);
});

test('canaryRows: ours ÷ native of the same requests, goal 1.25×, no value when the split is wrong', () => {
  const count = (perRequest: number, split: InstructionCount['split']): InstructionCount => ({
    side: 'x', requests: 1000, loadedInstructions: 0, timerInstructions: 0, idlePerSecond: 0, perRequest, dumpFile: '', split, failed: 0,
  });
  const counts = new Map([
    ['ours', count(43000, { requests: 1000, canary: 0, ok: 1000 })],
    ['native', count(37000, null)],
    ['ours, canary-by-header', count(45000, { requests: 1000, canary: 999, ok: 1000 })],
    ['native, canary-by-header', count(37500, null)],
    ['ours, canary-by-weight', count(48000, { requests: 1000, canary: 100, ok: 1000 })],
    ['ours, basic-auth', count(47000, { requests: 1000, canary: 0, ok: 999 })],
    ['native, basic-auth', count(37600, null)],
  ]);
  const { metrics, notes } = canaryRows(counts, (route) => MODELS[route]);
  assert.deepEqual(metrics.map((m) => [m.value, m.reference, m.goal, m.missed]), [
    [45000, 37500, CANARY_GOAL, false],
    [null, 37000, CANARY_GOAL, true],
    [null, 37600, AUTH_GOAL, true],
  ]);
  assert.match(notes[0] ?? '', /^canary-by-header: 999 of 1000 logged requests to the canary \(expected a share of 1\)$/);
  assert.match(notes[1] ?? '', /^canary-by-weight: 100 of 1000 .* did not split as configured/);
  assert.match(notes[2] ?? '', /^basic-auth: 0 of 1000 logged requests to the canary, 999 answered 2xx .*not every request got in/);
  const allIn = canaryRows(new Map([['ours, basic-auth', count(47000, { requests: 1000, canary: 0, ok: 1000 })], ['native, basic-auth', count(37600, null)]]),
    (route) => MODELS[route]);
  assert.deepEqual(allIn.metrics.map((m) => [m.value, m.reference, m.goal]), [[47000, 37600, AUTH_GOAL]], 'every request got in: the row counts');
  assert.equal(canaryRows(new Map([['ours', count(1, null)]]), (route) => MODELS[route]).metrics.length, 0, 'no canary runs, no canary rows');
});

test('the access routes: wrk\'s location carries the allow list and CORS, rendered for native too', () => {
  const conf = (route: BenchRoute): string => renderConfig(MODELS[route], goldenOptions()).conf;
  const location = (text: string): string => wrkLocation(text);
  assert.match(location(conf('allow-list')), /allow "10\.0\.0\.0\/8";\n\s+allow "127\.0\.0\.1\/32";\n\s+allow "192\.168\.0\.0\/16";\n\s+deny all;/u);
  assert.match(location(conf('cors-simple')), /if \(\$http_origin ~\* "\^\(\?:https:\/\/app\[\.\]example/u);
  assert.doesNotMatch(location(conf('plain')), /allow|add_header/u);
});

test('accessRows: ours ÷ native of the same conf, goal 1.3×, no value when a request failed', () => {
  const count = (perRequest: number, failed: number): InstructionCount => ({
    side: 'x', requests: 1000, loadedInstructions: 0, timerInstructions: 0, idlePerSecond: 0, perRequest, dumpFile: '', split: null, failed,
  });
  const rows: { name: string; counts: [string, InstructionCount][]; want: [number | null, number, boolean][] }[] = [
    {
      name: 'both routes measured',
      counts: [['ours, allow-list', count(44000, 0)], ['native, allow-list', count(38000, 0)], ['ours, cors-simple', count(46000, 0)], ['native, cors-simple', count(39000, 0)]],
      want: [[44000, 38000, false], [46000, 39000, false]],
    },
    { name: 'a refused request: no value', counts: [['ours, allow-list', count(20000, 3)], ['native, allow-list', count(38000, 0)]], want: [[null, 38000, true]] },
    { name: 'no access runs, no rows', counts: [['ours', count(1, 0)]], want: [] },
  ];
  for (const row of rows) {
    const { metrics } = accessRows(new Map(row.counts));
    assert.deepEqual(metrics.map((m) => [m.value, m.reference, m.missed]), row.want, row.name);
    assert.ok(metrics.every((m) => m.goal === ACCESS_GOAL), row.name);
  }
});

test('buildProxyModel: the basic-auth route has the users of wrk\'s Ingress, and wrk sends one of them', () => {
  const users = MODELS['basic-auth'].credentials ?? [];
  assert.deepEqual(users.map((set) => [set.id, set.type, Object.keys(set.users)]), [['bench/app', 'basic', ['bench']]]);
  assert.deepEqual(ROUTE_HEADERS['basic-auth'], [`Authorization: Basic ${Buffer.from('bench:s3cret').toString('base64')}`]);
  assert.equal(MODELS.plain.credentials, undefined, 'the plain route has none');
});

test('buildProxyModel: the cookie-affinity route puts affinity on wrk\'s backend, and wrk returns a session of it', () => {
  const model = MODELS['cookie-affinity'];
  assert.deepEqual(model.routes, [], 'no canary policy');
  const backend = model.backends.find((b) => b.name === 'bench-app-80');
  assert.equal(backend?.affinity?.cookie, 'INGRESSCOOKIE');
  assert.equal(backend?.affinity?.mode, 'balanced');
  assert.deepEqual(backend?.affinity?.ingresses, ['bench/app'], 'wrk\'s location is of an Ingress with affinity');
  const md5 = (text: string): string => createHash('md5').update(text).digest('hex');
  assert.equal(AFFINITY_COOKIE.split('|')[1], md5(md5('bench-app-80') + 'bench-app-80'), 'the cookie names the backend (sticky.lua\'s backend key)');
  assert.equal(MODELS.plain.backends[0]?.affinity, null, 'the plain route has none');
});

test('buildProxyModel: the hash and EWMA routes set wrk\'s backend apart from the plain route (the same nginx.conf but EWMA\'s log phase)', () => {
  const rows: { route: BenchRoute; want: [string, unknown] }[] = [
    { route: 'plain', want: ['round_robin', null] },
    { route: 'hash-by-uri', want: ['round_robin', { by: '$request_uri', subsetSize: null }] },
    { route: 'ewma', want: ['ewma', null] },
  ];
  for (const row of rows) {
    const backend = MODELS[row.route].backends.find((b) => b.name === 'bench-app-80');
    assert.deepEqual([backend?.loadBalance, backend?.hash], row.want, row.route);
  }
});

test('the limit-rps route: wrk\'s location counts requests; native keys NGINX\'s zone by the address, without our set', () => {
  const conf = renderConfig(MODELS['limit-rps'], goldenOptions()).conf;
  const location = (text: string): string => wrkLocation(text);
  assert.match(location(conf), /set \$resty_limit_key "[0-9a-f]{12}\$binary_remote_addr";[\s\S]*limit_req zone=resty_rps_100000 burst=500000 nodelay;/u);
  assert.match(conf, /limit_req_zone \$resty_limit_key zone=resty_rps_100000:10m rate=100000r\/s;/u);
  const native = nativeReferenceConf(conf, [{ address: '127.0.0.2', port: 81 }]);
  assert.match(native, /limit_req_zone \$binary_remote_addr zone=resty_rps_100000:10m rate=100000r\/s;/u);
  assert.match(location(native), /limit_req zone=resty_rps_100000 burst=500000 nodelay;/u);
  assert.doesNotMatch(native, /resty_limit_key/u);
  assert.doesNotMatch(location(renderConfig(MODELS.plain, goldenOptions()).conf), /limit_/u, 'the plain route is unchanged');
});
