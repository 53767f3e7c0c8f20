import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Location, Model } from '../model/types.ts';
import { assembleConf, renderConfig } from './render-config.ts';
import type { RenderedServerBlocks } from './server-blocks.ts';
import { RenderError } from './nginx-values.ts';
import { assertNginxAccepts } from './testdata/golden-check.ts';
import { backend, DEFAULT_PROXY, DEFAULT_SETTINGS, goldenOptions, model, notFound, proxied, server, type LocationExtra } from './testdata/model-fixtures.ts';

/** The text of the first `{ ... }` block whose header is exactly `header` (braces counted). */
function block(conf: string, header: string, from = 0): string {
  const start = conf.indexOf(`${header} {`, from);
  assert.notEqual(start, -1, `no block "${header}" in:\n${conf.slice(from)}`);
  let depth = 0;
  for (let i = conf.indexOf('{', start); i < conf.length; i++) {
    if (conf[i] === '{') depth++;
    if (conf[i] === '}' && --depth === 0) return conf.slice(start, i + 1);
  }
  throw new Error(`unbalanced block "${header}"`);
}

/** The `server {}` block of `hostname`. */
function serverBlock(conf: string, hostname: string): string {
  const name = conf.indexOf(`server_name "${hostname}";`);
  assert.notEqual(name, -1, `no server ${hostname}`);
  return block(conf, '    server', conf.lastIndexOf('    server {', name));
}

const web = backend('default-web-80');
const api = backend('default-api-80');
const HTTPS_PROXY = { bodySize: '8m', connectTimeout: 3, readTimeout: 120, sendTimeout: 30 } as const;
const rewriting = (target: string): LocationExtra => ({ policy: { rewrite: { target, useRegex: false } } });

interface RenderCase {
  readonly name: string;
  readonly model: Model;
  /** The server whose blocks are checked. */
  readonly host: string;
  /** header → directives that block must contain (in this order). */
  readonly blocks: Record<string, readonly string[]>;
  /** Strings that must not appear anywhere. */
  readonly absent?: readonly string[];
}

const cases: RenderCase[] = [
  {
    name: 'catch-all only (empty model): default server answering 404',
    host: '_',
    model: model([], []),
    blocks: {
      'location "/"': ['return 404;'],
      // New plain hosts until their reload (pending-hosts.njk): a bare proxy, nothing of the catch-all's locations.
      'location @resty_pending': ['proxy_pass http://upstream_balancer;'],
    },
    absent: ['proxy_pass http://upstream_balancer;\n        }\n    }\n}'],
  },
  {
    name: 'hosts and paths of each match kind',
    host: 'a.example.com',
    model: model(
      [
        server('_', [notFound('/')]),
        server('a.example.com', [
          proxied('/', 'prefix', web.name),
          proxied('/app', 'prefix', api.name),
          proxied('/exact', 'exact', web.name),
        ]),
        // A regex location makes every location of its host a regex (model/regex-hosts.ts): on its own host.
        server('re.example.com', [proxied('/re/[a-z]+', 'regex', api.name, { host: 're.example.com' })]),
      ],
      [api, web],
    ),
    blocks: {
      'location "/"': ['set $proxy_upstream_name "default-web-80";', 'proxy_pass http://upstream_balancer;'],
      'location = "/app"': ['set $proxy_upstream_name "default-api-80";', 'proxy_pass http://upstream_balancer;'],
      'location "/app/"': ['set $proxy_upstream_name "default-api-80";'],
      'location = "/exact"': ['set $proxy_upstream_name "default-web-80";'],
    },
    // No Lua phase in a round-robin location: metrics come from the access log. No error page either.
    absent: ['location ~* "^/app', 'location ~* "^/exact', 'location = "/" {', 'location "/exact/"', 'rewrite "', 'log_by_lua', 'resty_ingress.rewrite', 'error_page', '@resty_unbalanced'],
  },
  {
    name: 'a regex location: every location of its host is a case-insensitive regex, in ingress-nginx\'s order',
    host: 'a.example.com',
    model: model(
      [
        server('_', [notFound('/')]),
        server('a.example.com', [
          proxied('/', 'prefix', web.name),
          proxied('/app', 'prefix', api.name),
          proxied('/exact', 'exact', web.name),
          proxied('/re/[a-z]+', 'regex', api.name),
        ]),
      ],
      [api, web],
    ),
    blocks: {
      'location ~* "^/"': ['set $proxy_upstream_name "default-web-80";', 'proxy_pass http://upstream_balancer;'],
      'location ~* "^/app"': ['set $proxy_upstream_name "default-api-80";', 'proxy_pass http://upstream_balancer;'],
      'location ~* "^/app/"': ['set $proxy_upstream_name "default-api-80";'],
      'location ~* "^/exact"': ['set $proxy_upstream_name "default-web-80";'],
      'location ~* "^/re/[a-z]+"': [
        'set $proxy_upstream_name "default-api-80";',
        'set $resty_route "r default-api-80 a.example.com default web api /re/[a-z]+";',
        // ssl-redirect (on by default) with --https-port: its balancer sends plain HTTP of hosts with a certificate
        // to the redirect fallback server.
        'proxy_pass http://upstream_balancer;',
      ],
    },
    absent: ['location = "', 'location "/app/"', 'rewrite "', 'log_by_lua', 'error_page', '@resty_unbalanced'],
  },
  // $resty_route: the backend, the server's name (Lua tells the catch-all and wildcards apart), the labels.
  ...['r.example.com', '_', '*.r.example.com'].map((host): RenderCase => ({
    name: `$resty_route of server ${host}`,
    host,
    model: model([server(host, [proxied('/', 'prefix', web.name)])], [web]),
    blocks: { 'location "/"': ['set $proxy_upstream_name "default-web-80";', `set $resty_route "r default-web-80 ${host} default web web /";`] },
  })),
  {
    name: 'a trailing slash on a prefix path renders the same blocks',
    host: 'b.example.com',
    model: model([server('b.example.com', [proxied('/docs/', 'prefix', web.name)])], [web]),
    blocks: { 'location = "/docs"': ['proxy_pass'], 'location "/docs/"': ['proxy_pass'], 'location "/"': ['return 404;'] },
    absent: ['"/docs//"'],
  },
  {
    name: 'exact wins over the exact half of a prefix on the same path',
    host: 'c.example.com',
    model: model([server('c.example.com', [proxied('/x', 'prefix', api.name), proxied('/x', 'exact', web.name)])], [api, web]),
    blocks: { 'location = "/x"': ['"default-web-80"'], 'location "/x/"': ['"default-api-80"'] },
  },
  {
    name: 'not-found target',
    host: 'd.example.com',
    model: model([server('d.example.com', [notFound('/gone', 'prefix', { sslRedirect: { redirect: false, force: false } }), notFound('/moved', 'exact'), proxied('/', 'prefix', web.name)])], [web]),
    blocks: {
      'location = "/gone"': ['return 404;'],
      'location "/gone/"': ['return 404;'],
      // ssl-redirect on: Lua redirects a host with a certificate, else answers the 404 itself.
      'location = "/moved"': ['rewrite_by_lua_block { resty_ingress.not_found_https(308, "", false) }'],
    },
  },
  {
    name: 'HTTPS backend with its proxy settings',
    host: 'e.example.com',
    model: model([server('e.example.com', [proxied('/', 'prefix', web.name, { policy: { proxy: HTTPS_PROXY, backendProtocol: { protocol: 'HTTPS' } } })])], [web]),
    blocks: {
      'location "/"': [
        'client_max_body_size "8m";',
        'proxy_connect_timeout 3s;',
        'proxy_send_timeout 30s;',
        'proxy_read_timeout 120s;',
        'proxy_ssl_server_name on;',
        'proxy_pass https://upstream_balancer;',
      ],
    },
    absent: ['proxy_pass http://upstream_balancer'],
  },
  {
    name: 'rewrite-target: set first, then rewrite ... break, the redirect error page, then the proxy',
    host: 'f.example.com',
    model: model([server('f.example.com', [proxied('/api(/|$)(.*)', 'regex', web.name, rewriting('/$2'))])], [web]),
    blocks: {
      'location ~* "^/api(/|$)(.*)"': [
        'set $proxy_upstream_name "default-web-80";',
        // The URI sent upstream is not the client's: the route's `e` flag, and the named location redirects, with $request_uri.
        'set $resty_route "e default-web-80 f.example.com',
        'rewrite "(?i)/api(/|$)(.*)" "/$2" break;',
        'error_page 500 = @resty_unbalanced_https;',
        'proxy_pass http://upstream_balancer;',
      ],
      'location @resty_unbalanced_https': ['content_by_lua_block { resty_ingress.unbalanced(308, "", false) }'],
    },
  },
  {
    name: 'an EWMA backend: its locations get the Lua log phase that feeds it response times',
    host: 'g.example.com',
    model: model([server('g.example.com', [proxied('/', 'prefix', 'default-ewma-80')])], [{ ...backend('default-ewma-80'), loadBalance: 'ewma' }]),
    blocks: { 'location "/"': ['log_by_lua_block { resty_ingress.log("default-ewma-80") }', 'proxy_pass http://upstream_balancer;'] },
  },
];

/** The proxy directives of the first `location "/"` of `host`. */
function proxyDirectives(conf: string, host: string): string[] {
  return block(serverBlock(conf, host), 'location "/"').split('\n').map((line) => line.trim())
    .filter((line) => /^(client_max_body_size|proxy_(connect|send|read)_timeout) /u.test(line));
}

// http {} carries the ConfigMap's proxy defaults once; a location sets only what its annotations change
// (each directive costs every nginx -t and reload).
void describe('renderConfig: proxy settings equal to the defaults are inherited from http {}', () => {
  const rows: { name: string; proxy: Partial<typeof DEFAULT_PROXY>; defaults?: Partial<typeof DEFAULT_PROXY>; http: string[]; location: string[] }[] = [
    { name: 'all defaults: nothing in the location', proxy: {}, http: ['client_max_body_size "1m";', 'proxy_connect_timeout 5s;', 'proxy_send_timeout 60s;', 'proxy_read_timeout 60s;'], location: [] },
    { name: 'one annotation: that one', proxy: { readTimeout: 300 }, http: ['proxy_read_timeout 60s;'], location: ['proxy_read_timeout 300s;'] },
    { name: 'the ConfigMap moves a default: the location equal to it sets nothing', proxy: { bodySize: '8m' }, defaults: { bodySize: '8m' }, http: ['client_max_body_size "8m";'], location: [] },
    { name: 'a location keeping the old default after the ConfigMap moved it: set', proxy: {}, defaults: { connectTimeout: 2 }, http: ['proxy_connect_timeout 2s;'], location: ['proxy_connect_timeout 5s;'] },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const settings = { ...DEFAULT_SETTINGS, proxy: { ...DEFAULT_PROXY, ...row.defaults } };
      const m = model([server('a.example.com', [proxied('/', 'prefix', 'default-web-80', { policy: { proxy: { ...DEFAULT_PROXY, ...row.proxy } } })])], [backend('default-web-80')], settings);
      const { conf } = renderConfig(m, goldenOptions());
      const http = conf.slice(conf.indexOf('http {'), conf.indexOf('    server {'));
      for (const line of row.http) assert.ok(http.includes(`\n    ${line}\n`), `http {}: "${line}" missing`);
      assert.deepEqual(proxyDirectives(conf, 'a.example.com'), row.location);
      await assertNginxAccepts(conf);
    });
  }
});

const PENDING_HOSTS = `        server_rewrite_by_lua_block { resty_ingress.pending() }

        location @resty_pending {
            proxy_pass http://upstream_balancer;
        }
`;

void describe('renderConfig: what each model renders', () => {
  for (const row of cases) {
    void it(row.name, () => {
      const { conf, version } = renderConfig(row.model, goldenOptions());
      const hostBlock = serverBlock(conf, row.host);
      for (const [header, directives] of Object.entries(row.blocks)) {
        const text = block(hostBlock, header);
        let from = 0;
        for (const directive of directives) {
          const at = text.indexOf(directive, from);
          assert.notEqual(at, -1, `"${directive}" missing (or out of order) in:\n${text}`);
          from = at + directive.length;
        }
      }
      // The catch-all's pending-host location (pending-hosts.njk) is in every configuration: checked above and below.
      const withoutPending = conf.replace(PENDING_HOSTS, '');
      for (const text of row.absent ?? []) assert.ok(!withoutPending.includes(text), `unexpected "${text}"`);
      assert.equal(conf.split(PENDING_HOSTS).length, 2, 'the catch-all, and only it, serves pending hosts');
      assert.ok(serverBlock(conf, '_').includes(PENDING_HOSTS));
      assert.ok(block(conf, 'location = /config-version').includes(`return 200 "${version}";`));
      assert.match(block(conf, 'server'), /listen "127\.0\.0\.1:10246";/u, 'the status server comes first');
      const catchAll = conf.indexOf('server_name "_";');
      assert.ok(catchAll > 0 && conf.lastIndexOf('default_server') < catchAll, 'only the catch-all is default_server');
      assert.equal(conf.split('default_server').length, 3, 'exactly one default_server per listener (HTTP, HTTPS)');
    });
  }
});

function withPath(path: string, extra: LocationExtra = {}, match: Location['match'] = 'prefix'): Model {
  return model([server('evil.example.com', [proxied(path, match, web.name, extra)])], [web]);
}

const hostile: [name: string, build: () => Model, code: RenderError['code']][] = [
  ['newline in a path', () => withPath('/a\n}\nserver {'), 'UnsafeValue'],
  ['semicolon in a hostname', () => model([server('a.com; include /etc/passwd', [])], []), 'UnsafeValue'],
  ['brace in a rewrite target', () => withPath('/a', rewriting('/}')), 'UnsafeValue'],
  ['quote in a body size', () => withPath('/a', { policy: { proxy: { ...HTTPS_PROXY, bodySize: '1m" ;' } } }), 'UnsafeValue'],
  ['fractional timeout', () => withPath('/a', { policy: { proxy: { ...HTTPS_PROXY, readTimeout: 1.5 } } }), 'UnsafeValue'],
  ['$ in a backend name', () => model([server('g.com', [proxied('/', 'prefix', 'web-$host')])], [backend('web-$host')]), 'UnsafeValue'],
  ['path without a leading slash', () => withPath('a'), 'UnsafeValue'],
  ['unknown match kind', () => withPath('/a', {}, 'glob' as Location['match']), 'UnsafeValue'],
  ['backend missing from the model', () => model([server('h.com', [proxied('/', 'prefix', 'nope-80')])], []), 'UnknownBackend'],
  ['the same host twice', () => model([server('i.com', []), server('i.com', [])], []), 'DuplicateServer'],
  ['the same path twice', () => model([server('j.com', [notFound('/a'), notFound('/a/')])], []), 'DuplicateLocation'],
];

void describe('renderConfig: refuses what breaks the contract', () => {
  for (const [name, build, code] of hostile) {
    void it(name, () => {
      assert.throws(
        () => renderConfig(build(), goldenOptions()),
        (error: unknown) => error instanceof RenderError && error.code === code,
      );
    });
  }
});

/** Blocks whose keep() records where it was pointed. */
function keptBlocks(texts: string[]): RenderedServerBlocks & { kept: { source: string; offset: number } | null } {
  const blocks = {
    texts,
    keys: [],
    kept: null as { source: string; offset: number } | null,
    keep(source: string, offset: number): void { blocks.kept = { source, offset }; },
  };
  return blocks;
}

const assembleRows: { name: string; main: (serverBlocks: string) => string; keptInConf: boolean }[] = [
  { name: 'blocks printed once: joined in at the mark, kept in the conf', main: (blocks) => `http {\n${blocks}}\n`, keptInConf: true },
  { name: 'blocks not printed: the template alone, kept in their own join', main: () => 'http {}\n', keptInConf: false },
  { name: 'blocks printed twice: through the template, kept in their own join', main: (blocks) => `${blocks}#\n${blocks}`, keptInConf: false },
];

void describe('assembleConf: the conf a template gives, as one string', () => {
  for (const row of assembleRows) {
    void it(row.name, () => {
      const blocks = keptBlocks(['server a {}\n', 'server b {}\n']);
      const conf = assembleConf(row.main, blocks);
      assert.equal(conf, row.main('server a {}\nserver b {}\n'));
      assert.ok(blocks.kept !== null, 'a rendered conf is kept');
      const { source, offset } = blocks.kept;
      assert.equal(source === conf, row.keptInConf);
      assert.equal(source.slice(offset, offset + blocks.texts.join('').length), blocks.texts.join(''));
    });
  }

  void it('a template that throws keeps nothing', () => {
    const blocks = keptBlocks(['server a {}\n']);
    assert.throws(() => assembleConf(() => { throw new Error('template broke'); }, blocks), /template broke/);
    assert.equal(blocks.kept, null);
  });
});
