// The second wall for allow/deny lists, block lists and CORS origins: the
// filters print only their grammar's tokens and refuse anything else, even
// if a model that skipped validation reached render.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { quoteAddress, quoteMapKey, quoteOriginRegex } from './access-values.ts';
import { RenderError } from './nginx-values.ts';

const rows: { name: string; filter: (value: unknown) => string; value: unknown; want: string | null }[] = [
  { name: 'qaddr: an IPv4 range', filter: quoteAddress, value: '10.0.0.0/8', want: '"10.0.0.0/8"' },
  { name: 'qaddr: an IPv6 address', filter: quoteAddress, value: '2001:db8::1', want: '"2001:db8::1"' },
  { name: 'qaddr: all', filter: quoteAddress, value: 'all', want: null },
  { name: 'qaddr: a directive after the range', filter: quoteAddress, value: '10.0.0.0/8; allow all', want: null },
  { name: 'qaddr: a quote', filter: quoteAddress, value: '10.0.0.0"', want: null },
  { name: 'qaddr: not a string', filter: quoteAddress, value: 10, want: null },
  { name: 'qpattern: a case-insensitive regex', filter: quoteMapKey, value: { kind: 'regex-caseless', value: '(bot|crawler)' }, want: '"~*(bot|crawler)"' },
  { name: 'qpattern: a regex with an escape NGINX keeps', filter: quoteMapKey, value: { kind: 'regex', value: '\\.example$' }, want: '"~\\.example$"' },
  { name: 'qpattern: a string with spaces and ;', filter: quoteMapKey, value: { kind: 'exact', value: 'a b; c' }, want: '"a b; c"' },
  { name: 'qpattern: a quote', filter: quoteMapKey, value: { kind: 'exact', value: 'a"b' }, want: null },
  { name: 'qpattern: an escaped quote NGINX would unescape', filter: quoteMapKey, value: { kind: 'regex', value: 'a\\"b' }, want: null },
  { name: 'qpattern: a trailing backslash', filter: quoteMapKey, value: { kind: 'regex', value: 'a\\' }, want: null },
  { name: 'qpattern: a newline', filter: quoteMapKey, value: { kind: 'exact', value: 'a\nb' }, want: null },
  { name: 'qpattern: a string that is a map parameter', filter: quoteMapKey, value: { kind: 'exact', value: 'default' }, want: null },
  { name: 'qpattern: a string that reads as a regex', filter: quoteMapKey, value: { kind: 'exact', value: '~x' }, want: null },
  { name: 'qpattern: an unknown kind', filter: quoteMapKey, value: { kind: 'raw', value: 'x' }, want: null },
  { name: 'qorigins: origins, a wildcard and null', filter: quoteOriginRegex, value: ['https://a.com', 'https://*.b.com:8443', 'null'], want: '"^(?:https://a[.]com|https://[A-Za-z0-9-]+[.]b[.]com:8443|null)$"' },
  { name: 'qorigins: *', filter: quoteOriginRegex, value: ['*'], want: null },
  { name: 'qorigins: a regex smuggled in', filter: quoteOriginRegex, value: ['https://a.com|.*'], want: null },
  { name: 'qorigins: a quote', filter: quoteOriginRegex, value: ['https://a.com"'], want: null },
  { name: 'qorigins: empty', filter: quoteOriginRegex, value: [], want: null },
];

void describe('access and CORS filters', () => {
  for (const row of rows) {
    void it(row.name, () => {
      if (row.want === null) assert.throws(() => row.filter(row.value), (error) => error instanceof RenderError && error.code === 'UnsafeValue');
      else assert.equal(row.filter(row.value), row.want);
    });
  }
});
