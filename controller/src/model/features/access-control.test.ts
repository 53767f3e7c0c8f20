// Allow/deny lists and block lists, as ingress-nginx v1.15.1 reads them
// (annotations ipallowlist/ipdenylist: parser.ValidateCIDRs refuses the Ingress
// on a bad item, the alias whitelist-source-range is read only when
// allowlist-source-range is empty, an empty value denies the location; the
// ConfigMap's lists are split and trimmed, empty items dropped). Never open by
// mistake: a refused ConfigMap list serves no Ingress.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { AccessControlConfig } from '../types.ts';
import { accessControlFeature } from './access-control.ts';
import { configField, described, ingressConfig, parseAnnotations, readConfigMap } from './testing.ts';
import { testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow } from './testing.ts';

const allowlist = 'allowlist-source-range';
const whitelist = 'whitelist-source-range';
const denylist = 'denylist-source-range';

const values: ValueRow<AccessControlConfig>[] = [
  { name: 'allowlist-source-range, ranges sorted and canonical', key: allowlist, value: '192.168.0.0/16, 10.1.2.3/8', want: { allow: ['10.0.0.0/8', '192.168.0.0/16'] } },
  { name: 'allowlist-source-range, IPv6 and addresses', key: allowlist, value: '::1,2001:DB8::/32,127.0.0.1', want: { allow: ['127.0.0.1', '2001:db8::/32', '::1'] } },
  { name: 'whitelist-source-range (the old name) alone', key: whitelist, value: '10.0.0.0/8', want: { allow: ['10.0.0.0/8'] } },
  { name: 'denylist-source-range', key: denylist, value: '10.0.0.5, 2001:db8::1', want: { deny: ['10.0.0.5', '2001:db8::1'] } },
  // parser.ValidateCIDRs refuses these: the Ingress is not served (never open).
  { name: 'allowlist-source-range with a bad item', key: allowlist, value: '10.0.0.0/8,nope', want: 'fail' },
  { name: 'allowlist-source-range with a trailing comma', key: allowlist, value: '10.0.0.0/8,', want: 'fail' },
  { name: 'allowlist-source-range with a directive after it', key: allowlist, value: '10.0.0.0/8; allow all', want: 'fail' },
  { name: 'allowlist-source-range "all"', key: allowlist, value: 'all', want: 'fail' },
  { name: 'whitelist-source-range with a bad prefix', key: whitelist, value: '10.0.0.0/33', want: 'fail' },
  { name: 'denylist-source-range with a zone', key: denylist, value: 'fe80::1%eth0', want: 'fail' },
  { name: 'allowlist-source-range of an IPv4-mapped /64', key: allowlist, value: '::ffff:10.0.0.0/64', want: 'unsupported' },
  // ingress-nginx: an empty value is no value, and its parser denies the location (503).
  { name: 'allowlist-source-range empty denies the location', key: allowlist, value: '', want: { denied: true } },
  { name: 'allowlist-source-range of spaces denies the location', key: allowlist, value: '  ', want: { denied: true } },
  // The ConfigMap's lists: a refused list serves no Ingress (testing.ts checks `closed`).
  { name: 'denylist-source-range of one address', key: denylist, value: '10.0.0.9', want: { deny: ['10.0.0.9'] } },
  { name: 'ConfigMap block-cidrs', key: 'block-cidrs', value: '10.0.0.0/8, ::1', want: { blockCidrs: ['10.0.0.0/8', '::1'] } },
  { name: 'ConfigMap block-cidrs empty', key: 'block-cidrs', value: '', want: {} },
  { name: 'ConfigMap block-cidrs with a bad item', key: 'block-cidrs', value: '10.0.0.0/8, ten', want: 'fail' },
  {
    name: 'ConfigMap block-user-agents: strings and regexes', key: 'block-user-agents', value: '~*bot, curl/7.68.0,"~Go-http client"',
    want: { blockUserAgents: [{ kind: 'regex-caseless', value: 'bot' }, { kind: 'exact', value: 'curl/7.68.0' }, { kind: 'regex', value: 'Go-http client' }] },
  },
  { name: 'ConfigMap block-referers', key: 'block-referers', value: '~*\\.evil\\.example$', want: { blockReferers: [{ kind: 'regex-caseless', value: '\\.evil\\.example$' }] } },
  { name: 'ConfigMap block-user-agents with an unquoted space (NGINX would read two keys)', key: 'block-user-agents', value: 'Bad Bot', want: 'fail' },
  { name: 'ConfigMap block-user-agents with a catastrophic regex', key: 'block-user-agents', value: '~(a+)+$', want: 'fail' },
];

const overrides: OverrideRow<AccessControlConfig>[] = [
  {
    name: 'the ConfigMap\'s allow list applies to an Ingress that sets none',
    configMap: { [whitelist]: '10.0.0.0/8' }, annotations: {}, global: { allow: ['10.0.0.0/8'] }, want: null,
  },
  {
    name: 'an Ingress\'s allow list replaces the ConfigMap\'s',
    configMap: { [whitelist]: '10.0.0.0/8' }, annotations: { [allowlist]: '127.0.0.1' }, global: { allow: ['10.0.0.0/8'] }, want: { allow: ['127.0.0.1'] },
  },
  {
    name: 'an Ingress\'s deny list keeps the ConfigMap\'s allow list and block lists',
    configMap: { [whitelist]: '10.0.0.0/8', 'block-cidrs': '10.9.0.0/16' }, annotations: { [denylist]: '10.0.0.1' },
    global: { allow: ['10.0.0.0/8'], blockCidrs: ['10.9.0.0/16'] }, want: { deny: ['10.0.0.1'] },
  },
  {
    name: 'both names: allowlist-source-range wins, whitelist-source-range is not even read (as ingress-nginx\'s alias)',
    configMap: {}, annotations: { [allowlist]: '127.0.0.1', [whitelist]: 'not a list' }, global: {}, want: { allow: ['127.0.0.1'] },
  },
  {
    name: 'allowlist-source-range empty: whitelist-source-range is read',
    configMap: {}, annotations: { [allowlist]: '', [whitelist]: '10.0.0.0/8' }, global: {}, want: { allow: ['10.0.0.0/8'] },
  },
  {
    name: 'both empty: the location is denied, not open',
    configMap: { [whitelist]: '10.0.0.0/8' }, annotations: { [allowlist]: '', [whitelist]: '' }, global: { allow: ['10.0.0.0/8'] }, want: { denied: true },
  },
];

void describe('access control: values', () => testValueRows(accessControlFeature, values));
void describe('access control: the ConfigMap\'s lists, an Ingress\'s', () => testOverrideRows(accessControlFeature, overrides));
void describe('access control: defaults', () => testDefaults(accessControlFeature, {
  allow: [], deny: [], denied: false, blockCidrs: [], blockUserAgents: [], blockReferers: [],
}));

void describe('access control: what differs between the two sources of a name', () => {
  void it('the ConfigMap drops empty items (splitAndTrimSpace); an annotation refuses them (ValidateCIDRs)', () => {
    const read = readConfigMap({ [whitelist]: '10.0.0.0/8,,127.0.0.1 ,' });
    assert.deepEqual(read.failures, []);
    assert.deepEqual(read.settings.accessControl.allow, ['10.0.0.0/8', '127.0.0.1']);
    assert.equal(parseAnnotations({ [whitelist]: '10.0.0.0/8,,127.0.0.1 ,' }).ok, false);
  });

  void it('an empty deny list: the annotation denies the location, the ConfigMap key sets nothing', () => {
    assert.deepEqual(ingressConfig(parseAnnotations({ [denylist]: '' }), 'accessControl')?.denied, true);
    const read = readConfigMap({ [denylist]: '' });
    assert.deepEqual([read.closed, read.failures, read.settings.accessControl.denied, read.settings.accessControl.deny], [false, [], false, []]);
  });
});

void describe('access control: never open by mistake', () => {
  const rows: { name: string; configMap: Record<string, string> }[] = [
    { name: 'a bad ConfigMap allow list', configMap: { [whitelist]: '10.0.0.0/8,nope' } },
    { name: 'a bad ConfigMap deny list', configMap: { [denylist]: '10.0.0.0/99' } },
    { name: 'a bad block-cidrs', configMap: { 'block-cidrs': 'all' } },
    { name: 'a bad block-referers', configMap: { 'block-referers': '~(' } },
  ];
  for (const row of rows) {
    void it(`${row.name}: no Ingress is served, the failure says so`, () => {
      const read = readConfigMap(row.configMap);
      assert.equal(read.closed, true);
      const [key] = Object.keys(row.configMap);
      assert.deepEqual(described(read.failures), [`InvalidConfigMapValue ${configField(key as string)}`]);
      assert.match(read.failures[0]?.message ?? '', /no Ingress is served until it is fixed/u);
    });
  }

  void it('the whitelist alias with a bad list refuses the Ingress when allowlist-source-range is empty', () => {
    const parsed = parseAnnotations({ [allowlist]: '', [whitelist]: '10.0.0.0/8,x' });
    assert.equal(parsed.ok, false);
  });

  void it('an Ingress with only other annotations carries no access config (the ConfigMap\'s applies)', () => {
    assert.equal(ingressConfig(parseAnnotations({ 'enable-cors': 'true' }), 'accessControl'), undefined);
  });
});
