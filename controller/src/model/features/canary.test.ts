// canary-* (ingress-nginx v1.15.1: internal/ingress/annotations/canary and its test;
// docs annotations.md "Canary"): annotations only, read together, pushed to Lua (the
// Ingress's dynamic part, never its policy). As in ingress-nginx, a value that does not
// parse is ignored with a warning and its default applies. A value ingress-nginx's
// validators take (strconv.Atoi for the weights, BasicCharsRegex without spaces for the
// header, value and cookie, IsValidRegex for the pattern) that this controller cannot
// honour is unsupported: the Ingress is not served. ingress-nginx drops canary
// settings that configure something (weight > 0, a header, value, pattern or cookie)
// without canary: "true"; here such an Ingress is refused instead (documented).

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { CanaryConfig } from '../types.ts';
import { canaryFeature } from './canary.ts';
import {
  annotationField, described, ingressConfig, parseAnnotations, readConfigMap, configField,
  testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow,
} from './testing.ts';

const DEFAULTS: CanaryConfig = { enabled: false, weight: 0, weightTotal: 100, header: null, headerValue: null, headerPattern: null, cookie: null };
/** Rows of the other keys run on a canary Ingress. */
const on = { with: { canary: 'true' }, base: { enabled: true } } as const;

const values: ValueRow<CanaryConfig>[] = [
  { name: 'canary true', key: 'canary', value: 'true', want: { enabled: true } },
  { name: 'canary false', key: 'canary', value: 'false', want: { enabled: false } },
  { name: 'canary yes', key: 'canary', value: 'yes', want: 'ignore' },
  { name: 'canary empty', key: 'canary', value: '', want: 'ignore' },
  { name: 'canary-weight 20', key: 'canary-weight', value: '20', want: { weight: 20 }, ...on },
  { name: 'canary-weight 0', key: 'canary-weight', value: '0', want: { weight: 0 }, ...on },
  { name: 'canary-weight 100', key: 'canary-weight', value: '100', want: { weight: 100 }, ...on },
  // Above the total: every request goes to the canary by weight (Lua compares with the total).
  { name: 'canary-weight above the total', key: 'canary-weight', value: '150', want: { weight: 150 }, ...on },
  { name: 'canary-weight 1000000 (the most)', key: 'canary-weight', value: '1000000', want: { weight: 1_000_000 }, ...on },
  { name: 'canary-weight with a + sign (strconv.Atoi takes it)', key: 'canary-weight', value: '+20', want: { weight: 20 }, ...on },
  { name: 'canary-weight 1000001', key: 'canary-weight', value: '1000001', want: 'unsupported', ...on },
  { name: 'canary-weight negative', key: 'canary-weight', value: '-5', want: 'unsupported', ...on },
  { name: 'canary-weight the largest int64', key: 'canary-weight', value: '9223372036854775807', want: 'unsupported', ...on },
  { name: 'canary-weight past int64', key: 'canary-weight', value: '9223372036854775808', want: 'ignore', ...on },
  { name: 'canary-weight decimal', key: 'canary-weight', value: '1.5', want: 'ignore', ...on },
  { name: 'canary-weight with a space', key: 'canary-weight', value: ' 20', want: 'ignore', ...on },
  { name: 'canary-weight a word', key: 'canary-weight', value: 'half', want: 'ignore', ...on },
  { name: 'canary-weight empty', key: 'canary-weight', value: '', want: 'ignore', ...on },
  { name: 'canary-weight not a string', key: 'canary-weight', value: 20, want: 'ignore', ...on },
  { name: 'canary-weight-total 1000', key: 'canary-weight-total', value: '1000', want: { weightTotal: 1000 }, ...on },
  { name: 'canary-weight-total 1 (the least)', key: 'canary-weight-total', value: '1', want: { weightTotal: 1 }, ...on },
  { name: 'canary-weight-total 0', key: 'canary-weight-total', value: '0', want: 'unsupported', ...on },
  { name: 'canary-weight-total 1000001', key: 'canary-weight-total', value: '1000001', want: 'unsupported', ...on },
  { name: 'canary-weight-total a word', key: 'canary-weight-total', value: 'all', want: 'ignore', ...on },
  { name: 'canary-by-header', key: 'canary-by-header', value: 'X-Canary', want: { header: 'X-Canary' }, ...on },
  { name: 'canary-by-header of 128 characters', key: 'canary-by-header', value: 'h'.repeat(128), want: { header: 'h'.repeat(128) }, ...on },
  { name: 'canary-by-header with spaces around it (trimmed)', key: 'canary-by-header', value: ' X-Canary ', want: { header: 'X-Canary' }, ...on },
  // BasicCharsRegex takes these (checked without spaces, used trimmed); no HTTP token allows them.
  { name: 'canary-by-header of 129 characters', key: 'canary-by-header', value: 'h'.repeat(129), want: 'unsupported', ...on },
  { name: 'canary-by-header with a space', key: 'canary-by-header', value: 'X Canary', want: 'unsupported', ...on },
  { name: 'canary-by-header with a /', key: 'canary-by-header', value: 'X/Canary', want: 'unsupported', ...on },
  { name: 'canary-by-header with a :', key: 'canary-by-header', value: 'X-Canary:', want: 'unsupported', ...on },
  { name: 'canary-by-header with CRLF', key: 'canary-by-header', value: 'X-Canary\r\nX-Other', want: 'ignore', ...on },
  { name: 'canary-by-header with a ;', key: 'canary-by-header', value: 'X;Canary', want: 'ignore', ...on },
  { name: 'canary-by-header spaces only', key: 'canary-by-header', value: '   ', want: 'ignore', ...on },
  { name: 'canary-by-header empty', key: 'canary-by-header', value: '', want: 'ignore', ...on },
  { name: 'canary-by-header-value', key: 'canary-by-header-value', value: 'beta', want: { headerValue: 'beta' }, ...on },
  { name: 'canary-by-header-value with spaces', key: 'canary-by-header-value', value: 'beta users', want: { headerValue: 'beta users' }, ...on },
  { name: 'canary-by-header-value of 1024 characters', key: 'canary-by-header-value', value: 'v'.repeat(1024), want: { headerValue: 'v'.repeat(1024) }, ...on },
  { name: 'canary-by-header-value with spaces around it (trimmed)', key: 'canary-by-header-value', value: ' beta ', want: { headerValue: 'beta' }, ...on },
  { name: 'canary-by-header-value of 1025 characters', key: 'canary-by-header-value', value: 'v'.repeat(1025), want: 'unsupported', ...on },
  // Lua takes at most 1024 bytes and refused the push of every route (found by lua/body-properties.test.ts).
  { name: 'canary-by-header-value of 1024 characters, 1025 bytes', key: 'canary-by-header-value', value: `${'v'.repeat(1023)}é`, want: 'ignore', ...on },
  { name: 'canary-by-header-value of 512 two-byte characters (1024 bytes)', key: 'canary-by-header-value', value: 'é'.repeat(512), want: { headerValue: 'é'.repeat(512) }, ...on },
  { name: 'canary-by-header-value with a newline', key: 'canary-by-header-value', value: 'a\nb', want: 'ignore', ...on },
  { name: 'canary-by-header-value with DEL', key: 'canary-by-header-value', value: 'a\u007f', want: 'ignore', ...on },
  { name: 'canary-by-header-value empty', key: 'canary-by-header-value', value: '', want: 'ignore', ...on },
  { name: 'canary-by-header-pattern', key: 'canary-by-header-pattern', value: '^(beta|gamma)$', want: { headerPattern: '^(beta|gamma)$' }, ...on },
  { name: 'canary-by-header-pattern with escapes', key: 'canary-by-header-pattern', value: '^v\\d+$', want: { headerPattern: '^v\\d+$' }, ...on },
  // IsValidRegex takes these (it checks characters, not the regex).
  { name: 'canary-by-header-pattern with a (? group', key: 'canary-by-header-pattern', value: '(?i)beta', want: 'unsupported', ...on },
  { name: 'canary-by-header-pattern not a regex', key: 'canary-by-header-pattern', value: '[beta', want: 'unsupported', ...on },
  { name: 'canary-by-header-pattern of 257 characters', key: 'canary-by-header-pattern', value: 'p'.repeat(257), want: 'unsupported', ...on },
  { name: 'canary-by-header-pattern with a newline', key: 'canary-by-header-pattern', value: 'a\nb', want: 'ignore', ...on },
  { name: 'canary-by-header-pattern of 257 characters with a space', key: 'canary-by-header-pattern', value: `${'p'.repeat(256)} `, want: 'ignore', ...on },
  { name: 'canary-by-header-pattern empty', key: 'canary-by-header-pattern', value: '', want: 'ignore', ...on },
  // JavaScript takes them, PCRE2 (Lua) refused them and with them every route push (found by lua/body-properties.test.ts).
  { name: 'canary-by-header-pattern with \\u{41}', key: 'canary-by-header-pattern', value: '\\u{41}', want: 'unsupported', ...on },
  { name: 'canary-by-header-pattern with \\u0041', key: 'canary-by-header-pattern', value: 'v\\u0041', want: 'unsupported', ...on },
  { name: 'canary-by-header-pattern with \\p{Letter} (a long property name PCRE2 does not know)', key: 'canary-by-header-pattern', value: '\\p{Letter}', want: 'unsupported', ...on },
  { name: 'canary-by-header-pattern with \\v (another class in PCRE)', key: 'canary-by-header-pattern', value: 'a\\vb', want: 'unsupported', ...on },
  { name: 'canary-by-header-pattern with an empty class', key: 'canary-by-header-pattern', value: 'a[^]', want: 'unsupported', ...on },
  { name: 'canary-by-header-pattern with non-ASCII', key: 'canary-by-header-pattern', value: 'é+', want: 'ignore', ...on },
  { name: 'canary-by-header-pattern with escapes both read alike', key: 'canary-by-header-pattern', value: '^(a)\\w\\s\\x41\\.\\/\\p{L}\\P{Nd}\\cA[\\b]\\1?$',
    want: { headerPattern: '^(a)\\w\\s\\x41\\.\\/\\p{L}\\P{Nd}\\cA[\\b]\\1?$' }, ...on },
  { name: 'canary-by-cookie', key: 'canary-by-cookie', value: 'canary_enabled', want: { cookie: 'canary_enabled' }, ...on },
  { name: 'canary-by-cookie with ;', key: 'canary-by-cookie', value: 'a;b', want: 'ignore', ...on },
  { name: 'canary-by-cookie with =', key: 'canary-by-cookie', value: 'a=b', want: 'ignore', ...on },
  { name: 'canary-by-cookie with a /', key: 'canary-by-cookie', value: 'a/b', want: 'unsupported', ...on },
  { name: 'canary-by-cookie with spaces around it (trimmed)', key: 'canary-by-cookie', value: ' beta ', want: { cookie: 'beta' }, ...on },
];

/** Annotations read together: what the Ingress ends up as. */
const combined: { name: string; annotations: Record<string, string>; want: Partial<CanaryConfig> | string[]; warnings?: string[] }[] = [
  // ingress-nginx's TestAnnotations rows.
  {
    name: 'disabled, weight 0, empty header and cookie: not a canary',
    annotations: { canary: 'false', 'canary-weight': '0', 'canary-by-header': '', 'canary-by-cookie': '' }, want: {},
    warnings: [`IgnoredInvalidAnnotation ${annotationField('canary-by-header')} (warning)`, `IgnoredInvalidAnnotation ${annotationField('canary-by-cookie')} (warning)`],
  },
  { name: 'disabled with a weight', annotations: { canary: 'false', 'canary-weight': '20' }, want: [`InvalidAnnotation ${annotationField('canary')}`] },
  { name: 'disabled with a header', annotations: { canary: 'false', 'canary-by-header': 'X-Canary' }, want: [`InvalidAnnotation ${annotationField('canary')}`] },
  { name: 'disabled with a cookie', annotations: { canary: 'false', 'canary-by-cookie': 'canary_enabled' }, want: [`InvalidAnnotation ${annotationField('canary')}`] },
  { name: 'enabled with a weight', annotations: { canary: 'true', 'canary-weight': '20' }, want: { enabled: true, weight: 20 } },
  { name: 'enabled by header', annotations: { canary: 'true', 'canary-weight': '20', 'canary-by-header': 'X-Canary' }, want: { enabled: true, weight: 20, header: 'X-Canary' } },
  { name: 'enabled by cookie', annotations: { canary: 'true', 'canary-weight': '20', 'canary-by-cookie': 'canary_enabled' }, want: { enabled: true, weight: 20, cookie: 'canary_enabled' } },
  // The condition is ingress-nginx's: what configures something, not what is written.
  { name: 'disabled with weight 0: not a canary', annotations: { canary: 'false', 'canary-weight': '0' }, want: {} },
  { name: 'disabled with a weight total only: not a canary', annotations: { canary: 'false', 'canary-weight-total': '50' }, want: { weightTotal: 50 } },
  { name: 'no canary annotation, a header: refused', annotations: { 'canary-by-header': 'X-Canary' }, want: [`InvalidAnnotation ${annotationField('canary-by-header')}`] },
  {
    name: 'canary unreadable (so false) with a weight: refused, and the warning kept',
    annotations: { canary: 'yes', 'canary-weight': '20' },
    want: [`InvalidAnnotation ${annotationField('canary')}`, `IgnoredInvalidAnnotation ${annotationField('canary')} (warning)`],
  },
  {
    name: 'everything at once',
    annotations: {
      canary: 'true', 'canary-weight': '5', 'canary-weight-total': '1000', 'canary-by-header': 'X-Beta',
      'canary-by-header-value': 'yes', 'canary-by-header-pattern': '^y', 'canary-by-cookie': 'beta',
    },
    want: { enabled: true, weight: 5, weightTotal: 1000, header: 'X-Beta', headerValue: 'yes', headerPattern: '^y', cookie: 'beta' },
  },
  // Documented: it has no effect without canary-by-header (Lua decides), and is no error.
  { name: 'a header value without a header', annotations: { canary: 'true', 'canary-by-header-value': 'yes' }, want: { enabled: true, headerValue: 'yes' } },
];

const overrides: OverrideRow<CanaryConfig>[] = [
  { name: 'an Ingress without canary annotations carries no canary config', configMap: {}, annotations: { 'use-regex': 'true' }, global: {}, want: null },
  { name: 'a canary Ingress', configMap: {}, annotations: { canary: 'true', 'canary-weight': '10' }, global: {}, want: { enabled: true, weight: 10 } },
];

void describe('canary: values', () => testValueRows(canaryFeature, values));

void describe('canary: annotations read together', () => {
  for (const row of combined) {
    void it(row.name, () => {
      const parsed = parseAnnotations(row.annotations);
      if (Array.isArray(row.want)) {
        assert.equal(parsed.ok, false, 'the Ingress is refused');
        if (parsed.ok) return;
        assert.deepEqual(described(parsed.failures), row.want);
        assert.match(parsed.failures[0]?.message ?? '', /^Canary: canary-\* settings need canary: "true"; the Ingress is skipped$/u);
        return;
      }
      assert.equal(parsed.ok, true, parsed.ok ? '' : described(parsed.failures).join('; '));
      if (!parsed.ok) return;
      assert.deepEqual(described(parsed.warnings), row.warnings ?? []);
      assert.deepEqual(ingressConfig(parsed, 'canary'), { ...DEFAULTS, ...row.want });
    });
  }

  void it('the config is dynamic (for Lua), never part of the policy', () => {
    const parsed = parseAnnotations({ canary: 'true', 'canary-weight': '10', 'proxy-body-size': '8m' });
    assert.ok(parsed.ok);
    assert.deepEqual(Object.keys(parsed.value.policy), ['proxy']);
    assert.deepEqual(Object.keys(parsed.value.dynamic), ['canary']);
    assert.ok(Object.isFrozen(parsed.value.dynamic.canary));
  });

  void it('the ConfigMap has no canary keys', () => {
    const read = readConfigMap({ canary: 'true', 'canary-weight': '50' });
    assert.deepEqual(read.settings.canary, DEFAULTS);
    assert.deepEqual(described(read.failures), [`UnknownConfigMapKey ${configField('canary')} (warning)`, `UnknownConfigMapKey ${configField('canary-weight')} (warning)`]);
  });
});

void describe('canary: per Ingress', () => testOverrideRows(canaryFeature, overrides));
void describe('canary: defaults', () => testDefaults(canaryFeature, DEFAULTS));
