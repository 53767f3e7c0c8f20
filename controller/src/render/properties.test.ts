// Properties of rendering whatever the model accepts, over generated clusters
// (model/testdata/cluster-arbitrary.ts: every user-controlled field from its
// grammar mixed with hostile strings, a marker planted wherever a grammar
// allows letters):
// - render never refuses an accepted model (a RenderError would stop every
//   reload, everyone's);
// - no user value appears outside a validated token: each occurrence of the
//   marker in nginx.conf, read as NGINX reads it (testdata/conf-tokens.ts),
//   sits in a quoted argument (never a directive name, a bare word or a
//   comment) of a directive that is meant to carry user values, written
//   without escapes (the quoting filters refuse `"` and `\`, so an escape
//   means something else produced it); single quotes only in log_format;
//   inside a Lua block only as a string literal of the EWMA log call; and
//   no `set` value carries a `$` (NGINX would expand it);
// - on a sample each run, the real `nginx -t` accepts the conf of a larger
//   generated cluster (a value NGINX refuses stops all reloads).
// The seed is printed; replay with FC_SEED=<seed>. About 10 s (shrinking a
// failure runs nginx -t again for each step: a minute or so).
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { buildModel } from '../model/build.ts';
import { clusterArbitrary, countUserValues, DENSE, type Cluster } from '../model/testdata/cluster-arbitrary.ts';
import { makeTlsPool, type TlsPool } from '../model/testdata/tls-pool.ts';
import { MARKER } from '../model/testdata/hostile-values.ts';
import type { Model } from '../model/types.ts';
import { createConfigRenderer, type ConfigRenderer } from './render-config.ts';
import { tokenizeConf, tokenAt } from './testdata/conf-tokens.ts';
import { assertNginxAccepts } from './testdata/golden-check.ts';
import { goldenOptions, TEMPLATE_DIR } from './testdata/model-fixtures.ts';

const seed = process.env.FC_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.FC_SEED);
console.log(`fast-check seed ${seed} (replay: FC_SEED=${seed} node --test controller/src/render/properties.test.ts)`);
const RUNS = 500;
const NGINX_RUNS = 40;
/** Shrinking a failure runs nginx -t at each step: bounded, it reports the smallest counterexample found by then. */
const SHRINK_BOUND = { interruptAfterTimeLimit: 120_000, markInterruptAsFailure: true } as const;

/** The directives whose quoted arguments carry validated user values (hosts, paths, names, route keys, targets, ConfigMap settings). */
const USER_VALUE_DIRECTIVES = new Set(['server_name', 'location', 'set', 'rewrite', 'client_max_body_size', 'ssl_ciphers', 'ssl_protocols', 'log_format', 'error_page',
  // mirror-target and mirror-host (render/mirror-view.ts): the upstream's address, the copy's URL, Host and TLS name.
  'server', 'proxy_pass', 'proxy_set_header', 'proxy_ssl_name']);
/** Lua blocks whose string literals may carry a backend name, or (access: basic/digest auth) the location's route key. */
const USER_VALUE_LUA = new Set(['log_by_lua_block', 'rewrite_by_lua_block', 'access_by_lua_block']);

/** Checks every marker of `conf`; returns how many it found. */
function assertUserValuesQuoted(conf: string): number {
  const tokens = tokenizeConf(conf);
  let found = 0;
  for (let at = conf.indexOf(MARKER); at >= 0; at = conf.indexOf(MARKER, at + 1)) {
    found++;
    const token = tokenAt(tokens, at);
    const where = JSON.stringify(conf.slice(Math.max(0, at - 60), at + 60));
    assert.ok(token !== null, `a user value outside any token (a comment, or between tokens): ${where}`);
    assert.ok(token.quote !== null, `a user value in a bare word of ${token.directive}: ${where}`);
    assert.ok(token.index > 0, `a user value as a directive name: ${where}`);
    assert.ok(token.lua ? USER_VALUE_LUA.has(token.directive) : USER_VALUE_DIRECTIVES.has(token.directive), `a user value in ${token.directive}: ${where}`);
    assert.ok(token.quote === '"' || token.directive === 'log_format', `a single-quoted user value in ${token.directive}: ${where}`);
    assert.ok(!conf.slice(token.start, token.end).includes('\\'), `an escape in a token with a user value: ${where}`);
  }
  for (const token of tokens) {
    if (token.directive === 'set' && token.index === 2) assert.ok(!token.text.includes('$'), `set value with a variable: ${JSON.stringify(token.text)}`);
  }
  return found;
}

function ingressLocations(model: Model): number {
  return model.servers.reduce((sum, server) => sum + server.locations.filter((l) => l.ingress !== null).length, 0);
}

void describe('rendering generated clusters', () => {
  let pool: TlsPool;
  let renderer: ConfigRenderer;
  before(() => {
    pool = makeTlsPool();
    renderer = createConfigRenderer(goldenOptions());
  });

  void it('the templates do not contain the marker (every one found in a conf came from a user)', () => {
    const templates = readdirSync(TEMPLATE_DIR, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.njk'));
    assert.ok(templates.length > 5);
    for (const name of templates) assert.ok(!readFileSync(join(TEMPLATE_DIR, name), 'utf8').toLowerCase().includes(MARKER), name);
  });

  const refusedRows: ReadonlyArray<[string, string]> = [
    ['a bare word', `server_name ${MARKER}.example;`],
    ['a comment', `server_name "a"; # ${MARKER}`],
    ['a directive nobody gives user values', `return 302 "https://${MARKER}";`],
    ['a quote broken out of', `server_name "a"; return 200 "${MARKER}";`],
    ['a directive name', `"${MARKER}" "a";`],
    ['an escaped quote', `server_name "a\\"${MARKER}";`],
    ['single quotes outside log_format', `server_name '${MARKER}';`],
    ['a Lua block', `content_by_lua_block { ngx.say("${MARKER}") }`],
    ['a variable in a set value', 'set $resty_route "a $host";'],
  ];
  for (const [name, conf] of refusedRows) {
    void it(`the check catches a user value in ${name}`, () => {
      assert.throws(() => assertUserValuesQuoted(`http {\n  server {\n    ${conf}\n  }\n}\n`), assert.AssertionError);
    });
  }

  void it(`${RUNS} clusters: render accepts every accepted model and every user value stays inside a validated token`, (t) => {
    let values = 0;
    let markers = 0;
    let locations = 0;
    fc.assert(fc.property(clusterArbitrary(pool), (cluster: Cluster) => {
      const { model } = buildModel(cluster.snapshot, cluster.options);
      const { conf } = renderer.render(model);
      markers += assertUserValuesQuoted(conf);
      values += countUserValues(cluster);
      locations += ingressLocations(model);
    }), { numRuns: RUNS, seed });
    t.diagnostic(`${values} user values, ${locations} Ingress locations rendered, ${markers} user values found in quoted tokens`);
    assert.ok(markers >= RUNS, `only ${markers} planted values reached nginx.conf: the check saw too little`);
  });

  void it(`${NGINX_RUNS} dense clusters (every ConfigMap key set): the real nginx -t accepts the conf of every accepted model`, async (t) => {
    let values = 0;
    let locations = 0;
    await fc.assert(fc.asyncProperty(clusterArbitrary(pool, DENSE), async (cluster: Cluster) => {
      const { model } = buildModel(cluster.snapshot, cluster.options);
      fc.pre(ingressLocations(model) > 0);
      await assertNginxAccepts(renderer.render(model).conf);
      values += countUserValues(cluster);
      locations += ingressLocations(model);
    }), { numRuns: NGINX_RUNS, seed, maxSkipsPerRun: 20, ...SHRINK_BOUND });
    t.diagnostic(`nginx -t on ${NGINX_RUNS} confs: ${values} user values, ${locations} Ingress locations`);
  });
});
