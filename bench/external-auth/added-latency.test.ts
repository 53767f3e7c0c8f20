// The external-auth benchmark's rows: added latency at p50/p99 from
// interleaved samples, valued only when every request got in and the auth
// service served one subrequest per protected request; the bench model
// protects /protected alone; the auth service's request count.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderConfig } from '../../controller/src/render/render-config.ts';
import { goldenOptions } from '../../controller/src/render/testdata/model-fixtures.ts';
import { BENCH_HOST, buildProxyModel } from '../proxy/proxy-model.ts';
import { addedLatencyRows, authDistributions, invalidReason, MIN_SAMPLES, type AuthLatencySamples } from './added-latency.ts';
import { PROTECTED_PATH, protectedIngress, stubStatusRequests } from './external-auth.ts';

/** `n` samples: 1..n ms shifted by `plus` (p50 of 1..100 is 50, p99 is 99: nearest rank). */
const ramp = (n: number, plus = 0): number[] => Array.from({ length: n }, (_, i) => i + 1 + plus);

test('addedLatencyRows: protected minus plain at p50 and p99, the plain route\'s percentile as reference, no goal', () => {
  const samples: AuthLatencySamples = { plain: ramp(100).reverse(), auth: [...ramp(98, 0.5), 400, 900], failed: 0, asked: 100 };
  const { metrics, notes } = addedLatencyRows(samples);
  assert.deepEqual(metrics.map((m) => [m.name.replace(/ \(.*$/u, ''), m.unit, m.value, m.reference, m.referenceLabel, m.goal, m.missed]), [
    ['external auth: latency the subrequest adds at p50', 'ms', 0.5, 50, 'plain route p50, same run', null, false],
    // p99 of the protected route is its 99th of 100 samples: 400, not the 900 of its worst request.
    ['external auth: latency the subrequest adds at p99', 'ms', 400 - 99, 99, 'plain route p99, same run', null, false],
  ]);
  assert.equal(notes.length, 1);
  assert.match(notes[0] ?? '', /^external auth: 100 \+ 100 requests interleaved .*plain p50\/p99 50\.000\/99\.000 ms, with auth 50\.500\/400\.000 ms; 0 failed; the auth service served 100 requests for 100 protected ones$/u);
});

test('addedLatencyRows: no value unless the run proves what it measured', () => {
  const valid: AuthLatencySamples = { plain: ramp(40), auth: ramp(40, 1), failed: 0, asked: 40 };
  const rows: { name: string; samples: AuthLatencySamples; why: RegExp | null }[] = [
    { name: 'every request 200, one subrequest each', samples: valid, why: null },
    { name: 'a request refused', samples: { ...valid, failed: 1 }, why: /^1 requests not answered 200$/u },
    { name: 'the auth service never asked (auth not applied)', samples: { ...valid, asked: 0 }, why: /served 0 requests for 40 protected/u },
    { name: 'the plain route asked too', samples: { ...valid, asked: 80 }, why: /served 80 requests for 40 protected/u },
    { name: 'the count could not be read', samples: { ...valid, asked: null }, why: /could not be read/u },
    { name: 'too few samples', samples: { plain: ramp(MIN_SAMPLES - 1), auth: ramp(MIN_SAMPLES - 1), failed: 0, asked: MIN_SAMPLES - 1 }, why: /^too few requests/u },
  ];
  for (const row of rows) {
    const why = invalidReason(row.samples);
    if (row.why === null) assert.equal(why, null, row.name);
    else assert.match(why ?? '', row.why, row.name);
    const { metrics, notes } = addedLatencyRows(row.samples);
    assert.deepEqual(metrics.map((m) => m.value === null), [row.why !== null, row.why !== null], `${row.name}: values`);
    assert.ok(metrics.every((m) => typeof m.reference === 'number'), `${row.name}: the plain route's figure is still shown`);
    assert.equal(/so the rows have no value$/u.test(notes[0] ?? ''), row.why !== null, `${row.name}: the note says why`);
  }
  assert.deepEqual(addedLatencyRows(valid).metrics.map((m) => m.value), [1, 1]);
});

test('authDistributions: each route at the chart\'s percentiles; none without samples', () => {
  const series = authDistributions({ plain: ramp(1000), auth: ramp(1000, 2), failed: 0, asked: 1000 });
  assert.deepEqual(series.map((s) => s.label), ['plain route', 'external auth']);
  // Nearest rank: p99.9 of 1,000 is the 999th or, as 0.999 × 1000 rounds up in floating point, the 1,000th.
  assert.deepEqual(series[0]?.points.slice(0, 5).map((p) => [p.percentile, p.ms]), [[50, 500], [75, 750], [90, 900], [95, 950], [99, 990]]);
  assert.ok(series[0]?.points[5]?.percentile === 99.9 && series[0].points[5].ms >= 999);
  assert.equal(series[1]?.points[0]?.ms, 502);
  assert.deepEqual(authDistributions({ plain: [], auth: [], failed: 0, asked: null }), []);
});

test('stubStatusRequests: the third number of NGINX\'s stub_status counts', () => {
  const page = 'Active connections: 2 \nserver accepts handled requests\n 17 17 4242 \nReading: 0 Writing: 1 Waiting: 1 \n';
  assert.equal(stubStatusRequests(page), 4242);
  assert.equal(stubStatusRequests('<html>404</html>'), null);
});

test('the bench model: the plain route as the proxy benchmark\'s, /protected the same Ingress with auth-url, rendered with auth_request there alone', () => {
  const peers = [{ address: '127.0.93.1', port: 81 }];
  const authUrl = 'http://127.0.93.2:81/auth';
  const { model } = buildProxyModel(peers, 'plain', protectedIngress(authUrl));
  const locations = model.servers.find((s) => s.hostname === BENCH_HOST)?.locations ?? [];
  const at = (path: string): (typeof locations)[number] | undefined => locations.find((l) => l.path === path);
  assert.equal(at('/')?.policy.externalAuth, undefined, 'the plain route has no auth');
  const { externalAuth, ...otherwise } = at(PROTECTED_PATH)?.policy ?? {};
  assert.deepEqual([externalAuth?.url?.host, externalAuth?.url?.port, externalAuth?.url?.path], ['127.0.93.2', 81, '/auth']);
  assert.deepEqual(at(PROTECTED_PATH)?.ingress, { namespace: 'bench', name: 'app-protected' });
  assert.deepEqual(otherwise, at('/')?.policy, 'the same annotations otherwise');
  const conf = renderConfig(model, goldenOptions()).conf;
  const server = conf.slice(conf.indexOf(`server_name "${BENCH_HOST}"`));
  // The fixture's api path is a regex: every location of the host is one (ingress-nginx's rule), in the order matched.
  const blocks = [...server.matchAll(/\n {8}location (\S+ "[^"]*") \{[\s\S]*?\n {8}\}/gu)].map((m) => [m[1], m[0]] as const);
  const authed = blocks.filter(([, text]) => text.includes('auth_request ')).map(([header]) => header);
  assert.deepEqual(authed, ['~* "^/protected/"', '~* "^/protected"'], 'auth_request in the protected locations alone');
  assert.ok(blocks.some(([header]) => header === '~* "^/"'), 'the plain route is there, without auth');
  assert.deepEqual(buildProxyModel(peers).model.servers.find((s) => s.hostname === BENCH_HOST)?.locations.map((l) => l.path),
    locations.filter((l) => !l.path.startsWith(PROTECTED_PATH)).map((l) => l.path), 'without `extra` the fixture is unchanged');
});
