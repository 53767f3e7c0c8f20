// What the redirect feature prints, and that real `nginx -t` takes it: the `return` of
// permanent-/temporal-redirect (temporal first, its parts only), absolute_redirect and
// port_in_redirect, app-root's server-level `if`, and the HTTPS redirect's shape per location
// (no port unless use-port-in-redirects, trailing slash dropped unless preserve-trailing-slash),
// including the named location a location of another style than the ConfigMap's redirects through.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { Model, RedirectConfig, RedirectTarget } from '../model/types.ts';
import { redirectFeature } from '../model/features/redirect.ts';
import { RenderError } from './nginx-values.ts';
import { renderConfig } from './render-config.ts';
import { assertNginxAccepts } from './testdata/golden-check.ts';
import { backend, DEFAULT_SETTINGS, goldenOptions, model, notFound, proxied, server } from './testdata/model-fixtures.ts';

const APP = backend('default-app');
const GOOGLE: RedirectTarget = { scheme: 'https', host: 'www.google.com', port: null, path: '', query: null };
const PATH: RedirectTarget = { scheme: null, host: null, port: null, path: '/new-location', query: 'a=1' };

function redirect(config: Partial<RedirectConfig>): RedirectConfig {
  return { ...redirectFeature.defaults, ...config };
}

function site(config: Partial<RedirectConfig> | null, settings: Model['settings'] = DEFAULT_SETTINGS, extra: Partial<Model['settings']['sslRedirect']> = {}): Model {
  const policy = {
    ...(config === null ? {} : { redirect: redirect(config) }),
    ...(Object.keys(extra).length === 0 ? {} : { sslRedirect: { redirect: true, force: false, ...extra } }),
  };
  return model([server('shop.test', [proxied('/', 'prefix', APP.name, { policy, settings })])], [APP], settings);
}

const withGlobal = (config: Partial<RedirectConfig>): Model['settings'] => ({ ...DEFAULT_SETTINGS, redirect: redirect(config) });

const rows: { name: string; model: Model; httpsPort?: number; present: string[]; absent: string[] }[] = [
  { name: 'permanent-redirect: the parsed URL, 301', model: site({ permanent: GOOGLE }), present: ['return 301 "https://www.google.com";'], absent: ['return 302'] },
  { name: 'permanent-redirect-code 308 with a path and query', model: site({ permanent: PATH, permanentCode: 308 }), present: ['return 308 "/new-location?a=1";'], absent: [] },
  {
    name: 'temporal-redirect wins over permanent-redirect', model: site({ permanent: PATH, temporal: GOOGLE, temporalCode: 307 }),
    present: ['return 307 "https://www.google.com";'], absent: ['"/new-location?a=1"'],
  },
  { name: 'relative-redirects on an Ingress', model: site({ relative: true }), present: ['            absolute_redirect off;'], absent: ['\n    absolute_redirect off;'] },
  { name: 'relative-redirects in the ConfigMap: http level', model: site(null, withGlobal({ relative: true })), present: ['\n    absolute_redirect off;\n'], absent: [] },
  { name: 'NGINX\'s own redirects name no port by default (http level)', model: site(null), present: ['port_in_redirect off;', 'server_name_in_redirect off;'], absent: ['port_in_redirect on;'] },
  { name: 'use-port-in-redirects on an Ingress: port_in_redirect on there', model: site({ usePort: true }), present: ['            port_in_redirect on;'], absent: [] },
  {
    name: 'app-root: server level, 302 to the Host header\'s host', model: site({ appRoot: '/app' }),
    present: ['        if ($uri = /) {\n            return 302 "$scheme://$http_host/app";\n        }'], absent: [],
  },
  { name: 'HTTPS redirect of the fallback server: no port, no trailing slash', model: site(null), present: ['return 308 https://$host$resty_redirect_uri;', 'set $resty_route "r '], absent: ['$host:8443'] },
  {
    name: 'ConfigMap use-port-in-redirects: the fallback server names the --https-port; routes stay `r`',
    model: site(null, withGlobal({ usePort: true })), present: ['return 308 https://$host:8443$resty_redirect_uri;', 'set $resty_route "r '], absent: ['@resty_unbalanced_https'],
  },
  {
    name: 'ConfigMap use-port-in-redirects with --https-port 443: the port is still named (ingress-nginx)', httpsPort: 443,
    model: site(null, withGlobal({ usePort: true })), present: ['return 308 https://$host:443$resty_redirect_uri;'], absent: [],
  },
  {
    name: 'ConfigMap preserve-trailing-slash: the fallback server keeps $request_uri',
    model: site(null, withGlobal({ preserveTrailingSlash: true })), present: ['return 308 https://$host$request_uri;'], absent: [],
  },
  {
    name: 'an Ingress with use-port-in-redirects: its own named location (`e` route)',
    model: site({ usePort: true }),
    present: ['set $resty_route "e ', 'error_page 500 = @resty_unbalanced_https_port;', 'location @resty_unbalanced_https_port {',
      'resty_ingress.unbalanced(308, ":8443", false)'],
    absent: ['location @resty_unbalanced_https {'],
  },
  {
    name: 'an Ingress with preserve-trailing-slash: its own named location',
    model: site({ preserveTrailingSlash: true }),
    present: ['error_page 500 = @resty_unbalanced_https_slash;', 'resty_ingress.unbalanced(308, "", true)'], absent: [],
  },
  {
    name: 'an Ingress back to the defaults under a ConfigMap that names the port: its own named location',
    model: site({ usePort: false }, withGlobal({ usePort: true })),
    present: ['error_page 500 = @resty_unbalanced_https;', 'location @resty_unbalanced_https {', 'resty_ingress.unbalanced(308, "", false)'], absent: [],
  },
  {
    name: 'force-ssl-redirect with use-port-in-redirects and preserve-trailing-slash',
    model: site({ usePort: true, preserveTrailingSlash: true }, DEFAULT_SETTINGS, { force: true }),
    present: ['return 308 https://$host:8443$request_uri;'], absent: [],
  },
  {
    name: 'force-ssl-redirect by default: no port, no trailing slash',
    model: site(null, DEFAULT_SETTINGS, { force: true }), present: ['            if ($pass_access_scheme = "http") {\n                return 308 https://$host$resty_redirect_uri;'], absent: [],
  },
  {
    name: 'a 404 location with use-port-in-redirects: Lua gets the port and the slash rule',
    model: model([server('shop.test', [notFound('/', 'prefix', { redirect: redirect({ usePort: true }) })])], []),
    present: ['resty_ingress.not_found_https(308, ":8443", false)'], absent: [],
  },
];

void describe('redirects: rendered', () => {
  for (const row of rows) {
    void it(row.name, async () => {
      const conf = renderConfig(row.model, { ...goldenOptions(), ...(row.httpsPort === undefined ? {} : { httpsPort: row.httpsPort }) }).conf;
      for (const text of row.present) assert.ok(conf.includes(text), `"${text}" missing`);
      for (const text of row.absent) assert.ok(!conf.includes(text), `unexpected "${text}"`);
      await assertNginxAccepts(conf);
    });
  }
});

void describe('redirects: what render refuses (the second wall)', () => {
  const bad: { name: string; config: Partial<RedirectConfig> }[] = [
    { name: 'a host with a quote', config: { permanent: { ...GOOGLE, host: 'a"b' } } },
    { name: 'a path with a variable', config: { permanent: { ...PATH, path: '/$host' } } },
    { name: 'a query with a semicolon', config: { temporal: { ...GOOGLE, query: 'a;return 200' } } },
    { name: 'a relative target without a path', config: { permanent: { ...PATH, path: '' } } },
    { name: 'an unknown scheme', config: { permanent: { ...GOOGLE, scheme: 'ftp' as 'http' } } },
    { name: 'app-root with a variable', config: { appRoot: '/x$host' } },
  ];
  for (const row of bad) {
    void it(row.name, () => {
      assert.throws(() => renderConfig(site(row.config), goldenOptions()), (error: unknown) => error instanceof RenderError && error.code === 'UnsafeValue');
    });
  }
});

void describe('server-alias: rendered', () => {
  const aliased = (aliases: readonly string[]): Model => model([{ ...server('shop.test', [proxied('/', 'prefix', APP.name)]), aliases }], [APP]);
  void it('the aliases follow the host in server_name', async () => {
    const conf = renderConfig(aliased(['*.bar.test', 'bar.test']), goldenOptions()).conf;
    assert.ok(conf.includes('server_name "shop.test" "*.bar.test" "bar.test";'), conf);
    await assertNginxAccepts(conf);
  });
  void it('a server without aliases names its host alone', () => {
    assert.ok(renderConfig(aliased([]), goldenOptions()).conf.includes('server_name "shop.test";'));
  });
  for (const bad of ['~^www\\d+', 'a.test"', 'a.test; return 200', 'A.TEST']) {
    void it(`an alias that is no lowercase host name is refused: ${JSON.stringify(bad)}`, () => {
      assert.throws(() => renderConfig(aliased([bad]), goldenOptions()), (error: unknown) => error instanceof RenderError && error.code === 'UnsafeValue');
    });
  }
});

void describe('from-to-www-redirect: rendered', () => {
  const twin = (from: string, settings: Model['settings'] = DEFAULT_SETTINGS): Model =>
    model([{ ...server('shop.test', [proxied('/', 'prefix', APP.name)]), wwwRedirectFrom: from }], [APP], settings);
  const WWW_SERVER = '    server {\n        listen "127.0.0.1:8080";\n        listen "127.0.0.1:8443" ssl;\n        server_name "www.shop.test";\n'
    + '        return 308 "$scheme://shop.test$resty_redirect_uri";\n    }';
  void it('a server of the twin returns the redirect to the host, HTTP and HTTPS', async () => {
    const conf = renderConfig(twin('www.shop.test'), goldenOptions()).conf;
    assert.ok(conf.includes(WWW_SERVER), conf);
    await assertNginxAccepts(conf);
  });
  void it('the ConfigMap\'s http-redirect-code; no HTTPS listener without --https-port', async () => {
    const conf = renderConfig(twin('www.shop.test', { ...DEFAULT_SETTINGS, tls: { ...DEFAULT_SETTINGS.tls, redirectCode: 301 } }), { ...goldenOptions(), httpsPort: undefined }).conf;
    assert.ok(conf.includes('server_name "www.shop.test";\n        return 301 "$scheme://shop.test$resty_redirect_uri";'), conf);
    await assertNginxAccepts(conf);
  });
  void it('a twin that is no host name is refused', () => {
    assert.throws(() => renderConfig(twin('www.$host'), goldenOptions()), (error: unknown) => error instanceof RenderError && error.code === 'UnsafeValue');
  });
});

void describe('from-to-www-redirect: the ConfigMap\'s block lists answer first', () => {
  void it('block-user-agents: 403 before the redirect', async () => {
    const settings: Model['settings'] = { ...DEFAULT_SETTINGS, accessControl: { ...DEFAULT_SETTINGS.accessControl, blockUserAgents: [{ kind: 'exact', value: 'badbot' }] } };
    const conf = renderConfig(model([{ ...server('shop.test', [proxied('/', 'prefix', APP.name)]), wwwRedirectFrom: 'www.shop.test' }], [APP], settings), goldenOptions()).conf;
    const twin = conf.slice(conf.indexOf('server_name "www.shop.test";'));
    assert.ok(twin.indexOf('if ($resty_block_ua)') > 0 && twin.indexOf('if ($resty_block_ua)') < twin.indexOf('return 308'), twin.slice(0, 300));
    await assertNginxAccepts(conf);
  });
});
