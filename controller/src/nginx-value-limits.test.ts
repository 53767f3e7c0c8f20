/**
 * Values at NGINX's own limits. A value the model accepts but `nginx -t`
 * refuses would block every reload, so each parser's bounds must sit inside
 * NGINX's: the largest size, time and regex path the model takes are built
 * into one model, rendered and checked by the real `nginx -t`; just past each
 * bound the model refuses the value. The offset limits are shown to be
 * NGINX's exactly: `nginx -t` takes each one and refuses one more.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { V1Ingress } from '@kubernetes/client-node';
import { buildModel } from './model/build.ts';
import type { Feature, FeatureName } from './model/features/feature.ts';
import { proxyFeature } from './model/features/proxy.ts';
import { tlsSettingsFeature } from './model/features/tls-settings.ts';
import { nginxOffsetLimit } from './model/features/values.ts';
import { PCRE2_MAX_GROUP_NESTING } from './model/paths.ts';
import { ann, configMap, deepFreeze, ingress, options, path, rule, service, snapshot, svc } from './model/testdata/fixtures.ts';
import type { BuildResult } from './model/types.ts';
import { findDataplane } from './nginx/dataplane.ts';
import { renderConfig } from './render/render-config.ts';
import { assertNginxAccepts, materialize } from './render/testdata/golden-check.ts';
import { backend, DEFAULT_PROXY, goldenOptions, model, notFound, proxied, server } from './render/testdata/model-fixtures.ts';
import { checkConfig, makePrefix } from './render/testdata/nginx-runner.ts';

const CONFIG_MAP = 'ingress/resty-ingress';
const web = service('web', [{ port: 80 }]);

/** Whether the key of `feature` named `name` (annotation or ConfigMap key) takes `raw`. */
function takes<N extends FeatureName>(feature: Feature<N>, name: string, raw: string): boolean {
  const key = feature.keys.find((candidate) => candidate.annotation?.name === name || candidate.configKey === name);
  if (key === undefined) throw new Error(`${name} is no key of ${feature.name}`);
  return key.set({ ...feature.defaults }, raw) === null;
}

/** The largest whole number a key takes (binary search over 1..10^15: each key takes a range from its least). */
function largestTaken<N extends FeatureName>(feature: Feature<N>, name: string): number {
  let low = 1;
  let high = 1e15;
  assert.ok(takes(feature, name, String(low)), `${name} takes 1`);
  assert.ok(!takes(feature, name, String(high)), `${name} has a bound below 10^15`);
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (takes(feature, name, String(middle))) low = middle;
    else high = middle;
  }
  return low;
}

const TIMEOUTS = ['proxy-connect-timeout', 'proxy-read-timeout', 'proxy-send-timeout'];
const largestTimeout = Object.fromEntries(TIMEOUTS.map((name) => [name, largestTaken(proxyFeature, name)]));
const largestHstsAge = largestTaken(tlsSettingsFeature, 'hsts-max-age');

/** `depth` groups nested around `a`. */
function nested(depth: number): string {
  return `/${'('.repeat(depth)}a${')'.repeat(depth)}`;
}

/** Paths of exactly the longest length, of the constructs that cost PCRE2 the most compiled code per character. */
const COSTLY_REGEX_PATHS = [
  `/${'[^a]'.repeat(255)}aaa`,
  `/${'(a)'.repeat(341)}`,
  `/${'(?=a)'.repeat(204)}aaa`,
];

/** The largest body size the model takes before each unit (12 digits at most; g meets NGINX's own limit first). */
const LARGEST_BODY_SIZES = ['999999999999', '999999999999k', '999999999999M', '8589934591g'];

function extremeIngresses(): V1Ingress[] {
  const sizes = LARGEST_BODY_SIZES.map((size, index) => ingress(`size-${index}`, {
    annotations: { [ann('proxy-body-size')]: size },
    rules: [rule(`size-${index}.example`, path('/', svc('web', 80)))],
  }));
  const timeouts = ingress('timeouts', {
    annotations: Object.fromEntries(TIMEOUTS.map((name) => [ann(name), String(largestTimeout[name])])),
    rules: [rule('timeouts.example', path('/', svc('web', 80)))],
  });
  const regexPaths = [nested(PCRE2_MAX_GROUP_NESTING), ...COSTLY_REGEX_PATHS].map((value) => path(value, svc('web', 80), 'ImplementationSpecific'));
  const useRegex = ingress('use-regex', { annotations: { [ann('use-regex')]: 'true' }, rules: [rule('regex.example', ...regexPaths)] });
  // rewrite-target compiles each path a second time, in `rewrite "(?i)<path>"`.
  const rewrite = ingress('rewrite', { annotations: { [ann('rewrite-target')]: '/$1' }, rules: [rule('rewrite.example', ...regexPaths)] });
  return [...sizes, timeouts, useRegex, rewrite];
}

void describe('the largest values the model takes, through the real nginx -t', () => {
  void it('bounds found: every regex path of the longest length, timeouts and HSTS age', () => {
    for (const value of COSTLY_REGEX_PATHS) assert.equal(value.length, 1024);
    console.log(`largest timeouts ${JSON.stringify(largestTimeout)}, hsts-max-age ${largestHstsAge}`);
  });

  void it('Ingresses and the ConfigMap at every bound: no failure, and nginx -t accepts the config', async () => {
    const data = {
      'proxy-body-size': '8589934591G',
      'hsts-max-age': String(largestHstsAge),
      ...Object.fromEntries(TIMEOUTS.map((name) => [name, String(largestTimeout[name])])),
    };
    const result = buildModel(deepFreeze(snapshot({ ingresses: extremeIngresses(), services: [web], configMaps: [configMap(data)] })),
      options({ configMap: CONFIG_MAP }));
    assert.deepEqual(result.failures, []);
    const paths = result.model.servers.flatMap((entry) => entry.locations.map((location) => location.path));
    assert.ok(paths.includes(nested(PCRE2_MAX_GROUP_NESTING)), 'the deepest regex path is served');
    assert.equal(result.model.settings.proxy.bodySize, '8589934591G');
    const { conf } = renderConfig(result.model, goldenOptions());
    for (const size of LARGEST_BODY_SIZES) assert.ok(conf.includes(`client_max_body_size "${size}";`), size);
    assert.ok(conf.includes(`rewrite "(?i)${nested(PCRE2_MAX_GROUP_NESTING)}"`));
    await assertNginxAccepts(conf);
  });
});

/** One value just past a bound. */
interface OverRow {
  readonly name: string;
  readonly annotations?: Record<string, string>;
  readonly path?: string;
  /** What the failure's message says. */
  readonly says: RegExp;
}

const overRows: OverRow[] = [
  { name: 'proxy-body-size 8589934592g overflows NGINX\'s off_t', annotations: { 'proxy-body-size': '8589934592g' }, says: /at most 8589934591g/ },
  { name: 'proxy-body-size 8589934592G (either case)', annotations: { 'proxy-body-size': '8589934592G' }, says: /at most 8589934591G/ },
  { name: 'proxy-body-size of 13 digits', annotations: { 'proxy-body-size': '1000000000000' }, says: /at most 12 digits/ },
  ...TIMEOUTS.map((name) => ({ name: `${name} one past the largest`, annotations: { [name]: String(largestTimeout[name]! + 1) }, says: /seconds/ })),
  { name: `regex groups nested ${PCRE2_MAX_GROUP_NESTING + 1} deep`, path: nested(PCRE2_MAX_GROUP_NESTING + 1), says: /nest 251 deep; .*PCRE2\) allows at most 250/ },
];

function overIngress(row: OverRow): V1Ingress {
  const annotations = Object.fromEntries(Object.entries(row.annotations ?? { 'use-regex': 'true' }).map(([name, value]) => [ann(name), value]));
  return ingress('over', { annotations, rules: [rule('over.example', path(row.path ?? '/', svc('web', 80), row.path ? 'ImplementationSpecific' : 'Prefix'))] });
}

function servedPolicy(result: BuildResult): string {
  return JSON.stringify(result.model.servers.find((entry) => entry.hostname === 'over.example')?.locations.map((location) => [location.path, location.policy.proxy]) ?? []);
}

void describe('just past each bound the model refuses the value', () => {
  for (const row of overRows) {
    void it(row.name, () => {
      const result = buildModel(deepFreeze(snapshot({ ingresses: [overIngress(row)], services: [web] })), options());
      const said = result.failures.filter((failure) => row.says.test(failure.message));
      assert.equal(said.length, 1, JSON.stringify(result.failures));
      assert.deepEqual(said[0]?.ingress, { namespace: 'default', name: 'over' });
      // Refused or ignored, the value never reaches a location.
      const served = servedPolicy(result);
      for (const value of Object.values(row.annotations ?? {})) assert.ok(!served.includes(value), served);
      if (row.path !== undefined) assert.ok(!served.includes(row.path.slice(0, 20)), served);
    });
  }
});

/** Fails unless the real `nginx -t` refuses `conf` with a message matching `says`. */
async function assertNginxRefuses(conf: string, says: RegExp): Promise<void> {
  const prefix = makePrefix();
  try {
    await assert.rejects(checkConfig(findDataplane(), prefix, materialize(conf, findDataplane(), prefix)), says);
  } finally {
    rmSync(prefix, { recursive: true, force: true });
  }
}

function bodySizeConf(sizes: readonly string[]): string {
  const app = backend('default-web-80');
  const locations = sizes.map((bodySize, index) => proxied(`/size-${index}`, 'prefix', app.name, { policy: { proxy: { ...DEFAULT_PROXY, bodySize } } }));
  return renderConfig(model([server('_', [notFound('/')]), server('sizes.test', locations)], [app]), goldenOptions()).conf;
}

void describe('NGINX offset limits are NGINX\'s exactly', () => {
  const units = ['', 'k', 'm', 'g'];
  void it('nginx -t takes the limit of every unit', async () => {
    await assertNginxAccepts(bodySizeConf(units.map((unit) => `${nginxOffsetLimit(unit)}${unit}`)));
  });
  for (const unit of units) {
    void it(`nginx -t refuses one more than the limit${unit === '' ? ' in bytes' : ` in ${unit}`}`, async () => {
      const over = `${nginxOffsetLimit(unit) + 1n}${unit}`;
      await assertNginxRefuses(bodySizeConf([over]), new RegExp(`"client_max_body_size" directive invalid value`));
    });
  }
});
