// Where the snippets are printed (features/snippets.njk, snippets-server.njk,
// http.njk, nginx.conf.njk), that real `nginx -t` takes them, that a model
// whose lines are not what the snippet rules print is refused by the render
// (a hand-written input cannot slip text past the rules), and that a snippet
// line NGINX refuses is blamed on its Ingress alone.

import { strict as assert } from 'node:assert';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findDataplane } from '../nginx/dataplane.ts';
import { testNginxConf } from '../nginx/nginx-conf-files.ts';
import { NginxConfigError } from '../nginx/nginx-errors.ts';
import { checkSnippet } from '../model/features/snippet-rules.ts';
import type { IngressRef, Model, SnippetsConfig } from '../model/types.ts';
import { ownersOfLine } from './conf-owners.ts';
import { renderConfig } from './render-config.ts';
import { assertNginxAccepts } from './testdata/golden-check.ts';
import { backend, DEFAULT_SETTINGS, goldenOptions, model, notFound, proxied, server } from './testdata/model-fixtures.ts';
import { makePrefix } from './testdata/nginx-runner.ts';
import { parseAnnotations, readConfigMap } from '../model/features/testing.ts';
import type { Location, Policy } from '../model/types.ts';

const ref = (namespace: string, name: string): IngressRef => ({ namespace, name });
const APP = backend('default-app');
const NONE: SnippetsConfig = DEFAULT_SETTINGS.snippets;

function lines(text: string): readonly string[] {
  const checked = checkSnippet(text);
  assert.ok(checked.ok, checked.ok ? '' : checked.reason);
  return checked.value;
}

function site(own: Partial<SnippetsConfig>, global: Partial<SnippetsConfig> = {}, other: Partial<SnippetsConfig> = {}): Model {
  return model([
    server('_', [notFound('/')]),
    server('shop.test', [
      proxied('/api', 'prefix', APP.name, { ingress: ref('shop', 'api'), policy: { snippets: { ...NONE, ...global, ...own } } }),
      proxied('/', 'prefix', APP.name, { ingress: ref('shop', 'front'), policy: { snippets: { ...NONE, ...global, ...other } } }),
    ]),
  ], [APP], { ...DEFAULT_SETTINGS, snippets: { ...NONE, ...global } });
}

/** The text between the line holding `open` and its block's closing line at the same indent. */
function blockOf(conf: string, open: string): string {
  const all = conf.split('\n');
  const start = all.findIndex((line) => line.includes(open));
  assert.ok(start >= 0, `no ${open}`);
  const indent = /^\s*/u.exec(all[start] ?? '')?.[0] ?? '';
  const end = all.findIndex((line, i) => i > start && line === `${indent}}`);
  return all.slice(start, end + 1).join('\n');
}

void describe('snippets: rendered', () => {
  void it('configuration-snippet in each block of its Ingress\'s location only, after the features', async () => {
    const conf = renderConfig(site({ configuration: lines('add_header X-Api on; # why') }), goldenOptions()).conf;
    assert.match(blockOf(conf, 'location "/api/" {'), /\n {12}add_header X-Api on;\n/u);
    assert.match(blockOf(conf, 'location = "/api" {'), /\n {12}add_header X-Api on;\n/u);
    assert.doesNotMatch(blockOf(conf, 'location "/" {'), /X-Api/u);
    assert.doesNotMatch(conf, /# why/u);
    await assertNginxAccepts(conf);
  });
  void it('server-snippet in its host\'s server, between lines naming its Ingress', async () => {
    const conf = renderConfig(site({ server: lines('location = /hello { return 200 "hi"; }') }), goldenOptions()).conf;
    assert.match(conf, /# server-snippet of "shop\/api" \(begin\)\n {8}location = \/hello \{\n {12}return 200 "hi";\n {8}\}\n {8}# server-snippet of "shop\/api" \(end\)/u);
    assert.equal(conf.split('server-snippet of').length - 1, 2, 'once, in shop.test only');
    await assertNginxAccepts(conf);
  });
  void it('the ConfigMap\'s main-, http-, server- and location-snippet', async () => {
    const global = {
      main: lines('worker_rlimit_nofile 4096;'), http: lines('map $host $resty_snippet_probe { default 1; }'),
      everyServer: lines('add_header X-Every-Server on;'), everyLocation: lines('add_header X-Every-Location on;'),
    };
    const conf = renderConfig(site({}, global), goldenOptions()).conf;
    assert.match(conf, /\n# main-snippet \(ConfigMap\)\nworker_rlimit_nofile 4096;\n/u);
    assert.match(conf, /\n {4}# http-snippet \(ConfigMap\)\n {4}map \$host \$resty_snippet_probe \{\n {8}default 1;\n {4}\}\n/u);
    assert.equal(conf.split('        add_header X-Every-Server on;').length - 1, 2, 'each public server');
    assert.ok(conf.split('            add_header X-Every-Location on;').length - 1 >= 3, 'each location');
    await assertNginxAccepts(conf);
  });
  void it('lines that are not what the rules print are refused by the render', () => {
    const rows: readonly (readonly string[])[] = [['include /tmp/x.conf;'], ['add_header X 1; # hidden'], ['return 200; }'], ['add_header  X 1;']];
    for (const bad of rows) {
      assert.throws(() => renderConfig(site({ configuration: bad }), goldenOptions()), /snippet/u, JSON.stringify(bad));
    }
  });
});

void describe('snippets: blame', () => {
  const rows: { name: string; own: Partial<SnippetsConfig>; text: RegExp }[] = [
    { name: 'a server-snippet NGINX refuses is blamed on its Ingress', own: { server: lines('no_such_directive on;') }, text: /no_such_directive/u },
    { name: 'a configuration-snippet NGINX refuses is blamed on its Ingress', own: { configuration: lines('no_such_directive on;') }, text: /no_such_directive/u },
    { name: 'a line inside a location nested by a configuration-snippet', own: { configuration: lines('location /api/inner { no_such_directive on; }') },
      // NGINX may stop at the nested location itself (no location inside the exact `= /api`): either line is the Ingress's.
      text: /no_such_directive|location \/api\/inner/u },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const dataplane = findDataplane();
      const prefix = makePrefix();
      try {
        const broken = site(row.own);
        const { conf } = renderConfig(broken, goldenOptions(dataplane, prefix));
        const confPath = join(prefix, 'nginx.conf');
        writeFileSync(confPath, conf);
        const refused = await testNginxConf({ dataplane, prefix, confPath }).then(() => assert.fail('nginx -t accepted'), (err: unknown) => err);
        assert.ok(refused instanceof NginxConfigError && refused.line !== null, String(refused));
        assert.match(conf.split('\n')[refused.line - 1] ?? '', row.text);
        assert.deepEqual(ownersOfLine(broken, conf, refused.line), [ref('shop', 'api')]);
      } finally {
        rmSync(prefix, { recursive: true, force: true });
      }
    });
  }
});

/** An Ingress's policy with snippets allowed (the builder's parse, over a ConfigMap that allows them). */
function policyOf(annotations: Record<string, string>): Policy {
  const read = readConfigMap({ 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' });
  const parsed = parseAnnotations(annotations, read.settings);
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return parsed.value.policy;
}

function authSite(snippet: string): { site: Model; conf: (prefix?: string) => string } {
  const url = 'http://127.0.0.1:9/verify';
  const locations: Location[] = [
    proxied('/api', 'prefix', APP.name, { ingress: ref('shop', 'api'), policy: policyOf({ 'auth-url': url, 'auth-snippet': snippet }) }),
    proxied('/', 'prefix', APP.name, { ingress: ref('shop', 'front'), policy: policyOf({ 'auth-url': url }) }),
  ];
  const built = model([server('_', [notFound('/')]), server('shop.test', locations)], [APP]);
  return { site: built, conf: (prefix) => renderConfig(built, prefix === undefined ? goldenOptions() : goldenOptions(findDataplane(), prefix)).conf };
}

void describe('auth-snippet', () => {
  void it('in the auth location of its Ingress only, which is its own; nginx -t takes it', async () => {
    const { conf } = authSite('proxy_set_header X-Auth-Snippet "on";');
    const text = conf();
    const authLocations = [...text.matchAll(/location = "\/(_external-auth-[0-9a-f-]+)" \{/gu)].map((m) => m[1]);
    assert.equal(authLocations.length, 2, 'one auth location with the snippet, one without');
    const withSnippet = authLocations.filter((name) => blockOf(text, `location = "/${name}" {`).includes('X-Auth-Snippet'));
    assert.equal(withSnippet.length, 1);
    assert.match(withSnippet[0] ?? '', /^_external-auth-[0-9a-f]{16}-[0-9a-f]{8}$/u);
    assert.match(blockOf(text, 'location = "/api" {'), new RegExp(`auth_request "/${withSnippet[0]}";`, 'u'));
    assert.doesNotMatch(blockOf(text, 'location "/" {'), new RegExp(withSnippet[0] ?? 'x', 'u'));
    await assertNginxAccepts(text);
  });
  void it('a line NGINX refuses in it is blamed on its Ingress alone', async () => {
    const { site: broken, conf } = authSite('no_such_directive on;');
    const prefix = makePrefix();
    try {
      const text = conf(prefix);
      const confPath = join(prefix, 'nginx.conf');
      writeFileSync(confPath, text);
      const dataplane = findDataplane();
      const refused = await testNginxConf({ dataplane, prefix, confPath }).then(() => assert.fail('nginx -t accepted'), (err: unknown) => err);
      assert.ok(refused instanceof NginxConfigError && refused.line !== null, String(refused));
      assert.match(text.split('\n')[refused.line - 1] ?? '', /no_such_directive/u);
      assert.deepEqual(ownersOfLine(broken, text, refused.line), [ref('shop', 'api')]);
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
  });
  void it('without auth-url: a warning (it acts only under global auth)', () => {
    const read = readConfigMap({ 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' });
    const parsed = parseAnnotations({ 'auth-snippet': 'proxy_set_header X-A 1;' }, read.settings);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.warnings.map((w) => w.reason), ['SnippetWithoutAuth']);
  });
});
