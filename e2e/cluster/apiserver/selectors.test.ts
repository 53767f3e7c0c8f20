import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldValue, matchesSelector, parseFieldSelector, parseLabelSelector } from './selectors.ts';

const labels: Record<string, string> = { app: 'web', tier: 'front', 'example.com/team': 'a' };
const lookup = (k: string): string | undefined => labels[k];

void test('label selectors match as the API server does', () => {
  const rows: { name: string; selector: string; want: boolean }[] = [
    { name: 'empty matches all', selector: '', want: true },
    { name: 'equals', selector: 'app=web', want: true },
    { name: 'double equals', selector: 'app==web', want: true },
    { name: 'equals miss', selector: 'app=api', want: false },
    { name: 'not equals', selector: 'app!=api', want: true },
    { name: 'not equals on missing key', selector: 'env!=prod', want: true },
    { name: 'in', selector: 'tier in (back, front)', want: true },
    { name: 'in miss', selector: 'tier in (back)', want: false },
    { name: 'notin', selector: 'tier notin (back)', want: true },
    { name: 'notin hit', selector: 'tier notin (front,back)', want: false },
    { name: 'exists', selector: 'app', want: true },
    { name: 'exists miss', selector: 'env', want: false },
    { name: 'not exists', selector: '!env', want: true },
    { name: 'prefixed key', selector: 'example.com/team=a', want: true },
    { name: 'conjunction', selector: 'app=web,tier in (front),!env', want: true },
    { name: 'conjunction miss', selector: 'app=web,tier=back', want: false },
  ];
  for (const row of rows) {
    assert.equal(matchesSelector(parseLabelSelector(row.selector), lookup), row.want, row.name);
  }
});

void test('malformed label selectors are 400s', () => {
  for (const bad of ['app=we b', '=x', 'a in (b c)', 'bad key=1']) {
    assert.throws(() => parseLabelSelector(bad), (err: { code?: number }) => err.code === 400, bad);
  }
});

void test('field selectors read dotted paths', () => {
  const obj = { metadata: { name: 'x', namespace: 'ns' }, involvedObject: { kind: 'Pod' } };
  const rows: { name: string; selector: string; want: boolean }[] = [
    { name: 'name', selector: 'metadata.name=x', want: true },
    { name: 'namespace miss', selector: 'metadata.namespace=other', want: false },
    { name: 'not equal', selector: 'metadata.name!=y', want: true },
    { name: 'nested', selector: 'involvedObject.kind=Pod,metadata.name==x', want: true },
    { name: 'missing field is empty', selector: 'spec.nodeName=', want: true },
  ];
  for (const row of rows) {
    assert.equal(matchesSelector(parseFieldSelector(row.selector), (k) => fieldValue(obj, k)), row.want, row.name);
  }
  assert.throws(() => parseFieldSelector('metadata.name'), (err: { code?: number }) => err.code === 400);
});
