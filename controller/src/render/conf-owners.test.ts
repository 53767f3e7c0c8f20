// ownersOfLine over a real render: each row names a line of the rendered
// nginx.conf by its text (the way NGINX names it by number) and the Ingress
// that line must be blamed on, or none. The last test lets the real
// `nginx -t` name the line.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findDataplane } from '../nginx/dataplane.ts';
import { testNginxConf } from '../nginx/nginx-conf-files.ts';
import { NginxConfigError, problemText } from '../nginx/nginx-errors.ts';
import type { IngressRef } from '../model/types.ts';
import { blocksAtLine, ownersOfLine } from './conf-owners.ts';
import { renderConfig } from './render-config.ts';
import { backend, DEFAULT_PROXY, goldenOptions, model, notFound, proxied, server } from './testdata/model-fixtures.ts';
import { makePrefix } from './testdata/nginx-runner.ts';

const ref = (namespace: string, name: string): IngressRef => ({ namespace, name });
const web = backend('shop-web');
const blog = backend('blog-web');

/**
 * One server per tenant; shop's Ingresses share a host. blog asks for a body size NGINX cannot hold.
 * On moved.test a rewrite-target makes every location a `~*` regex (model/regex-hosts.ts).
 */
const site = model([
  server('_', [notFound('/')]),
  server('blog.test', [
    proxied('/', 'prefix', blog.name, { ingress: ref('blog', 'main'), policy: { proxy: { ...DEFAULT_PROXY, bodySize: '8589934592g' } } }),
  ]),
  server('shop.test', [
    proxied('/api', 'exact', web.name, { ingress: ref('shop', 'exact-api') }),
    proxied('/api', 'prefix', web.name, { ingress: ref('shop', 'api') }),
    proxied('/', 'prefix', web.name, { ingress: ref('shop', 'front') }),
  ]),
  server('moved.test', [
    proxied('/api', 'exact', web.name, { ingress: ref('moved', 'exact-api') }),
    proxied('/x(/|$)(.*)', 'regex', web.name, { ingress: ref('moved', 'rewrite'), policy: { rewrite: { target: '/$2', useRegex: false } } }),
    proxied('/api', 'prefix', web.name, { ingress: ref('moved', 'api') }),
  ]),
], [blog, web]);

/** 1-based number of the first line containing `text` that follows lines containing each of `after`, in turn. */
function lineWhere(conf: string, text: string, ...after: string[]): number {
  const lines = conf.split('\n');
  let from = -1;
  for (const anchor of [...after, text]) {
    from = lines.findIndex((line, index) => index > from && line.includes(anchor));
    assert.ok(from >= 0, `no line with ${JSON.stringify(anchor)} (looking for ${JSON.stringify(text)} after ${JSON.stringify(after)})`);
  }
  return from + 1;
}

interface Row {
  readonly name: string;
  readonly line: (conf: string) => number;
  readonly owners: readonly IngressRef[];
}

const rows: readonly Row[] = [
  { name: 'the opening line of an Exact location', line: (c) => lineWhere(c, 'location = "/api" {'), owners: [ref('shop', 'exact-api')] },
  { name: 'inside the `/api/` half of a Prefix path whose exact half an Exact path took', line: (c) => lineWhere(c, 'proxy_pass', 'location "/api/" {'), owners: [ref('shop', 'api')] },
  { name: 'the rewrite of a regex location', line: (c) => lineWhere(c, 'rewrite "(?i)/x'), owners: [ref('moved', 'rewrite')] },
  { name: 'a regex host: an Exact path printed as a regex', line: (c) => lineWhere(c, 'location ~* "^/api" {', 'server_name "moved.test"'), owners: [ref('moved', 'exact-api')] },
  { name: 'a regex host: the `/` form of a Prefix path', line: (c) => lineWhere(c, 'proxy_pass', 'server_name "moved.test"', 'location ~* "^/api/" {'), owners: [ref('moved', 'api')] },
  { name: 'a feature directive (client_max_body_size)', line: (c) => lineWhere(c, 'client_max_body_size "8589934592g"'), owners: [ref('blog', 'main')] },
  { name: 'the closing brace of a location', line: (c) => lineWhere(c, '}', 'client_max_body_size "8589934592g"'), owners: [ref('blog', 'main')] },
  { name: 'the Prefix `/` of a host, after the other locations of that host', line: (c) => lineWhere(c, 'set $resty_route', 'server_name "shop.test"', 'location "/" {'), owners: [ref('shop', 'front')] },
  { name: 'a server\'s own directive (server_name)', line: (c) => lineWhere(c, 'server_name "shop.test"'), owners: [] },
  { name: 'a server\'s listen line, before its server_name', line: (c) => lineWhere(c, 'listen', 'server_name "_"', 'server {'), owners: [] },
  { name: 'the generated 404 location of the catch-all server', line: (c) => lineWhere(c, 'rewrite_by_lua_block', 'server_name "_"'), owners: [] },
  { name: 'the named location of ssl-redirect with rewrite-target', line: (c) => lineWhere(c, 'content_by_lua_block { resty_ingress.unbalanced'), owners: [] },
  { name: 'http {} (a map)', line: (c) => lineWhere(c, 'map $http_x_request_id $req_id'), owners: [] },
  { name: 'the status server\'s location', line: (c) => lineWhere(c, 'location = /config-version'), owners: [] },
  { name: 'line 0', line: () => 0, owners: [] },
  { name: 'past the last line', line: (c) => c.split('\n').length + 10, owners: [] },
];

void describe('ownersOfLine', () => {
  const { conf } = renderConfig(site, goldenOptions());

  for (const row of rows) {
    void it(row.name, () => {
      assert.deepEqual(ownersOfLine(site, conf, row.line(conf)), row.owners);
    });
  }

  void it('every line inside an Ingress location is blamed on that Ingress, every other line on none', () => {
    // Walks the whole conf: the owner changes only at location boundaries of the Ingress servers.
    const lines = conf.split('\n');
    let blamed = 0;
    for (let line = 1; line <= lines.length; line++) {
      const owners = ownersOfLine(site, conf, line);
      const stack = blocksAtLine(conf, line);
      const location = stack.findLast((frame) => frame.words[0] === 'location');
      if (owners.length > 0) {
        blamed++;
        assert.ok(location !== undefined, `line ${line} blamed outside a location: ${lines[line - 1]}`);
      }
    }
    assert.ok(blamed > 20, `only ${blamed} lines blamed`);
  });

  void it('the line real `nginx -t` names is blamed on the Ingress whose value it refused', async () => {
    const dataplane = findDataplane();
    const prefix = makePrefix();
    try {
      const real = renderConfig(site, goldenOptions(dataplane, prefix));
      const confPath = join(prefix, 'nginx.conf');
      writeFileSync(confPath, real.conf);
      const refused = await testNginxConf({ dataplane, prefix, confPath }).then(() => assert.fail('nginx -t accepted'), (err: unknown) => err);
      assert.ok(refused instanceof NginxConfigError && refused.refused, String(refused));
      assert.ok(refused.line !== null, `NGINX named no line of ${confPath}: ${refused.nginxOutput}`);
      assert.deepEqual(ownersOfLine(site, real.conf, refused.line), [ref('blog', 'main')]);
      const text = problemText(refused.nginxOutput);
      assert.match(text, /client_max_body_size/);
      assert.doesNotMatch(text, new RegExp(prefix), 'no controller path in the text users see');
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
  });
});
