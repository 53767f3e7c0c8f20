// ingress-nginx's safeguard keys (v1.15.1 defaults: allow-snippet-annotations false,
// annotations-risk-level High, strict-validate-path-type true, annotation-value-word-blocklist
// ""): read as ingress-nginx reads them; strict-validate-path-type's unsafe value is refused
// and the safeguard stays. They have no annotations.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { SafetySettings } from '../types.ts';
import { safetyFeature } from './safety.ts';
import { described, readConfigMap, testDefaults, testValueRows, type ValueRow } from './testing.ts';

const values: ValueRow<SafetySettings>[] = [
  { name: 'allow-snippet-annotations false (ingress-nginx\'s chart writes it)', key: 'allow-snippet-annotations', value: 'false', want: { allowSnippets: false } },
  { name: 'allow-snippet-annotations true', key: 'allow-snippet-annotations', value: 'true', want: { allowSnippets: true } },
  { name: 'allow-snippet-annotations maybe', key: 'allow-snippet-annotations', value: 'maybe', want: 'fail' },
  { name: 'annotations-risk-level High', key: 'annotations-risk-level', value: 'High', want: { riskLevel: 'High' } },
  { name: 'annotations-risk-level Low', key: 'annotations-risk-level', value: 'Low', want: { riskLevel: 'Low' } },
  { name: 'annotations-risk-level Critical (snippets)', key: 'annotations-risk-level', value: 'Critical', want: { riskLevel: 'Critical' } },
  // ingress-nginx's StringRiskToRisk: lower-cased, untrimmed, any other word is Low (the most restrictive).
  { name: 'annotations-risk-level high (any case, as in ingress-nginx)', key: 'annotations-risk-level', value: 'high', want: { riskLevel: 'High' } },
  { name: 'annotations-risk-level MEDIUM', key: 'annotations-risk-level', value: 'MEDIUM', want: { riskLevel: 'Medium' } },
  { name: 'annotations-risk-level " High" (untrimmed: an unknown word)', key: 'annotations-risk-level', value: ' High', want: { riskLevel: 'Low' } },
  { name: 'annotations-risk-level an unknown word is Low', key: 'annotations-risk-level', value: 'strict', want: { riskLevel: 'Low' } },
  { name: 'annotations-risk-level empty is Low', key: 'annotations-risk-level', value: '', want: { riskLevel: 'Low' } },
  { name: 'annotations-risk-level critical (any case)', key: 'annotations-risk-level', value: 'critical', want: { riskLevel: 'Critical' } },
  { name: 'annotation-value-word-blocklist: words trimmed, empty ones dropped', key: 'annotation-value-word-blocklist', value: ' load_module, _by_lua ,,{', want: { wordBlocklist: ['load_module', '_by_lua', '{'] } },
  { name: 'annotation-value-word-blocklist empty', key: 'annotation-value-word-blocklist', value: '', want: { wordBlocklist: [] } },
  { name: 'strict-validate-path-type true', key: 'strict-validate-path-type', value: 'true', want: { strictPathType: true } },
  { name: 'strict-validate-path-type false', key: 'strict-validate-path-type', value: 'false', want: 'fail' },
];

void describe('safety: values', () => {
  testValueRows(safetyFeature, values);
});

void describe('safety: defaults', () => {
  testDefaults(safetyFeature, { allowSnippets: false, riskLevel: 'High', strictPathType: true, wordBlocklist: [] });
});

void describe('safety: an ingress-nginx chart ConfigMap', () => {
  void it('its safeguard keys as the chart writes them are accepted without a word', () => {
    const read = readConfigMap({ 'allow-snippet-annotations': 'false', 'annotations-risk-level': 'High', 'strict-validate-path-type': 'true' });
    assert.deepEqual(described(read.failures), []);
    assert.equal(read.closed, false);
  });
  void it('an unsafe value names what it cannot do', () => {
    const [failure] = readConfigMap({ 'strict-validate-path-type': 'false' }).failures;
    assert.equal(failure?.reason, 'InvalidConfigMapValue');
    assert.match(failure?.message ?? '', /strict path validation cannot be turned off; the default stays/u);
  });
});
