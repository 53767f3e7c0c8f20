// What custom-http-errors, disable-proxy-intercept-errors and default-backend print
// (features/custom-errors*.njk, render/error-pages.ts): each row renders a small model
// and names the directives its server must and must not have; every rendered conf goes
// through the real `nginx -t` (an error_page to a named location nobody defined is only
// found at run time, so the rows also check that each one is defined in its server).
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { CustomErrorsConfig, Location, Model } from '../model/types.ts';
import { renderConfig } from './render-config.ts';
import { assertNginxAccepts } from './testdata/golden-check.ts';
import { backend, DEFAULT_SETTINGS, goldenOptions, model, notFound, proxied, server } from './testdata/model-fixtures.ts';

const NONE: CustomErrorsConfig = { codes: [], interceptDisabled: false, defaultService: null, backend: null };
const APP = backend('default-app');
const ERRORS = backend('default-errors');
const GLOBAL = backend('ingress-global');

function own(config: Partial<CustomErrorsConfig>, extra: { rewrite?: boolean } = {}): Location {
  const policy = { customErrors: { ...NONE, ...config }, ...(extra.rewrite ? { rewrite: { target: '/$1', useRegex: false } } : {}) };
  return proxied(extra.rewrite ? '/api/(.*)' : '/', extra.rewrite ? 'regex' : 'prefix', APP.name, { policy });
}

function withGlobal(config: Partial<CustomErrorsConfig>): Model['settings'] {
  return { ...DEFAULT_SETTINGS, customErrors: { ...NONE, ...config } };
}

/** The text of server `hostname`'s block. */
function serverBlock(conf: string, hostname: string): string {
  const start = conf.indexOf(`server_name "${hostname}";`);
  assert.ok(start >= 0, `server ${hostname} rendered`);
  const end = conf.indexOf('\n    }\n', start);
  return conf.slice(start, end);
}

const rows: { name: string; locations: Location[]; settings?: Model['settings']; has: string[]; lacks: string[] }[] = [
  {
    name: 'custom-http-errors with default-backend: its pages proxy to it, the route falls back to it',
    locations: [own({ codes: [404, 503], defaultService: 'errors', backend: ERRORS.name })],
    has: [
      'rewrite_by_lua_block { resty_ingress.default_backend("default-errors") }', 'proxy_intercept_errors on;',
      'error_page 404 = "@custom_default-errors_404";', 'error_page 503 = "@custom_default-errors_503";',
      'location "@custom_default-errors_404" {', 'rewrite_by_lua_block { resty_ingress.error_page(404, "default-errors") }',
      'set $proxy_upstream_name "default-errors";', 'rewrite (.*) / break;', 'location "@custom_default-errors_503" {',
    ],
    lacks: ['proxy_set_header', 'return 404;'],
  },
  {
    name: 'with --default-backend-service too: Lua takes it while the default-backend has no endpoints',
    locations: [own({ codes: [404], defaultService: 'errors', backend: ERRORS.name })], settings: withGlobal({ backend: GLOBAL.name }),
    has: ['rewrite_by_lua_block { resty_ingress.error_page(404, "default-errors", "ingress-global") }'],
    lacks: ['@custom_ingress-global_404'],
  },
  {
    name: 'custom-http-errors without any default backend: NGINX answers 404 in the named location',
    locations: [own({ codes: [502] })],
    has: ['error_page 502 = "@custom_default_502";', 'location "@custom_default_502" {\n            internal;\n            return 404;'],
    lacks: ['resty_ingress.default_backend', 'resty_ingress.error_page'],
  },
  {
    name: 'custom-http-errors without its own default-backend: --default-backend-service takes them',
    locations: [own({ codes: [404] })], settings: withGlobal({ backend: GLOBAL.name }),
    has: ['error_page 404 = "@custom_ingress-global_404";', 'resty_ingress.error_page(404, "ingress-global")'],
    lacks: ['resty_ingress.default_backend'],
  },
  {
    name: 'default-backend alone: the fallback, no pages',
    locations: [own({ defaultService: 'errors', backend: ERRORS.name })],
    has: ['resty_ingress.default_backend("default-errors")'], lacks: ['error_page', 'proxy_intercept_errors', '@custom_'],
  },
  {
    name: 'disable-proxy-intercept-errors: the pages stay, the backend\'s own errors pass',
    locations: [own({ codes: [404], interceptDisabled: true, backend: ERRORS.name })],
    has: ['proxy_intercept_errors off;', 'error_page 404 = "@custom_default-errors_404";', 'location "@custom_default-errors_404" {'],
    lacks: ['proxy_intercept_errors on;'],
  },
  {
    name: 'the ConfigMap\'s codes: server-level, inherited by locations without their own (the 404 of NGINX too)',
    locations: [proxied('/', 'prefix', APP.name), notFound('/static')], settings: withGlobal({ codes: [404, 503], backend: GLOBAL.name }),
    has: [
      'proxy_intercept_errors on;\n        error_page 404 = "@custom_ingress-global_404";\n        error_page 503 = "@custom_ingress-global_503";',
      'location "@custom_ingress-global_404" {', 'location "@custom_ingress-global_503" {',
      'resty_ingress.error_page(404, "ingress-global") }',
    ],
    lacks: ['            error_page', 'resty_ingress.default_backend'],
  },
  {
    name: 'the ConfigMap\'s disable-proxy-intercept-errors: its pages without interception',
    locations: [proxied('/', 'prefix', APP.name)], settings: withGlobal({ codes: [404], interceptDisabled: true, backend: GLOBAL.name }),
    has: ['error_page 404 = "@custom_ingress-global_404";'], lacks: ['proxy_intercept_errors on;'],
  },
  {
    name: 'an Ingress\'s codes replace the ConfigMap\'s in its locations; the server keeps both sets of pages',
    locations: [own({ codes: [500], backend: ERRORS.name })], settings: withGlobal({ codes: [404], backend: GLOBAL.name }),
    has: [
      '            proxy_intercept_errors on;\n            error_page 500 = "@custom_default-errors_500";',
      'location "@custom_default-errors_500" {', 'location "@custom_ingress-global_404" {',
    ],
    lacks: ['            error_page 404'],
  },
  {
    name: 'ssl-redirect with rewrite-target: its own error_page 500 would drop the ConfigMap\'s, so they are repeated, without 500',
    locations: [proxied('/api/(.*)', 'regex', APP.name, { policy: { rewrite: { target: '/$1', useRegex: false } } })],
    settings: withGlobal({ codes: [404, 500], backend: GLOBAL.name }),
    has: ['            error_page 404 = "@custom_ingress-global_404";\n', 'error_page 500 = @resty_unbalanced_https;'],
    lacks: ['            error_page 500 = "@custom_'],
  },
];

void describe('custom errors: rendered', () => {
  for (const row of rows) {
    void it(row.name, async () => {
      const settings = row.settings ?? DEFAULT_SETTINGS;
      const conf = renderConfig(model([server('shop.test', row.locations)], [APP, ERRORS, GLOBAL], settings), goldenOptions()).conf;
      const block = row.locations.some((l) => l.path === '/') ? serverBlock(conf, 'shop.test') : conf;
      for (const text of row.has) assert.ok(block.includes(text), `has ${JSON.stringify(text)}`);
      for (const text of row.lacks) assert.ok(!block.includes(text), `lacks ${JSON.stringify(text)}`);
      for (const [, hostname = ''] of conf.matchAll(/server_name "([^"]+)";/gu)) {
        const each = serverBlock(conf, hostname);
        for (const [, target] of each.matchAll(/error_page \d+ = "(@custom_[^"]+)";/gu)) {
          assert.ok(each.includes(`location "${target}" {`), `${target} is defined in server ${hostname}`);
        }
      }
      await assertNginxAccepts(conf);
    });
  }
});
