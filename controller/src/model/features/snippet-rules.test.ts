// The snippet tokenizer and its rules with hostile inputs: each row is what a
// user writes and what NGINX would read from it, so a directive hidden behind
// a quote, an escape, a comment or a variable is found (or, where NGINX reads
// a harmless word, passes).

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { checkSnippet } from './snippet-rules.ts';
import { tokenizeSnippet } from './snippet-tokens.ts';

/** want: the rendered lines, or a pattern the refusal must match. */
const rows: { name: string; text: string; want: readonly string[] | RegExp }[] = [
  { name: 'a plain directive', text: 'add_header X-Snippet on;', want: ['add_header X-Snippet on;'] },
  { name: 'empty', text: '', want: [] },
  { name: 'only a comment', text: '# nothing here', want: [] },
  { name: 'newlines and indentation normalised', text: '\n\t  add_header A 1;\n\n   add_header B 2;  ', want: ['add_header A 1;', 'add_header B 2;'] },
  { name: 'a double-quoted value keeps its quotes', text: 'add_header X "a b; c";', want: ['add_header X "a b; c";'] },
  { name: 'a single-quoted value with a brace', text: "add_header X '{ }';", want: ["add_header X '{ }';"] },
  { name: 'a block nested', text: 'if ($http_x) { return 418; }', want: ['if ($http_x) {', '    return 418;', '}'] },
  { name: '${var} braces belong to the variable', text: 'add_header X ${host}z;', want: ['add_header X ${host}z;'] },
  { name: '# inside a word is not a comment (NGINX)', text: 'add_header X a#b;', want: ['add_header X a#b;'] },
  { name: 'a trailing comment is dropped', text: 'add_header X 1; # include /etc/passwd;', want: ['add_header X 1;'] },
  { name: 'a path elsewhere is fine', text: 'add_header X /usr/local/etc/x;', want: ['add_header X /usr/local/etc/x;'] },
  // Directives hidden from a naive reader.
  { name: 'a comment ends at the newline: include after it', text: 'add_header X 1; # c\ninclude /tmp/x.conf;', want: /^include is not allowed \(found "include"\)$/u },
  { name: 'a word ending in # then ; then include', text: 'add_header X a#; include /tmp/x;', want: /^include is not allowed/u },
  { name: 'a quoted directive name is still the directive', text: '"load_module" /tmp/x.so;', want: /^load_module is not allowed/u },
  { name: 'an escaped directive name (\\l reads as \\l, not l): NGINX does not know it', text: '\\load_module /tmp/x.so;', want: ['\\load_module /tmp/x.so;'] },
  { name: 'an escaped quote does not end the string', text: 'add_header X "a\\"; include /tmp/x; #";', want: ['add_header X "a\\"; include /tmp/x; #";'] },
  { name: 'a quote closed early does not hide include', text: 'add_header X "a\\\\"; include /tmp/x;', want: /^include is not allowed/u },
  { name: 'content_by_lua_block', text: 'content_by_lua_block { ngx.say("hi") }', want: /^\*_by_lua\* directives are not allowed \(found "content_by_lua_block"\)$/u },
  { name: 'access_by_lua_file', text: 'access_by_lua_file /tmp/x.lua;', want: /^\*_by_lua\* directives are not allowed/u },
  { name: 'set_by_lua in a nested block', text: 'location /x { set_by_lua $a "return 1"; }', want: /^\*_by_lua\* directives are not allowed/u },
  { name: 'lua_package_path', text: 'lua_package_path "/tmp/?.lua;;";', want: /^lua_\* directives are not allowed/u },
  { name: 'a path under /etc', text: 'ssl_certificate /etc/kubernetes/x.crt;', want: /^paths under \/etc or \/var\/run\/secrets are not allowed \(found "\/etc\/kubernetes\/x.crt"\)$/u },
  { name: '/etc quoted', text: 'auth_basic_user_file "/etc/shadow";', want: /^paths under \/etc/u },
  { name: '/etc after a kept backslash: refused too (stricter than NGINX needs)', text: 'root "\\/etc";', want: /^paths under \/etc/u },
  { name: '/etc spelt with an escaped quote NGINX removes', text: 'root /\\"etc/x;', want: ['root /\\"etc/x;'] },
  { name: '/e\\tc is a tab to NGINX, not /etc', text: 'root /e\\tc;', want: ['root /e\\tc;'] },
  { name: 'service account token', text: 'alias /var/run/secrets/kubernetes.io/serviceaccount/;', want: /^paths under \/etc or \/var\/run\/secrets/u },
  { name: '/run/secrets (what /var/run is)', text: 'alias /run/secrets/x;', want: /^paths under \/etc/u },
  { name: '/etc behind an empty variable', text: 'root $e/etc;', want: /^paths under \/etc/u },
  { name: '/etc after a scheme', text: 'proxy_pass file:/etc/passwd;', want: /^paths under \/etc/u },
  { name: 'a .. segment', text: 'root /tmp/../etc;', want: /^paths under \/etc|^"\.\."/u },
  { name: 'a .. segment alone', text: 'root /srv/www/../../x;', want: /^"\.\." path segments are not allowed/u },
  // Syntax NGINX refuses: never rendered (it would break nginx -t for everyone before blame).
  { name: 'a directive without ;', text: 'add_header X 1', want: /^not NGINX configuration syntax: the last directive has no ";"$/u },
  { name: 'a closing brace too many (breaks out of the location)', text: 'return 200; } server { listen 1;', want: /^not NGINX configuration syntax: unexpected "\}"/u },
  { name: 'a block left open', text: 'if ($a) { return 200;', want: /^not NGINX configuration syntax: a block is not closed/u },
  { name: 'an unclosed quote', text: 'add_header X "abc;', want: /^not NGINX configuration syntax: a quoted string is not closed$/u },
  { name: 'a word straight after a quote', text: 'add_header X "a"b;', want: /^not NGINX configuration syntax: unexpected "b" after a quoted string$/u },
  { name: 'a line break inside a quoted string (a forged marker line)', text: 'add_header X "a\n# snippet end\n";', want: /^not NGINX configuration syntax: a line break inside a quoted string$/u },
  { name: 'a lone ;', text: ';', want: /^not NGINX configuration syntax: unexpected ";"$/u },
  { name: 'a control character', text: 'add_header X a\u0000b;', want: /^not NGINX configuration syntax: a control character$/u },
  { name: 'a trailing backslash', text: 'add_header X a\\', want: /^not NGINX configuration syntax/u },
  { name: 'too long', text: `add_header X ${'a'.repeat(20000)};`, want: /^not NGINX configuration syntax: longer than/u },
];

void describe('snippets: tokenizer and rules', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const checked = checkSnippet(row.text);
      if (Array.isArray(row.want)) {
        assert.ok(checked.ok, checked.ok ? '' : checked.reason);
        assert.deepEqual(checked.value, row.want);
      } else {
        assert.ok(!checked.ok, `accepted: ${JSON.stringify(checked.ok && checked.value)}`);
        assert.match(checked.reason, row.want as RegExp);
      }
    });
  }
});

void describe('snippets: token values as NGINX unescapes them', () => {
  const rows2: { name: string; text: string; values: readonly string[] }[] = [
    { name: 'quotes removed, \\" unescaped', text: 'a "b\\"c" \'d\';', values: ['a', 'b"c', 'd', ';'] },
    { name: '\\t \\n \\\\ unescaped, other escapes kept', text: 'a \\t\\n\\\\\\x;', values: ['a', '\t\n\\\\x', ';'] },
    { name: 'an escaped space joins two words', text: 'a b\\ c;', values: ['a', 'b\\ c', ';'] },
    { name: '} inside a word is part of it', text: 'a b};', values: ['a', 'b}', ';'] },
  ];
  for (const row of rows2) {
    void it(row.name, () => {
      const tokens = tokenizeSnippet(row.text);
      assert.ok(tokens.ok, tokens.ok ? '' : tokens.reason);
      assert.deepEqual(tokens.value.map((token) => token.value), row.values);
    });
  }
});
