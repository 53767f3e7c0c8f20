// The snippet keys as ingress-nginx v1.15.1 governs them: the annotations
// refuse their Ingress unless the ConfigMap says allow-snippet-annotations
// "true" AND annotations-risk-level Critical (the reason names what is
// missing); allowed, a snippet still passes the snippet rules (the denial names
// the rule); the ConfigMap's snippets are the operator's (no consent needed,
// as in ingress-nginx) but pass the same rules; the word blocklist refuses an
// Ingress in the model whatever its annotations are.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { SnippetsConfig } from '../types.ts';
import { DEFAULT_SETTINGS } from './parse.ts';
import { snippetsFeature } from './snippets.ts';
import { annotationField, assertReadable, configField, described, ingressConfig, parseAnnotations, readConfigMap, testDefaults } from './testing.ts';

const ALLOW = { 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' };
const ADD = 'add_header X-Snippet on;';

void describe('snippets: defaults', () => testDefaults(snippetsFeature, { configuration: [], server: [], auth: [], main: [], http: [], everyServer: [], everyLocation: [] }));

void describe('snippets: the gate (allow-snippet-annotations and annotations-risk-level)', () => {
  const rows: { name: string; configMap: Record<string, string>; annotation: string; value: unknown; want: Partial<SnippetsConfig> | RegExp; reason?: string }[] = [
    { name: 'defaults: refused, both settings named', configMap: {}, annotation: 'configuration-snippet', value: ADD,
      want: /configuration-snippet: snippets need ConfigMap allow-snippet-annotations "true" \(is "false"\) and annotations-risk-level Critical \(is High\); the Ingress is skipped$/u },
    { name: 'allowed but risk High: refused, the level named', configMap: { 'allow-snippet-annotations': 'true' }, annotation: 'server-snippet', value: ADD,
      want: /snippets need ConfigMap annotations-risk-level Critical \(is High\);/u },
    { name: 'Critical but not allowed: refused, allow-snippet-annotations named', configMap: { 'annotations-risk-level': 'Critical' }, annotation: 'configuration-snippet', value: ADD,
      want: /snippets need ConfigMap allow-snippet-annotations "true" \(is "false"\);/u },
    { name: 'an empty snippet is refused too (ingress-nginx rates names)', configMap: {}, annotation: 'server-snippet', value: '', want: /snippets need ConfigMap/u },
    { name: 'a snippet we do not render is refused without the gate as with it', configMap: {}, annotation: 'stream-snippet', value: 'x;', want: /snippets need ConfigMap/u },
    { name: 'allowed at Critical: configuration-snippet read', configMap: ALLOW, annotation: 'configuration-snippet', value: `${ADD} # why`, want: { configuration: [ADD] } },
    { name: 'allowed at Critical: server-snippet read', configMap: ALLOW, annotation: 'server-snippet', value: 'location = /hi { return 200; }', want: { server: ['location = /hi {', '    return 200;', '}'] } },
    { name: 'allowed: the rule is named (include)', configMap: ALLOW, annotation: 'configuration-snippet', value: 'include /tmp/x.conf;',
      want: /^invalid value "include \/tmp\/x.conf;" for nginx.ingress.kubernetes.io\/configuration-snippet: snippet refused: include is not allowed/u, reason: 'InvalidAnnotation' },
    { name: 'allowed: *_by_lua* named', configMap: ALLOW, annotation: 'server-snippet', value: 'content_by_lua_block { os.exit() }', want: /snippet refused: \*_by_lua\* directives are not allowed/u, reason: 'InvalidAnnotation' },
    { name: 'allowed: /var/run/secrets named', configMap: ALLOW, annotation: 'configuration-snippet', value: 'alias /var/run/secrets/kubernetes.io/;', want: /snippet refused: paths under \/etc or \/var\/run\/secrets are not allowed/u, reason: 'InvalidAnnotation' },
    { name: 'allowed: bad syntax named', configMap: ALLOW, annotation: 'configuration-snippet', value: 'return 200; }', want: /snippet refused: not NGINX configuration syntax/u, reason: 'InvalidAnnotation' },
    { name: 'allowed: auth-snippet read', configMap: ALLOW, annotation: 'auth-snippet', value: ADD, want: { auth: [ADD] } },
    { name: 'allowed: auth-snippet breaking a rule', configMap: ALLOW, annotation: 'auth-snippet', value: 'proxy_pass_request_body on; include x;', want: /snippet refused: include is not allowed/u, reason: 'InvalidAnnotation' },
    { name: 'allowed: modsecurity-snippet refused', configMap: ALLOW, annotation: 'modsecurity-snippet', value: 'x;', want: /ModSecurity/u, reason: 'SnippetNotSupported' },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const read = readConfigMap(row.configMap);
      assert.deepEqual(read.failures, []);
      const parsed = parseAnnotations({ [row.annotation]: row.value }, read.settings);
      if (row.want instanceof RegExp) {
        assert.equal(parsed.ok, false);
        if (parsed.ok) return;
        assert.deepEqual(described(parsed.failures.filter((failure) => failure.warning !== true)), [`${row.reason ?? 'SnippetNotAllowed'} ${annotationField(row.annotation)}`]);
        assertReadable(parsed.failures[0]);
        assert.match(parsed.failures[0]?.message ?? '', row.want);
        return;
      }
      assert.ok(parsed.ok, parsed.ok ? '' : described(parsed.failures).join('; '));
      assert.deepEqual(ingressConfig(parsed, 'snippets'), { ...snippetsFeature.defaults, ...row.want });
    });
  }
});

void describe('snippets: the ConfigMap\'s (operator-owned, no consent needed, the same rules)', () => {
  const rows: { name: string; data: Record<string, string>; want: Partial<SnippetsConfig> | RegExp }[] = [
    { name: 'http-snippet read without allow-snippet-annotations', data: { 'http-snippet': 'map $host $x { default 1; }' }, want: { http: ['map $host $x {', '    default 1;', '}'] } },
    { name: 'main-snippet', data: { 'main-snippet': 'worker_rlimit_nofile 4096;' }, want: { main: ['worker_rlimit_nofile 4096;'] } },
    { name: 'server-snippet', data: { 'server-snippet': ADD }, want: { everyServer: [ADD] } },
    { name: 'location-snippet', data: { 'location-snippet': ADD }, want: { everyLocation: [ADD] } },
    { name: 'main-snippet load_module refused, named', data: { 'main-snippet': 'load_module /tmp/evil.so;' }, want: /ConfigMap key main-snippet: snippet refused: load_module is not allowed/u },
    { name: 'http-snippet lua_package_path refused', data: { 'http-snippet': 'lua_package_path "/tmp/?.lua";' }, want: /lua_\* directives are not allowed/u },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const read = readConfigMap(row.data);
      const [key] = Object.keys(row.data);
      if (row.want instanceof RegExp) {
        assert.deepEqual(described(read.failures), [`InvalidConfigMapValue ${configField(key ?? '')}`]);
        assert.match(read.failures[0]?.message ?? '', row.want);
        assert.deepEqual(read.settings.snippets, DEFAULT_SETTINGS.snippets);
        assert.equal(read.closed, false);
        return;
      }
      assert.deepEqual(read.failures, []);
      assert.deepEqual(read.settings.snippets, { ...snippetsFeature.defaults, ...row.want });
    });
  }
});

void describe('annotation-value-word-blocklist in the model', () => {
  const rows: { name: string; list: string; annotations: Record<string, string>; want: RegExp | null }[] = [
    { name: 'a value holding a listed word: refused, the word named', list: 'something_forbidden,otherthing', annotations: { 'rewrite-target': '/something_forbidden' },
      want: /^nginx.ingress.kubernetes.io\/rewrite-target annotation contains invalid word "something_forbidden" \(ConfigMap annotation-value-word-blocklist\)/u },
    { name: 'case-sensitive, as strings.Contains', list: 'Forbidden', annotations: { 'rewrite-target': '/forbidden' }, want: null },
    { name: 'words trimmed', list: ' {  , x_by_lua ', annotations: { 'cors-allow-origin': 'https://a{b' }, want: /contains invalid word "\{"/u },
    { name: 'an empty word blocks nothing', list: 'a,,', annotations: { 'rewrite-target': '/b' }, want: null },
    { name: 'empty list: nothing blocked', list: '', annotations: { 'rewrite-target': '/load_module' }, want: null },
    { name: 'a snippet\'s value counts too', list: '_by_lua', annotations: { 'configuration-snippet': 'x_by_lua_block;' }, want: /configuration-snippet annotation contains invalid word "_by_lua"/u },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const read = readConfigMap({ 'annotation-value-word-blocklist': row.list, ...(row.name.includes('snippet') ? ALLOW : {}) });
      assert.deepEqual(read.failures, []);
      const parsed = parseAnnotations(row.annotations, read.settings);
      if (row.want === null) {
        assert.ok(parsed.ok, parsed.ok ? '' : described(parsed.failures).join('; '));
        return;
      }
      assert.equal(parsed.ok, false);
      if (parsed.ok) return;
      const blocked = parsed.failures.filter((failure) => failure.reason === 'BlockedAnnotationValue');
      assert.equal(blocked.length, 1, described(parsed.failures).join('; '));
      assertReadable(blocked[0]);
      assert.match(blocked[0]?.message ?? '', row.want);
    });
  }
});
