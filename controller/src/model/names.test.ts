import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { checkRuleHost } from './names.ts';

const rows: { name: string; host: unknown; want: string | null }[] = [
  { name: 'empty host is the catch-all', host: '', want: '_' },
  { name: 'absent host is the catch-all', host: undefined, want: '_' },
  { name: 'lowercased', host: 'App.Example.COM', want: 'app.example.com' },
  { name: 'wildcard', host: '*.example.com', want: '*.example.com' },
  { name: 'single label', host: 'localhost', want: 'localhost' },
  { name: 'digits and hyphens', host: 'a-1.b2.example', want: 'a-1.b2.example' },
  { name: 'bare wildcard', host: '*', want: null },
  { name: 'wildcard in the middle', host: 'a.*.example.com', want: null },
  { name: 'partial wildcard label', host: 'a*.example.com', want: null },
  { name: 'leading hyphen', host: '-a.example.com', want: null },
  { name: 'trailing dot', host: 'example.com.', want: null },
  { name: 'underscore (reserved for the catch-all)', host: '_', want: null },
  { name: 'port', host: 'example.com:80', want: null },
  { name: 'newline', host: 'a.com\nserver_name b', want: null },
  { name: 'semicolon', host: 'a.com;', want: null },
  { name: 'brace', host: 'a.com{', want: null },
  { name: 'quote', host: 'a"b.com', want: null },
  { name: 'dollar', host: '$host', want: null },
  { name: 'label of 63 characters', host: `${'a'.repeat(63)}.com`, want: `${'a'.repeat(63)}.com` },
  { name: 'label over 63 characters', host: `${'a'.repeat(64)}.com`, want: null },
  { name: 'last label over 63 characters', host: `a.${'b'.repeat(64)}`, want: null },
  { name: 'wildcard without a domain', host: '*.', want: null },
  { name: 'two wildcard labels', host: '*.*.example.com', want: null },
  { name: 'empty label', host: 'a..example.com', want: null },
  { name: 'trailing hyphen', host: 'a-.example.com', want: null },
  { name: 'leading dot', host: '.example.com', want: null },
  { name: 'name over 253 characters', host: `${'a.'.repeat(127)}com`, want: null },
  { name: 'not a string', host: 7, want: null },
];

void describe('checkRuleHost', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const result = checkRuleHost(row.host);
      assert.equal(result.ok ? result.value : null, row.want);
    });
  }
});
