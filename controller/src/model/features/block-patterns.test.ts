// block-user-agents / block-referers items: the NGINX map key ingress-nginx
// would paste, as a typed key; what NGINX would read otherwise, regexes PCRE
// and JavaScript read differently and catastrophic regexes are refused.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { BlockPattern } from '../types.ts';
import { MAX_PATTERN_LENGTH, MAX_PATTERNS, parseBlockPattern, parseBlockPatterns } from './block-patterns.ts';

const items: { name: string; item: string; want: BlockPattern | 'refuse' | 'unsupported' }[] = [
  { name: 'an exact string', item: 'curl/7.68.0', want: { kind: 'exact', value: 'curl/7.68.0' } },
  { name: 'a case-sensitive regex', item: '~^Wget', want: { kind: 'regex', value: '^Wget' } },
  { name: 'a case-insensitive regex', item: '~*(bot|spider)', want: { kind: 'regex-caseless', value: '(bot|spider)' } },
  { name: 'a regex with escapes both engines read alike', item: '~*\\.example\\.com/\\d+', want: { kind: 'regex-caseless', value: '\\.example\\.com/\\d+' } },
  { name: 'a quoted string with spaces and ; (NGINX unquotes it)', item: '"Mozilla/5.0 (compatible; BadBot/1.0)"', want: { kind: 'exact', value: 'Mozilla/5.0 (compatible; BadBot/1.0)' } },
  { name: 'a single-quoted regex with a space', item: '\'~*bad bot\'', want: { kind: 'regex-caseless', value: 'bad bot' } },
  { name: 'a regex with a brace quantifier, quoted', item: '"~a{2,3}b"', want: { kind: 'regex', value: 'a{2,3}b' } },
  { name: 'unquoted space: NGINX would read two parameters', item: 'Bad Bot', want: 'refuse' },
  { name: 'unquoted ;: NGINX would end the directive', item: 'a;b', want: 'refuse' },
  { name: 'unquoted brace', item: '~a{2}', want: 'refuse' },
  { name: 'unquoted #: NGINX would read a comment', item: 'a#b', want: 'refuse' },
  { name: 'a quote inside', item: 'a"b', want: 'refuse' },
  { name: 'a quote inside a quoted item', item: '"a\'b"', want: 'refuse' },
  { name: 'a control character', item: '"a\tb"', want: 'refuse' },
  { name: 'non-ASCII', item: 'bötch', want: 'refuse' },
  { name: 'an escaped backslash NGINX would unescape', item: '~a\\\\b', want: 'unsupported' },
  { name: '\\n NGINX would turn into a newline', item: '~a\\nb', want: 'unsupported' },
  { name: 'a trailing backslash', item: '~a\\', want: 'unsupported' },
  { name: 'an empty regex', item: '~*', want: 'refuse' },
  { name: 'a regex that does not compile', item: '~(a', want: 'refuse' },
  { name: 'a catastrophic regex', item: '~(a+)+$', want: 'refuse' },
  { name: 'another catastrophic regex', item: '~*(a|aa)*c', want: 'refuse' },
  { name: 'an inline option group (JavaScript cannot check it)', item: '~(?i)bot', want: 'unsupported' },
  { name: 'a \\u escape PCRE refuses', item: '~\\u0041', want: 'unsupported' },
  { name: 'the map parameter default', item: 'default', want: 'unsupported' },
  { name: 'the map parameter hostnames', item: 'hostnames', want: 'unsupported' },
  { name: 'a key starting with a backslash (NGINX drops it)', item: '\\x', want: 'unsupported' },
  { name: `longer than ${MAX_PATTERN_LENGTH} characters`, item: `~${'a'.repeat(MAX_PATTERN_LENGTH)}`, want: 'unsupported' },
];

void describe('parseBlockPattern', () => {
  for (const row of items) {
    void it(row.name, () => {
      const got = parseBlockPattern(row.item);
      if (row.want === 'refuse' || row.want === 'unsupported') {
        assert.equal(got.ok, false);
        if (!got.ok) assert.equal(got.unsupported === true, row.want === 'unsupported', got.reason);
        return;
      }
      assert.deepEqual(got, { ok: true, value: row.want });
    });
  }
});

const lists: { name: string; raw: string; want: readonly BlockPattern[] | 'refuse' | 'unsupported' }[] = [
  { name: 'items trimmed, empty ones dropped', raw: ' ~*bot ,, curl ,', want: [{ kind: 'regex-caseless', value: 'bot' }, { kind: 'exact', value: 'curl' }] },
  { name: 'exact keys differing only in case are one (NGINX lower-cases them)', raw: 'Curl,curl,CURL', want: [{ kind: 'exact', value: 'Curl' }] },
  { name: 'empty', raw: '', want: [] },
  { name: 'one bad item refuses the list', raw: '~*bot, Bad Bot', want: 'refuse' },
  { name: 'too many items', raw: Array.from({ length: MAX_PATTERNS + 1 }, (_, i) => `ua${i}`).join(','), want: 'unsupported' },
];

void describe('parseBlockPatterns', () => {
  for (const row of lists) {
    void it(row.name, () => {
      const got = parseBlockPatterns(row.raw);
      if (row.want === 'refuse' || row.want === 'unsupported') {
        assert.equal(got.ok, false);
        if (!got.ok) assert.equal(got.unsupported === true, row.want === 'unsupported', got.reason);
        return;
      }
      assert.deepEqual(got, { ok: true, value: row.want });
    });
  }
});
