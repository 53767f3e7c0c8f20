// The HTTPS side of nginx.conf: listeners, the placeholder certificate, the
// ConfigMap's protocols/ciphers/HSTS, and which locations redirect plain HTTP.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Model } from '../model/types.ts';
import { RenderError } from './nginx-values.ts';
import { renderConfig } from './render-config.ts';
import type { RenderOptions } from './render-options.ts';
import { backend, DEFAULT_SETTINGS, goldenOptions, model, notFound, proxied, server, type LocationExtra } from './testdata/model-fixtures.ts';

const web = backend('default-web-80');
// ingress-nginx's HTTPS redirect: no port (the listener's 8443 is not what clients reach), one trailing "/" dropped.
const REDIRECT = 'return 308 https://$host$resty_redirect_uri;';
// ssl-redirect: the route's `r` flag: the balancer sends plain HTTP of a host with a certificate to the redirect fallback server.
const LUA_REDIRECT = ['set $resty_route "r '];
// No redirect for Lua to decide.
const NO_LUA_REDIRECT = ['set $resty_route "- '];
const FALLBACK_REDIRECT = `listen "unix:/golden/prefix/sockets/https-redirect.sock";\n        client_body_temp_path "/golden/prefix/sockets";\n        access_log off;\n        ${REDIRECT}`;
const PLAIN = ['proxy_pass http://upstream_balancer;'];
const rewrite: LocationExtra = { policy: { rewrite: { target: '/$2', useRegex: false } } };
const FALLBACK_UNAVAILABLE = 'listen "unix:/golden/prefix/sockets/unavailable.sock";\n        client_body_temp_path "/golden/prefix/sockets";\n        access_log off;\n        return 503;';

// Whether the host has a certificate is not an input: nginx.conf never depends on it.
function site(redirect: { sslRedirect?: boolean; forceSslRedirect?: boolean } = {}, settings = DEFAULT_SETTINGS): Model {
  return model([server('shop.example.com', [proxied('/', 'prefix', web.name, redirecting(redirect))])], [web], settings);
}

/** A location's ssl-redirect annotations as its policy (none given: no policy). */
function redirecting(redirect: { sslRedirect?: boolean; forceSslRedirect?: boolean }, extra: LocationExtra = {}): LocationExtra {
  if (redirect.sslRedirect === undefined && redirect.forceSslRedirect === undefined) return extra;
  return { ...extra, policy: { ...extra.policy, sslRedirect: { redirect: redirect.sslRedirect ?? true, force: redirect.forceSslRedirect ?? false } } };
}

const rows: { name: string; model: Model; options?: Partial<RenderOptions>; present: string[]; absent: string[] }[] = [
  {
    name: 'no --https-port: no TLS at all',
    model: site(), options: { httpsPort: undefined },
    present: [...PLAIN, FALLBACK_UNAVAILABLE, 'init({ unavailable = "unix:/golden/prefix/sockets/unavailable.sock" })'],
    absent: ['ssl', 'Strict-Transport-Security', 'return 308', 'upstream_balancer_https', '@resty_unbalanced_https', 'https-redirect.sock'],
  },
  {
    name: 'every server listens for TLS; the catch-all is the default there too',
    model: site({ sslRedirect: false }),
    present: ['listen "127.0.0.1:8443" ssl default_server;', 'listen "127.0.0.1:8443" ssl;', 'ssl_certificate "/golden/prefix/ssl/default.crt";',
      'ssl_client_hello_by_lua_block { require("resty_ingress.certificate").call() }', 'ssl_protocols "TLSv1.2" "TLSv1.3";', 'http2 on;'],
    absent: ['if ($pass_access_scheme = "http")', 'ssl_certificate_by_lua'],
  },
  {
    name: 'ssl-redirect: Lua decides per request, the fallback server answers (code and port as literals)',
    model: site(),
    present: [...LUA_REDIRECT, FALLBACK_REDIRECT, FALLBACK_UNAVAILABLE,
      'init({ unavailable = "unix:/golden/prefix/sockets/unavailable.sock", https_redirect = "unix:/golden/prefix/sockets/https-redirect.sock" })'],
    absent: [...NO_LUA_REDIRECT, 'error_page', '@resty_unbalanced'],
  },
  {
    name: 'ssl-redirect with rewrite-target: the named location redirects with the client\'s URI',
    model: model([server('shop.example.com', [proxied('/api(/|$)(.*)', 'regex', web.name, rewrite)])], [web]),
    present: ['set $resty_route "e ', 'error_page 500 = @resty_unbalanced_https;', ...PLAIN,
      'content_by_lua_block { resty_ingress.unbalanced(308, "", false) }'],
    absent: [...NO_LUA_REDIRECT, ...LUA_REDIRECT],
  },
  {
    // The redirect fallback server redirects to the Host it receives: upstream-vhost's, not the client's.
    name: 'ssl-redirect with upstream-vhost: the named location redirects with the client\'s host',
    model: model([server('shop.example.com', [proxied('/', 'prefix', web.name, { policy: { upstreamHeaders: { host: 'internal.svc', prefix: null } } })])], [web]),
    present: ['set $resty_route "e ', 'error_page 500 = @resty_unbalanced_https;', 'proxy_set_header Host "internal.svc";',
      'content_by_lua_block { resty_ingress.unbalanced(308, "", false) }'],
    absent: [...NO_LUA_REDIRECT, ...LUA_REDIRECT],
  },
  {
    name: 'ssl-redirect with x-forwarded-prefix alone: the fallback server (the Host is the client\'s)',
    model: model([server('shop.example.com', [proxied('/', 'prefix', web.name, { policy: { upstreamHeaders: { host: null, prefix: '/shop' } } })])], [web]),
    present: [...LUA_REDIRECT, 'proxy_set_header Host $best_http_host;'],
    absent: [...NO_LUA_REDIRECT, 'error_page', '@resty_unbalanced'],
  },
  { name: 'ssl-redirect false: no redirect for Lua', model: site({ sslRedirect: false }), present: [...NO_LUA_REDIRECT, ...PLAIN], absent: [...LUA_REDIRECT, 'error_page'] },
  { name: 'force-ssl-redirect: a static return, whatever the certificates', model: site({ forceSslRedirect: true }), present: [...NO_LUA_REDIRECT, 'if ($pass_access_scheme = "http")', REDIRECT, ...PLAIN], absent: LUA_REDIRECT },
  {
    name: 'no port in either redirect, 443 or not',
    model: model([server('shop.example.com', [proxied('/', 'prefix', web.name), proxied('/pay', 'exact', web.name, redirecting({ forceSslRedirect: true }))])], [web]),
    options: { httpsPort: 443 },
    present: ['return 308 https://$host$resty_redirect_uri;'], absent: ['$host:443', '$host$request_uri'],
  },
  {
    name: 'a 404 location with ssl-redirect: Lua redirects or answers 404 (a `return 404` would run first)',
    model: model([server('shop.example.com', [notFound('/')])], []),
    present: ['rewrite_by_lua_block { resty_ingress.not_found_https(308, "", false) }'], absent: ['if ($pass_access_scheme = "http")'],
  },
  {
    name: 'ConfigMap: 301, HSTS with preload',
    model: model([server('shop.example.com', [proxied('/', 'prefix', web.name), proxied('/pay', 'exact', web.name, redirecting({ forceSslRedirect: true }))])], [web],
      { ...DEFAULT_SETTINGS, tls: { ...DEFAULT_SETTINGS.tls, redirectCode: 301, hsts: { enabled: true, maxAge: 600, includeSubdomains: false, preload: true } } }),
    present: [FALLBACK_REDIRECT.replace('308', '301'), 'return 301 https://$host$resty_redirect_uri;', 'on "max-age=600; preload";',
      'add_header Strict-Transport-Security $resty_hsts always;'],
    absent: ['return 308'],
  },
  {
    name: 'ConfigMap: hsts false sends no header',
    model: site({}, { ...DEFAULT_SETTINGS, tls: { ...DEFAULT_SETTINGS.tls, hsts: { ...DEFAULT_SETTINGS.tls.hsts, enabled: false } } }),
    present: [], absent: ['Strict-Transport-Security'],
  },
];

void describe('TLS in nginx.conf', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const { conf } = renderConfig(row.model, { ...goldenOptions(), ...row.options });
      for (const text of row.present) assert.ok(conf.includes(text), `"${text}" missing`);
      for (const text of row.absent) assert.ok(!conf.includes(text), `unexpected "${text}"`);
    });
  }

  void it('only the catch-all server has a certificate: one OpenSSL context, however many hosts', () => {
    const hosts = ['a.example.com', 'b.example.com', 'c.example.com'];
    const { conf } = renderConfig(model(hosts.map((h) => server(h, [proxied('/', 'prefix', web.name)])), [web]), goldenOptions());
    const servers = conf.split(/\n {4}server \{\n/u).slice(1);
    const withCertificate = servers.filter((block) => block.includes('ssl_certificate '));
    assert.equal(withCertificate.length, 1, 'exactly one server block names a certificate');
    assert.match(withCertificate[0] ?? '', /server_name "_";/u);
    assert.equal(conf.split('ssl_client_hello_by_lua_block').length, 2, 'one certificate callback, in that server');
    assert.ok(!/^ {4}ssl_certificate/mu.test(conf), 'no certificate at http{} level (every server would inherit it)');
  });

  void it('certificates do not change nginx.conf or its version (they are Lua\'s)', () => {
    const plain = site();
    const withCertificate: Model = {
      ...plain,
      tls: {
        certificates: [{ id: 'default/shop', secret: { namespace: 'default', name: 'shop' }, cert: 'C', key: 'K', names: ['shop.example.com'], serial: '01', notAfter: '2030-01-01T00:00:00.000Z' }],
        hosts: [{ host: 'shop.example.com', certificate: 'default/shop' }],
        defaultCertificate: null,
      },
    };
    assert.deepEqual(renderConfig(withCertificate, goldenOptions()), renderConfig(plain, goldenOptions()));
  });

  void it('a cipher list that could break out of its directive is refused', () => {
    const bad = site({}, { ...DEFAULT_SETTINGS, tls: { ...DEFAULT_SETTINGS.tls, ciphers: 'HIGH; return 200' } });
    assert.throws(() => renderConfig(bad, goldenOptions()), (err: unknown) => err instanceof RenderError && err.code === 'UnsafeValue');
  });

  void it('--https-port equal to --http-port is refused', () => {
    assert.throws(() => renderConfig(site(), { ...goldenOptions(), httpsPort: 8080 }),
      (err: unknown) => err instanceof RenderError && err.code === 'InvalidOptions');
  });
});

/** The named locations of each server block, by server_name. */
function namedLocationsByServer(conf: string): Record<string, string[]> {
  const byServer: Record<string, string[]> = {};
  for (const block of conf.split(/\n {4}server \{\n/u).slice(1)) {
    const name = /server_name "([^"]+)";/u.exec(block)?.[1];
    // The catch-all's @resty_pending (pending-hosts.njk) is in every configuration: render-config.test.ts checks it.
    if (name !== undefined) byServer[name] = [...block.matchAll(/location (@\w+) \{/gu)].map((m) => m[1] ?? '').filter((named) => named !== '@resty_pending');
  }
  return byServer;
}

// Each location {} costs NGINX a configuration per module on every parse (nginx -t, then the
// master on reload): only a server with a location that redirects by certificate and rewrites
// its URI renders the named location; every other answer comes from a fallback server.
const namedRows: { name: string; model: Model; options?: Partial<RenderOptions>; named: Record<string, string[]> }[] = [
  { name: 'HTTPS on, ssl-redirect (the default): none', model: site(), named: { '_': [], 'shop.example.com': [] } },
  { name: 'no --https-port: none', model: site(), options: { httpsPort: undefined }, named: { '_': [], 'shop.example.com': [] } },
  {
    name: 'ssl-redirect with rewrite-target: the redirecting one',
    model: model([server('shop.example.com', [proxied('/', 'prefix', web.name), proxied('/api(/|$)(.*)', 'regex', web.name, rewrite)])], [web]),
    named: { '_': [], 'shop.example.com': ['@resty_unbalanced_https'] },
  },
  {
    name: 'rewrite-target without ssl-redirect, or without --https-port: none',
    model: model([server('shop.example.com', [proxied('/api(/|$)(.*)', 'regex', web.name, redirecting({ sslRedirect: false }, rewrite))]),
      server('raw.example.com', [proxied('/api(/|$)(.*)', 'regex', web.name, redirecting({ forceSslRedirect: true }, rewrite))])], [web]),
    named: { '_': [], 'shop.example.com': [], 'raw.example.com': [] },
  },
  {
    name: 'the catch-all with such a location: its own',
    model: model([server('_', [proxied('/api(/|$)(.*)', 'regex', web.name, rewrite)]), server('gone.example.com', [notFound('/')])], [web]),
    named: { '_': ['@resty_unbalanced_https'], 'gone.example.com': [] },
  },
];

void describe('named locations for requests the balancer gave no peer', () => {
  for (const row of namedRows) {
    void it(row.name, () => {
      const { conf } = renderConfig(row.model, { ...goldenOptions(), ...row.options });
      assert.deepEqual(namedLocationsByServer(conf), row.named);
      // Every error_page names a location its server has.
      for (const [host, named] of Object.entries(namedLocationsByServer(conf))) {
        const block = conf.split(/\n {4}server \{\n/u).find((b) => b.includes(`server_name "${host}";`)) ?? '';
        for (const target of block.matchAll(/error_page 500 = (@\w+);/gu)) assert.ok(named.includes(target[1] ?? ''), `${host}: ${target[1]} not rendered`);
      }
    });
  }
});
