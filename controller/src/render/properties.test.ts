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
  'server', 'proxy_pass', 'proxy_set_header', 'proxy_ssl_name',
  // CORS (features/cors.njk): the origin regex and the header lists.
  'add_header', 'if',
  // auth-response-headers (render/external-auth-view.ts): the auth answer's header, as its $upstream_http_ variable.
  'auth_request_set', 'proxy_cache_key',
  // Proxy tuning (features/proxy-rewrites.njk, proxy-tuning-http.njk): Set-Cookie and Location rewriting words.
  'proxy_redirect', 'proxy_cookie_domain', 'proxy_cookie_path',
  // forwarded-for-header (features/client-address-http.njk): realip's header name.
  'real_ip_header',
  // proxy-set-headers, hide-headers (render/header-settings-view.ts): header names and values.
  'grpc_set_header', 'proxy_hide_header']);
/** forwarded-for-/forwarded-host-header: a map's source and default value are exactly `$http_<name>` (render/client-address-view.ts). */
const HEADER_VARIABLE = /^\$http_[a-z0-9_]{1,64}$/u;
/** Redirects (features/redirect.njk, server.njk): a `return <3xx>` whose target holds a parsed URL or app-root's path. */
const REDIRECT_CODE = /^30[0-8]$/u;
/**
 * The client-certificate check is a server-level rewrite_by_lua that every location inherits
 * (features/client-certs-server.njk): a location with a rewrite_by_lua of its own replaces it, so
 * it must run the check first (location.njk), or serve that path unverified. Named locations are
 * reached only from a location that ran it. NGINX allows one block per phase and location.
 */
function assertClientCertCheckInherited(conf: string): void {
  for (const location of conf.split(/\n {8}location /u).slice(1)) {
    const body = location.slice(0, location.indexOf('\n        }'));
    for (const phase of ['rewrite_by_lua_block', 'access_by_lua_block']) {
      assert.ok(body.split(phase).length <= 2, `one ${phase} per location:\n${body.slice(0, 400)}`);
    }
  }
  for (const server of conf.split(/\n {4}server \{\n/u).slice(1)) {
    if (!server.includes('resty_ingress.client_cert(')) continue;
    const unnamed = server.split(/\n {8}location /u).slice(1).filter((location) => !location.startsWith('@') && !location.startsWith('"@'));
    const without = unnamed.flatMap((location) => [...location.matchAll(/rewrite_by_lua_block \{([^\n]*)\}/gu)])
      .filter((m) => !(m[1] ?? '').trimStart().startsWith('resty_ingress.client_cert('));
    assert.deepEqual(without.map((m) => m[0]), [], `a location of a client-certificate server skips the check:\n${server.slice(0, 400)}`);
  }
}

/** Lua blocks whose string literals may carry a backend name, a host (client certificates' server name) or (basic/digest auth) the location's route key. */
const USER_VALUE_LUA = new Set(['log_by_lua_block', 'rewrite_by_lua_block', 'ssl_certificate_by_lua_block', 'access_by_lua_block']);

/** `set $resty_limit_key` takes exactly these (render/rate-limit-view.ts). */
const RATE_LIMIT_KEY = /^(?:[0-9a-f]{12}\$binary_remote_addr|\$resty_limit_[0-9a-f]{12})$/u;

/** Checks every marker of `conf`; returns how many it found. */
function assertUserValuesQuoted(conf: string): number {
  const tokens = tokenizeConf(conf);
  let found = 0;
  for (let at = conf.indexOf(MARKER); at >= 0; at = conf.indexOf(MARKER, at + 1)) {
    found++;
    const token = tokenAt(tokens, at);
    const where = JSON.stringify(conf.slice(Math.max(0, at - 60), at + 60));
    assert.ok(token !== null, `a user value outside any token (a comment, or between tokens): ${where}`);
    // The key of a `map` entry (block-user-agents, block-referers) is the entry's first token; a regex
    // key keeps its backslashes (the qpattern filter allows only those NGINX does not rewrite).
    const mapKey = token.block === 'map' && token.index === 0 && !token.lua;
    const headerVariable = ((token.directive === 'map' && token.index === 1) || (token.block === 'map' && token.directive === 'default' && token.index === 1))
      && HEADER_VARIABLE.test(token.text);
    assert.ok(token.quote !== null, `a user value in a bare word of ${token.directive}: ${where}`);
    assert.ok(token.index > 0 || mapKey, `a user value as a directive name: ${where}`);
    const redirect = token.directive === 'return' && token.index === 2 && REDIRECT_CODE.test(tokens[tokens.indexOf(token) - 1]?.text ?? '');
    assert.ok(token.lua ? USER_VALUE_LUA.has(token.directive) : mapKey || headerVariable || redirect || USER_VALUE_DIRECTIVES.has(token.directive), `a user value in ${token.directive}: ${where}`);
    assert.ok(token.quote === '"' || token.directive === 'log_format', `a single-quoted user value in ${token.directive}: ${where}`);
    assert.ok(mapKey || !conf.slice(token.start, token.end).includes('\\'), `an escape in a token with a user value: ${where}`);
  }
  tokens.forEach((token, i) => {
    if (token.directive !== 'set' || token.index !== 2) return;
    // The one set with variables: the rate limits' key, an Ingress id (hex) and the client address (render/rate-limit-view.ts).
    if (tokens[i - 1]?.text === '$resty_limit_key' && RATE_LIMIT_KEY.test(token.text)) return;
    assert.ok(!token.text.includes('$'), `set value with a variable: ${JSON.stringify(token.text)}`);
  });
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
    ['a directive nobody gives user values', `root "${MARKER}";`],
    ['a return that is no redirect', `return 200 "${MARKER}";`],
    ['a quote broken out of', `server_name "a"; return 200 "${MARKER}";`],
    ['a directive name', `"${MARKER}" "a";`],
    ['an escaped quote', `server_name "a\\"${MARKER}";`],
    ['single quotes outside log_format', `server_name '${MARKER}';`],
    ['a Lua block', `content_by_lua_block { ngx.say("${MARKER}") }`],
    ['a variable in a set value', 'set $resty_route "a $host";'],
    ['a variable in the rate limit key but another', 'set $resty_limit_key "0123456789ab$host";'],
    ['the rate limit key\'s form in another variable', 'set $resty_route "0123456789ab$binary_remote_addr";'],
    ['a map\'s default that is not a header variable', `map $a $b { default "$http_${MARKER} x"; }`],
    ['a header variable\'s form in a map entry other than default', `map $a $b { x "$http_${MARKER}"; }`],
  ];
  for (const [name, conf] of refusedRows) {
    void it(`the check catches a user value in ${name}`, () => {
      assert.throws(() => assertUserValuesQuoted(`http {\n  server {\n    ${conf}\n  }\n}\n`), assert.AssertionError);
    });
  }

  void it(`${RUNS} clusters: a server checking client certificates has no location with an access phase of its own`, () => {
    fc.assert(fc.property(clusterArbitrary(pool), (cluster: Cluster) => {
      const { conf } = renderer.render(buildModel(cluster.snapshot, cluster.options).model);
      assertClientCertCheckInherited(conf);
    }), { numRuns: RUNS, seed });
  });

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
      await assertNginxAccepts(renderer.render(model).conf, model);
      values += countUserValues(cluster);
      locations += ingressLocations(model);
    }), { numRuns: NGINX_RUNS, seed, maxSkipsPerRun: 20, ...SHRINK_BOUND });
    t.diagnostic(`nginx -t on ${NGINX_RUNS} confs: ${values} user values, ${locations} Ingress locations`);
  });
});
