// mirror-* (ingress-nginx v1.15.1: internal/ingress/annotations/mirror and its test,
// test/e2e/annotations/mirror.go; docs annotations.md "Mirror"): annotations only.
// ingress-nginx validates mirror-target and mirror-host with IsValidRegex (trimmed) and
// mirror-request-body with ^(on|off)$ (spaces removed); a value that fails is ignored with a
// warning. Here a target is a strict URL with $request_uri as the only variable: what
// ingress-nginx's validator takes beyond that is unsupported (the Ingress is not served).
// mirror-target and mirror-host are High risk: refused under annotations-risk-level Medium/Low.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { MirrorConfig, MirrorTarget } from '../types.ts';
import { mirrorFeature, mirrorName } from './mirror.ts';
import { annotationField, described, ingressConfig, parseAnnotations, readConfigMap, testDefaults, testValueRows, type ValueRow } from './testing.ts';

function target(scheme: 'http' | 'https', host: string, port: number | null, path: string, mirrorHost: string | null = null, requestBody = true): Partial<MirrorConfig> {
  const parsed: MirrorTarget = { scheme, host, port, path };
  return { target: parsed, host: mirrorHost, requestBody, name: mirrorName({ target: parsed, host: mirrorHost, requestBody }) };
}

const values: ValueRow<MirrorConfig>[] = [
  // ingress-nginx's own rows (main_test.go, e2e mirror.go).
  { name: 'target with /$request_uri', key: 'mirror-target', value: 'https://test.env.com/$request_uri', want: target('https', 'test.env.com', null, '/$request_uri') },
  { name: 'target with $request_uri right after the host', key: 'mirror-target', value: 'https://test.env.com$request_uri', want: target('https', 'test.env.com', null, '$request_uri') },
  { name: 'target with a port and $request_uri', key: 'mirror-target', value: 'https://test.env.com:8080$request_uri', want: target('https', 'test.env.com', 8080, '$request_uri') },
  { name: 'target with a port, / and $request_uri', key: 'mirror-target', value: 'https://test.env.com:8080/$request_uri', want: target('https', 'test.env.com', 8080, '/$request_uri') },
  { name: 'target http://localhost/mirror (the e2e test\'s)', key: 'mirror-target', value: 'http://localhost/mirror', want: target('http', 'localhost', null, '/mirror') },
  { name: 'target without a path', key: 'mirror-target', value: 'http://some.test.env.com', want: target('http', 'some.test.env.com', null, '') },
  { name: 'target an IPv4 address', key: 'mirror-target', value: 'http://127.0.0.1:9000/copy/$request_uri', want: target('http', '127.0.0.1', 9000, '/copy/$request_uri') },
  { name: 'target with spaces around it (trimmed, as ingress-nginx)', key: 'mirror-target', value: '  http://m.example/  ', want: target('http', 'm.example', null, '/') },
  { name: 'target with a prefix then $request_uri', key: 'mirror-target', value: 'http://m.example/shadow$request_uri', want: target('http', 'm.example', null, '/shadow$request_uri') },
  // ingress-nginx's validator takes these; they cannot reach nginx.conf here.
  { name: 'target not a URL (IamNotAURL)', key: 'mirror-target', value: 'IamNotAURL', want: 'unsupported' },
  { name: 'target another variable', key: 'mirror-target', value: 'http://some.test.env.com/$someparam', want: 'unsupported' },
  { name: 'target variables in a query', key: 'mirror-target', value: 'http://some.test.env.com:2121/$someparam=1&$someotherparam=2', want: 'unsupported' },
  { name: 'target $request_uri with braces', key: 'mirror-target', value: 'http://m.example/${request_uri}', want: 'unsupported' },
  { name: 'target braces (an NGINX block)', key: 'mirror-target', value: 'http://m.example/}location{', want: 'unsupported' },
  { name: 'target $request_uri not at the end', key: 'mirror-target', value: 'http://m.example/$request_uri/x', want: 'unsupported' },
  { name: 'target $request_uri twice', key: 'mirror-target', value: 'http://m.example$request_uri$request_uri', want: 'unsupported' },
  { name: 'target $request_uri glued to a name', key: 'mirror-target', value: 'http://m.example/$request_uri_x', want: 'unsupported' },
  { name: 'target $host', key: 'mirror-target', value: 'http://$host/', want: 'unsupported' },
  { name: 'target a variable as the port', key: 'mirror-target', value: 'http://m.example:$server_port/', want: 'unsupported' },
  { name: 'target a query string', key: 'mirror-target', value: 'http://m.example/?a=b', want: 'unsupported' },
  { name: 'target a regex', key: 'mirror-target', value: 'http://m.example/(.*)', want: 'unsupported' },
  { name: 'target a backslash', key: 'mirror-target', value: 'http://m.example/a\\b', want: 'unsupported' },
  { name: 'target ftp', key: 'mirror-target', value: 'ftp://m.example/', want: 'unsupported' },
  { name: 'target upper-case scheme', key: 'mirror-target', value: 'HTTP://m.example/', want: 'unsupported' },
  { name: 'target unix socket', key: 'mirror-target', value: 'http://unix:/tmp/x.sock:/', want: 'unsupported' },
  { name: 'target no host', key: 'mirror-target', value: 'http:///x', want: 'unsupported' },
  { name: 'target port 0', key: 'mirror-target', value: 'http://m.example:0/', want: 'unsupported' },
  { name: 'target port 65536', key: 'mirror-target', value: 'http://m.example:65536/', want: 'unsupported' },
  { name: 'target dotted digits that are no address', key: 'mirror-target', value: 'http://999.1.1.1/', want: 'unsupported' },
  { name: 'target a label starting with -', key: 'mirror-target', value: 'http://-m.example/', want: 'unsupported' },
  { name: 'target an empty label (..)', key: 'mirror-target', value: 'http://m..example/', want: 'unsupported' },
  { name: 'target IPv6', key: 'mirror-target', value: 'http://[::1]:80/', want: 'unsupported' },
  { name: 'target a path too long', key: 'mirror-target', value: `http://m.example/${'a'.repeat(1024)}`, want: 'unsupported' },
  // ingress-nginx's validator refuses these: ignored with a warning, no mirror.
  { name: 'target with a space', key: 'mirror-target', value: 'http://m.example/a b', want: 'ignore' },
  { name: 'target with a double quote', key: 'mirror-target', value: 'http://m.example/"; return 200 "x', want: 'ignore' },
  { name: 'target with a single quote', key: 'mirror-target', value: "http://m.example/'", want: 'ignore' },
  { name: 'target with a ;', key: 'mirror-target', value: 'http://m.example/;', want: 'ignore' },
  { name: 'target with a newline', key: 'mirror-target', value: 'http://m.example/\nproxy_pass http://evil', want: 'ignore' },
  { name: 'target with a #', key: 'mirror-target', value: 'http://m.example/#x', want: 'ignore' },
  { name: 'target with a %', key: 'mirror-target', value: 'http://m.example/%20', want: 'ignore' },
  { name: 'target with a NUL', key: 'mirror-target', value: 'http://m.example/\u0000', want: 'ignore' },
  { name: 'target empty', key: 'mirror-target', value: '', want: 'ignore' },
  { name: 'target not a string', key: 'mirror-target', value: 80, want: 'ignore' },
  { name: 'request body off', key: 'mirror-request-body', value: 'off', want: { requestBody: false } },
  { name: 'request body on', key: 'mirror-request-body', value: 'on', want: { requestBody: true } },
  { name: 'request body off with spaces (trimmed)', key: 'mirror-request-body', value: ' off ', want: { requestBody: false } },
  // ingress-nginx checks "o ff" without spaces (valid) and compares it trimmed with "off": on.
  { name: 'request body o ff (valid there, not off)', key: 'mirror-request-body', value: 'o ff', want: { requestBody: true } },
  { name: 'request body false', key: 'mirror-request-body', value: 'false', want: 'ignore' },
  { name: 'request body OFF', key: 'mirror-request-body', value: 'OFF', want: 'ignore' },
  { name: 'request body empty', key: 'mirror-request-body', value: '', want: 'ignore' },
  { name: 'host a name', key: 'mirror-host', value: 'test.env.com', want: { host: 'test.env.com' } },
  { name: 'host with a port', key: 'mirror-host', value: 'test.env.com:8443', want: { host: 'test.env.com:8443' } },
  { name: 'host an address', key: 'mirror-host', value: '10.0.0.1', want: { host: '10.0.0.1' } },
  { name: 'host trimmed', key: 'mirror-host', value: ' shadow.example ', want: { host: 'shadow.example' } },
  { name: 'host ingress-nginx\'s invalid row (quotes, %, !)', key: 'mirror-host', value: 'someInvalidParam.%^&*()_=!@#\'"', want: 'ignore' },
  { name: 'host ingress-nginx\'s other invalid row', key: 'mirror-host', value: '_sbrubles-i"@xpto:12345', want: 'ignore' },
  { name: 'host with a space', key: 'mirror-host', value: 'a b', want: 'ignore' },
  { name: 'host with a ;', key: 'mirror-host', value: 'a;b', want: 'ignore' },
  { name: 'host with a newline', key: 'mirror-host', value: 'a\nb', want: 'ignore' },
  { name: 'host a variable', key: 'mirror-host', value: '$http_host', want: 'unsupported' },
  { name: 'host braces', key: 'mirror-host', value: '{a}', want: 'unsupported' },
  { name: 'host a path', key: 'mirror-host', value: 'a/b', want: 'unsupported' },
  { name: 'host an underscore', key: 'mirror-host', value: 'a_b.example', want: 'unsupported' },
  { name: 'host port 70000', key: 'mirror-host', value: 'a.example:70000', want: 'unsupported' },
];

void describe('mirror: values', () => {
  testValueRows(mirrorFeature, values);
});

void describe('mirror: defaults', () => {
  testDefaults(mirrorFeature, { target: null, requestBody: true, host: null, name: null });
});

const HIGH = { 'mirror-target': 'http://127.0.0.1:9000$request_uri', 'mirror-host': 'shadow.example' };

void describe('mirror: read together', () => {
  void it('target, host and body together: the name is the same for the same three, else another', () => {
    const config = ingressConfig(parseAnnotations({ ...HIGH, 'mirror-request-body': 'off' }), 'mirror');
    assert.deepEqual(config, target('http', '127.0.0.1', 9000, '$request_uri', 'shadow.example', false));
    assert.match(config?.name ?? '', /^_mirror-[0-9a-f]{16}$/u);
    assert.equal(config?.name, ingressConfig(parseAnnotations({ 'mirror-request-body': 'off', ...HIGH }), 'mirror')?.name);
    const others = [HIGH, { 'mirror-target': HIGH['mirror-target'], 'mirror-request-body': 'off' }, { ...HIGH, 'mirror-target': 'http://127.0.0.1:9001$request_uri', 'mirror-request-body': 'off' }];
    for (const other of others) assert.notEqual(config?.name, ingressConfig(parseAnnotations(other), 'mirror')?.name, JSON.stringify(other));
  });
  void it('mirror-host without a target mirrors nothing (no name)', () => {
    assert.deepEqual(ingressConfig(parseAnnotations({ 'mirror-host': 'a.example' }), 'mirror'), { target: null, requestBody: true, host: 'a.example', name: null });
  });
  void it('the ConfigMap has no mirror keys', () => {
    const read = readConfigMap({ 'mirror-target': 'http://a.example/' });
    assert.deepEqual(read.settings.mirror, mirrorFeature.defaults);
    assert.deepEqual(described(read.failures), ['UnknownConfigMapKey ConfigMap ingress/resty-ingress: data[mirror-target] (warning)']);
  });
});

interface RiskRow {
  readonly name: string;
  readonly level: 'High' | 'Medium' | 'Low';
  readonly annotations: Readonly<Record<string, string>>;
  /** The failures (`reason field`), [] = served. */
  readonly want: readonly string[];
}

const risks: RiskRow[] = [
  { name: 'High allows mirror-target and mirror-host', level: 'High', annotations: HIGH, want: [] },
  { name: 'Medium refuses mirror-target and mirror-host (High)', level: 'Medium', annotations: HIGH,
    want: [`RiskyAnnotation ${annotationField('mirror-host')}`, `RiskyAnnotation ${annotationField('mirror-target')}`] },
  { name: 'Low refuses mirror-target', level: 'Low', annotations: { 'mirror-target': HIGH['mirror-target'] }, want: [`RiskyAnnotation ${annotationField('mirror-target')}`] },
  { name: 'Medium refuses even an empty mirror-target (ingress-nginx checks names)', level: 'Medium', annotations: { 'mirror-target': '' }, want: [`RiskyAnnotation ${annotationField('mirror-target')}`] },
  { name: 'Low allows mirror-request-body (Low)', level: 'Low', annotations: { 'mirror-request-body': 'off' }, want: [] },
  { name: 'Medium allows a Medium annotation (proxy-body-size)', level: 'Medium', annotations: { 'proxy-body-size': '8m' }, want: [] },
  { name: 'Low refuses a Medium annotation (proxy-body-size)', level: 'Low', annotations: { 'proxy-body-size': '8m' }, want: [`RiskyAnnotation ${annotationField('proxy-body-size')}`] },
  { name: 'Medium refuses a High annotation (server-alias)', level: 'Medium', annotations: { 'server-alias': 'b.example' },
    want: [`RiskyAnnotation ${annotationField('server-alias')}`] },
];

void describe('mirror: annotations-risk-level', () => {
  for (const row of risks) {
    void it(row.name, () => {
      const read = readConfigMap({ 'annotations-risk-level': row.level });
      assert.deepEqual(read.failures, []);
      const parsed = parseAnnotations(row.annotations, read.settings);
      const failures = parsed.ok ? [] : parsed.failures.filter((failure) => failure.warning !== true);
      assert.deepEqual(described(failures), row.want);
      for (const failure of failures) assert.match(failure.message, new RegExp(`is High risk|is Medium risk`, 'u'));
      if (row.want.length === 0) assert.equal(parsed.ok, true);
    });
  }
});
