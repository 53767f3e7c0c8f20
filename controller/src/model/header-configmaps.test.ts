// A ConfigMap of headers (proxy-set-headers, add-headers): which entries are
// sent and which are left out, and the controller's own header list kept equal
// to the template that prints it.

import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CONTROLLER_REQUEST_HEADERS, headerValueProblem, isHeaderName, readHeaderConfigMap, resolveHeaderConfigMap } from './header-configmaps.ts';

const UPSTREAM = { key: 'proxy-set-headers', reserved: CONTROLLER_REQUEST_HEADERS };
const RESPONSE = { key: 'add-headers', reserved: null };

function configMap(data: Record<string, unknown>, name = 'custom-headers'): { metadata: { namespace: string; name: string }; data: Record<string, string> } {
  return { metadata: { namespace: 'ingress', name }, data: data as Record<string, string> };
}

void describe('header ConfigMaps: entries', () => {
  const rows: { name: string; data: Record<string, unknown>; use?: typeof UPSTREAM | typeof RESPONSE; sent: [string, string][]; problem?: RegExp }[] = [
    { name: 'plain values', data: { 'X-Different-Name': 'true', 'X-Using-Nginx-Controller': 'true' }, sent: [['X-Different-Name', 'true'], ['X-Using-Nginx-Controller', 'true']] },
    { name: 'ingress-nginx\'s example: ${msec}', data: { 'X-Request-Start': 't=${msec}' }, sent: [['X-Request-Start', 't=${msec}']] },
    { name: 'a $variable and a header variable', data: { 'X-Client': '$remote_addr $http_user_agent' }, sent: [['X-Client', '$remote_addr $http_user_agent']] },
    { name: 'a CSP value with ; and quotes of one kind', data: { 'Content-Security-Policy': "default-src 'self'; img-src *" }, use: RESPONSE, sent: [['Content-Security-Policy', "default-src 'self'; img-src *"]] },
    { name: 'an empty value (proxy_set_header then drops the client\'s)', data: { 'X-Drop': '' }, sent: [['X-Drop', '']] },
    { name: 'braces as text', data: { 'X-Json': '{a}' }, sent: [['X-Json', '{a}']] },
    { name: 'an unknown variable', data: { 'X-A': '$no_such_thing' }, sent: [], problem: /NGINX does not know/u },
    { name: 'a lone $', data: { 'X-A': 'price: 5$' }, sent: [], problem: /starts no variable/u },
    { name: 'an unclosed ${', data: { 'X-A': '${msec' }, sent: [], problem: /starts no variable/u },
    { name: 'a double quote', data: { 'X-A': 'a"; deny all; "' }, sent: [], problem: /control character, a non-ASCII character, " or \\/u },
    { name: 'a backslash', data: { 'X-A': 'a\\' }, sent: [], problem: /" or \\/u },
    { name: 'a newline', data: { 'X-A': 'a\nproxy_pass http://evil;' }, sent: [], problem: /control character/u },
    { name: 'a NUL byte', data: { 'X-A': 'a\u0000' }, sent: [], problem: /control character/u },
    { name: 'a tab', data: { 'X-A': 'a\tb' }, sent: [], problem: /control character/u },
    { name: 'non-ASCII', data: { 'X-A': 'caf\u00e9' }, sent: [], problem: /non-ASCII/u },
    { name: 'too long', data: { 'X-A': 'a'.repeat(4001) }, sent: [], problem: /longer than 4000/u },
    { name: 'not a string (a value the API never sends)', data: { 'X-A': 5 }, sent: [], problem: /not a string/u },
    { name: 'a name with a colon', data: { 'X-A:b': 'v' }, sent: [], problem: /not an HTTP header name/u },
    { name: 'a name with $', data: { 'X-$host': 'v' }, sent: [], problem: /not an HTTP header name/u },
    { name: 'a name with a space', data: { 'X A': 'v' }, sent: [], problem: /not an HTTP header name/u },
    { name: 'Content-Length frames the message', data: { 'Content-Length': '0' }, use: RESPONSE, sent: [], problem: /frames the message/u },
    { name: 'transfer-encoding in any case', data: { 'Transfer-Encoding': 'chunked' }, sent: [], problem: /frames the message/u },
    { name: 'Host: the controller sends it', data: { Host: 'other' }, sent: [], problem: /the controller sends itself/u },
    { name: 'x-forwarded-proto in lower case: the controller\'s', data: { 'x-forwarded-proto': 'https' }, sent: [], problem: /the controller sends itself/u },
    { name: 'X-Forwarded-Proto in add-headers: a response header, sent', data: { 'X-Forwarded-Proto': 'https' }, use: RESPONSE, sent: [['X-Forwarded-Proto', 'https']] },
    { name: 'one bad entry leaves the others', data: { 'X-A': 'ok', 'X-B': 'bad"', 'X-C': 'ok' }, sent: [['X-A', 'ok'], ['X-C', 'ok']], problem: /X-B/u },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const read = readHeaderConfigMap(configMap(row.data), 'ingress/custom-headers', row.use ?? UPSTREAM);
      assert.deepEqual(read.headers, row.sent);
      if (row.problem === undefined) assert.deepEqual(read.problems, []);
      else {
        assert.equal(read.problems.length, 1);
        assert.match(read.problems[0] ?? '', row.problem);
      }
    });
  }

  void it('at most 100 headers: the rest are refused', () => {
    const data = Object.fromEntries(Array.from({ length: 102 }, (_, i) => [`X-${String(i).padStart(3, '0')}`, 'v']));
    const read = readHeaderConfigMap(configMap(data), 'ingress/custom-headers', UPSTREAM);
    assert.equal(read.headers.length, 100);
    assert.equal(read.problems.length, 2);
  });
});

void describe('header ConfigMaps: resolving the reference', () => {
  void it('no reference: nothing', () => {
    assert.deepEqual(resolveHeaderConfigMap(null, [], UPSTREAM), { headers: [], failures: [] });
  });
  void it('a missing ConfigMap: one failure naming it and the key', () => {
    const resolved = resolveHeaderConfigMap('ingress/nowhere', [configMap({ 'X-A': 'v' })], UPSTREAM);
    assert.deepEqual(resolved.headers, []);
    assert.equal(resolved.failures.length, 1);
    assert.equal(resolved.failures[0]?.reason, 'HeadersConfigMapNotFound');
    assert.match(resolved.failures[0]?.message ?? '', /ConfigMap ingress\/nowhere named by proxy-set-headers not found/u);
  });
  void it('another namespace\'s ConfigMap of the same name is not it', () => {
    const other = { metadata: { namespace: 'apps', name: 'custom-headers' }, data: { 'X-A': 'v' } };
    assert.deepEqual(resolveHeaderConfigMap('ingress/custom-headers', [other], UPSTREAM).headers, []);
  });
  void it('refused entries: one warning each, never the whole value quoted', () => {
    const resolved = resolveHeaderConfigMap('ingress/custom-headers', [configMap({ 'X-A': `secret"${'x'.repeat(300)}` })], UPSTREAM);
    assert.equal(resolved.failures.length, 1);
    assert.equal(resolved.failures[0]?.warning, true);
    assert.doesNotMatch(resolved.failures[0]?.message ?? '', /secret/u);
  });
});

void describe('header ConfigMaps: grammars', () => {
  void it('names: tokens without $ or a single quote', () => {
    for (const name of ['X-A', 'x_a', 'A.B~c', 'X|Y']) assert.equal(isHeaderName(name), true, name);
    for (const name of ['', 'X A', 'X:A', 'X$A', 'X"A', "X'A", 'X(A)', 'a'.repeat(129)]) assert.equal(isHeaderName(name), false, name);
  });
  void it('names: at most 46 characters (NGINX\'s header hash: render/header-settings-render.test.ts runs nginx -t on one)', () => {
    assert.equal(isHeaderName(`X-${'a'.repeat(44)}`), true);
    assert.equal(isHeaderName(`X-${'a'.repeat(45)}`), false);
  });
  void it('values: variables known to NGINX only', () => {
    assert.equal(headerValueProblem('$msec ${request_id} $cookie_session $upstream_http_x_a'), null);
    assert.match(headerValueProblem('${}') ?? '', /starts no variable/u);
  });
});

void describe('header ConfigMaps: the controller\'s own request headers', () => {
  void it('are exactly the names proxy-headers.njk sends', () => {
    const template = readFileSync(fileURLToPath(new URL('../../../rootfs/etc/nginx/template/proxy-headers.njk', import.meta.url)), 'utf8');
    const sent = new Set([...template.matchAll(/\{\{ headerDirective \}\} ([A-Za-z][A-Za-z0-9-]*) /gu)].map((match) => (match[1] as string).toLowerCase()));
    assert.ok(sent.size > 10, 'the template\'s list was found');
    assert.deepEqual([...CONTROLLER_REQUEST_HEADERS].sort(), [...sent].sort());
  });
});
