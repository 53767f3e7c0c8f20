// Properties of buildModel over generated clusters (testdata/cluster-arbitrary.ts):
// every user-controlled field (annotations of every feature key, unknown and
// mistyped names, ConfigMap keys, hosts, paths of every pathType, names,
// Service ports, EndpointSlice addresses, TLS Secrets) from its own grammar
// mixed with hostile strings. Whatever comes in:
// - buildModel returns (no throw, no InternalError: the per-Ingress guard
//   would hide a crash as a failure), every failure is one line of at most
//   200 characters;
// - every user string in the model passed its validator: hosts, paths,
//   backend names, route keys and endpoints re-check as the builder checked
//   them, and a character that could leave an NGINX token (control, quote,
//   backslash, `;{}`, whitespace) is found only in the fields that may hold it
//   and never reach nginx.conf unquoted (canary header values, certificate
//   PEMs, the log format, which render single-quotes; CORS header lists with
//   their spaces and block-list patterns with spaces, `;` and regex escapes,
//   which render double-quotes through their own filters).
// render/properties.test.ts renders the accepted models; lua/body-properties.test.ts
// pushes their dynamic parts. The seed is printed; replay with FC_SEED=<seed>.
import { strict as assert } from 'node:assert';
import { isIPv4, isIPv6 } from 'node:net';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { buildModel } from './build.ts';
import { parseCacheKey } from './features/external-auth-cache.ts';
import { headerValueProblem } from './header-configmaps.ts';
import { ANNOTATION_NAMES, CONFIG_KEY_NAMES, KEY_VALUES, valuesOf } from './testdata/field-values.ts';
import { clusterArbitrary, countUserValues, type Cluster } from './testdata/cluster-arbitrary.ts';
import { makeTlsPool } from './testdata/tls-pool.ts';
import { CATCH_ALL_HOST, checkRuleHost } from './names.ts';
import { resolvePath } from './paths.ts';
import type { Failure, Location, Model } from './types.ts';
import { checkSnippet } from './features/snippet-rules.ts';

const seed = process.env.FC_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.FC_SEED);
console.log(`fast-check seed ${seed} (replay: FC_SEED=${seed} node --test controller/src/model/properties.test.ts)`);
const RUNS = 600;

/**
 * Where a string may hold characters that would leave an NGINX token: canary splits, a backend's
 * hash key, certificates, client CAs, auth-tls-match-cn and basic/digest users and realms are
 * data for Lua (JSON, never nginx.conf; the realm has its own grammar, features/basic-auth.ts),
 * the log format is single-quoted by render. A hash key is checked against its own
 * grammar instead (HASH_BY).
 */
const FREE_TEXT = new RegExp('^(?:tls\\.certificates\\[\\d+\\]\\.(?:cert|key)|settings\\.accessLog\\.format|routes\\[\\d+\\]\\.canary\\.\\w+|backends\\[\\d+\\]\\.hash\\.by'
  + '|tls\\.clientAuth\\.(?:cas\\[\\d+\\]\\.pem|hosts\\[\\d+\\]\\.matchCn)|servers\\[\\d+\\]\\.locations\\[\\d+\\]\\.policy\\.clientCerts\\.matchCn'
  + '|credentials\\[\\d+\\]\\.(?:realm|users\\..*)|(?:servers\\[\\d+\\]\\.locations\\[\\d+\\]\\.policy|settings)\\.basicAuth\\.realm'
  + '|(?:settings|servers\\[\\d+\\]\\.locations\\[\\d+\\]\\.policy)\\.(?:cors\\.(?:allowMethods|allowHeaders|exposeHeaders)|accessControl\\.block(?:UserAgents|Referers)\\[\\d+\\]\\.value))$', 'u');
/** The lines of a snippet (features/snippets.ts). */
const SNIPPET_LINE = /^(?:settings|servers\[\d+\]\.locations\[\d+\]\.policy)\.snippets\.\w+\[\d+\]$/u;
/** upstream-hash-by as Lua parses it (lua/resty_ingress/chash.lua parse_key). */
const HASH_BY = /^(?:\$\{[A-Za-z0-9_]+\}|\$[A-Za-z0-9_]+(?![A-Za-z0-9_])|[A-Za-z0-9_-])+$/u;
// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const LEAVES_TOKEN = /[\u0000-\u0020\u007f"'\\;{}]/u;

/** Every string of `value` with its JSON path. */
function* strings(value: unknown, at: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [at, value];
  else if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* strings(item, `${at}[${i}]`);
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) yield* strings(item, at === '' ? key : `${at}.${key}`);
}

function assertFailureShape(failure: Failure): void {
  assert.notEqual(failure.reason, 'InternalError', `the builder crashed on an Ingress: ${failure.message}`);
  // eslint-disable-next-line no-control-regex -- a line break or control character would split a log line or an Event
  for (const text of [failure.message, failure.field, failure.reason]) assert.doesNotMatch(text, /[\u0000-\u001f\u007f\u2028\u2029]/u);
  assert.ok(failure.message.length <= 200, `message of ${failure.message.length} characters: ${failure.message}`);
  assert.ok(failure.message.length > 0);
}

const PATH_TYPE = { exact: 'Exact', prefix: 'Prefix', regex: 'ImplementationSpecific' } as const;

function assertLocationValid(hostname: string, location: Location): void {
  const path = resolvePath(location.path, PATH_TYPE[location.match], location.match === 'regex');
  assert.ok(path.ok && path.value.path === location.path && path.value.match === location.match, `path ${JSON.stringify(location.path)} on ${hostname} does not re-validate`);
  if (location.route.kind !== 'backend') return;
  assert.match(location.route.backend, /^[A-Za-z0-9._-]{1,253}$/u);
  const words = location.route.key.split(' ');
  assert.equal(words.length, 7, `route key ${JSON.stringify(location.route.key)}`);
  assert.equal(words[1], location.route.backend);
  assert.equal(words[6], location.path.replaceAll('$', '`'));
}

function assertModelValid(model: Model): void {
  for (const server of model.servers) {
    const host = checkRuleHost(server.hostname);
    assert.ok(server.hostname === CATCH_ALL_HOST || (host.ok && host.value === server.hostname), `server ${JSON.stringify(server.hostname)}`);
    for (const location of server.locations) assertLocationValid(server.hostname, location);
  }
  for (const backend of model.backends) {
    assert.match(backend.name, /^[A-Za-z0-9._-]{1,253}$/u);
    for (const endpoint of backend.endpoints) {
      assert.ok(isIPv4(endpoint.address) || (isIPv6(endpoint.address) && !endpoint.address.includes('%')), `endpoint ${JSON.stringify(endpoint.address)}`);
      assert.ok(Number.isInteger(endpoint.port) && endpoint.port >= 1 && endpoint.port <= 65535);
    }
    if (backend.hash !== null) {
      assert.ok(HASH_BY.test(backend.hash.by) && backend.hash.by.length <= 256, `hash.by ${JSON.stringify(backend.hash.by)}`);
      const size = backend.hash.subsetSize;
      assert.ok(size === null || (Number.isInteger(size) && size >= 1 && size <= 1000), `hash.subsetSize ${size}`);
    }
  }
  for (const [at, text] of strings(model, '')) {
    // A snippet's lines are NGINX text by design: they must be what the snippet rules print (below).
    // The word blocklist is compared with annotation values, never rendered.
    if (SNIPPET_LINE.test(at) || /^settings\.safety\.wordBlocklist\[\d+\]$/u.test(at)) continue;
    // A route key is seven words (checked above), an auth-cache-duration line `[code …] <time>`
    // (re-parsed by render/external-auth-view.ts): each word must stay inside the token.
    const words = at.endsWith('.key') || /\.externalAuth\.cacheDuration\[\d+\]$/u.test(at) ? text.split(' ') : [text];
    // An auth-cache-key may write `${name}` (render quotes it): it must re-parse to itself instead.
    if (/\.externalAuth\.cacheKey$/u.test(at)) {
      const key = parseCacheKey(text);
      assert.ok(key.ok && key.value === text, `${at} = ${JSON.stringify(text)} does not re-validate`);
      continue;
    }
    // A proxy-set-headers / add-headers value may hold spaces, `;`, `'` and `${name}` (render quotes it with qheader): it must re-check instead.
    if (/^settings\.headerSettings\.(?:proxySetHeaders|addHeaders)\[\d+\]\[1\]$/u.test(at)) {
      assert.equal(headerValueProblem(text), null, `${at} = ${JSON.stringify(text)} does not re-validate`);
      continue;
    }
    if (!FREE_TEXT.test(at)) for (const word of words) assert.doesNotMatch(word, LEAVES_TOKEN, `${at} = ${JSON.stringify(text)}`);
  }
  const snippetConfigs = [model.settings.snippets, ...model.servers.flatMap((server) => server.locations.map((location) => location.policy.snippets))];
  for (const config of snippetConfigs) {
    for (const lines of Object.values(config ?? {})) {
      const checked = checkSnippet(lines.join('\n'));
      assert.ok(checked.ok && JSON.stringify(checked.value) === JSON.stringify(lines), `snippet lines the rules do not print: ${JSON.stringify(lines)}`);
    }
  }
}

void describe('buildModel over generated clusters', () => {
  void it('has values for every annotation and ConfigMap key the features declare, and for no other', () => {
    for (const name of [...ANNOTATION_NAMES, ...CONFIG_KEY_NAMES]) assert.doesNotThrow(() => valuesOf(name), name);
    assert.deepEqual(Object.keys(KEY_VALUES).filter((name) => !ANNOTATION_NAMES.includes(name) && !CONFIG_KEY_NAMES.includes(name)), []);
  });

  void it(`${RUNS} clusters: never throws, failures are short single lines, every user string in the model re-validates`, (t) => {
    const pool = makeTlsPool();
    let values = 0;
    let locations = 0;
    let refused = 0;
    fc.assert(fc.property(clusterArbitrary(pool), (cluster: Cluster) => {
      const { model, failures } = buildModel(cluster.snapshot, cluster.options);
      failures.forEach(assertFailureShape);
      assertModelValid(model);
      values += countUserValues(cluster);
      locations += model.servers.reduce((sum, server) => sum + server.locations.filter((l) => l.ingress !== null).length, 0);
      refused += failures.filter((f) => f.warning !== true).length;
    }), { numRuns: RUNS, seed });
    t.diagnostic(`${values} user values, ${locations} Ingress locations accepted, ${refused} refusals`);
    // The generators must reach both sides: a cluster that never builds proves nothing about what is built.
    assert.ok(values >= 10_000, `only ${values} generated values`);
    assert.ok(locations >= RUNS && refused >= RUNS, `too one-sided: ${locations} locations accepted, ${refused} refusals`);
  });
});
