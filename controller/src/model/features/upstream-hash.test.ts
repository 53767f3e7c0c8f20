// upstream-hash-by, -subset, -subset-size (ingress-nginx v1.15.1:
// internal/ingress/annotations/upstreamhashby and the Lua of its chash and
// chashsubset balancers). ingress-nginx validates upstream-hash-by against
// [A-Za-z0-9-_${}] (spaces removed first) and refuses the Ingress on a value
// that fails; its Lua reads `$name` and `${name}` as variables and the rest as
// text. Here the value must also be well formed (no lone `$` or brace) and
// name a variable a request has in the balancer phase: what ingress-nginx takes
// beyond that is unsupported. The bool and the size refuse the Ingress on a
// value strconv does not read, as there; a size of 0 means 3. upstream-hash-by
// is High risk: below annotations-risk-level High the Ingress is not served.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UpstreamHashConfig } from '../types.ts';
import { upstreamHashFeature } from './upstream-hash.ts';
import { annotationField, described, parseAnnotations, readConfigMap, testDefaults, testValueRows, type ValueRow } from './testing.ts';

const by = 'upstream-hash-by';
const subset = 'upstream-hash-by-subset';
const size = 'upstream-hash-by-subset-size';

const values: ValueRow<UpstreamHashConfig>[] = [
  { name: '$request_uri', key: by, value: '$request_uri', want: { by: '$request_uri' } },
  { name: '$remote_addr', key: by, value: '$remote_addr', want: { by: '$remote_addr' } },
  { name: 'two variables side by side', key: by, value: '$http_x_user$arg_id', want: { by: '$http_x_user$arg_id' } },
  { name: 'a braced variable and text (ingress-nginx\'s doc example)', key: by, value: '${request_uri}-text-value', want: { by: '${request_uri}-text-value' } },
  { name: 'a cookie', key: by, value: '$cookie_session', want: { by: '$cookie_session' } },
  { name: 'a regex capture', key: by, value: '$1', want: { by: '$1' } },
  { name: 'text only', key: by, value: 'fixed-key', want: { by: 'fixed-key' } },
  { name: 'spaces around it are trimmed', key: by, value: ' $request_uri ', want: { by: '$request_uri' } },
  { name: 'a space inside (ingress-nginx validates without spaces)', key: by, value: '$uri $host', want: 'unsupported' },
  { name: 'a lone $ (ingress-nginx\'s validator takes it)', key: by, value: 'a$', want: 'unsupported' },
  { name: 'an unclosed brace', key: by, value: '${request_uri', want: 'unsupported' },
  { name: 'an unknown variable (NGINX would log an error on every request)', key: by, value: '$request_urii', want: 'unsupported' },
  { name: 'a prefix without a name', key: by, value: '$http_', want: 'unsupported' },
  { name: 'a quote (ingress-nginx refuses it)', key: by, value: '$uri"', want: 'fail' },
  { name: 'a directive (ingress-nginx refuses it)', key: by, value: '$uri; return 200', want: 'fail' },
  { name: 'a dot (ingress-nginx refuses it)', key: by, value: '$host.x', want: 'fail' },
  { name: 'longer than 256 characters', key: by, value: `$request_uri${'x'.repeat(250)}`, want: 'unsupported' },
  { name: 'empty (ingress-nginx validates no empty value)', key: by, value: '', want: 'ignore' },
  { name: 'subset true', key: subset, value: 'true', want: { subset: true } },
  { name: 'subset False (strconv.ParseBool)', key: subset, value: 'False', want: { subset: false } },
  { name: 'subset yes', key: subset, value: 'yes', want: 'fail' },
  { name: 'subset size 5', key: size, value: '5', want: { subsetSize: 5 } },
  { name: 'subset size 0 means 3', key: size, value: '0', want: { subsetSize: 3 } },
  { name: 'subset size 1000', key: size, value: '1000', want: { subsetSize: 1000 } },
  { name: 'subset size 1001', key: size, value: '1001', want: 'unsupported' },
  { name: 'subset size -1 (strconv.Atoi reads it)', key: size, value: '-1', want: 'unsupported' },
  { name: 'subset size three', key: size, value: 'three', want: 'fail' },
];

void describe('upstream-hash: values', () => testValueRows(upstreamHashFeature, values));
void describe('upstream-hash: defaults', () => testDefaults(upstreamHashFeature, { by: null, subset: false, subsetSize: 3 }));

void describe('upstream-hash: the three read together', () => {
  void it('hash-by with subset and size', () => {
    const parsed = parseAnnotations({ [by]: '$request_uri', [subset]: 'true', [size]: '2' });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.dynamic.upstreamHash, { by: '$request_uri', subset: true, subsetSize: 2 });
    assert.deepEqual(parsed.value.policy, {}, 'dynamic: nothing of it on the location');
  });
});

const riskRows: ReadonlyArray<{ name: string; level: string; annotations: Record<string, string>; risky: string[] }> = [
  { name: 'High: upstream-hash-by is accepted', level: 'High', annotations: { [by]: '$request_uri' }, risky: [] },
  { name: 'Medium: upstream-hash-by refuses the Ingress', level: 'Medium', annotations: { [by]: '$request_uri' }, risky: [by] },
  { name: 'Low: upstream-hash-by refuses the Ingress', level: 'Low', annotations: { [by]: '$request_uri', [subset]: 'true' }, risky: [by] },
  { name: 'Medium: even an empty upstream-hash-by (ingress-nginx checks the name)', level: 'Medium', annotations: { [by]: '' }, risky: [by] },
  { name: 'Low: the Low-risk subset keys alone are accepted', level: 'Low', annotations: { [subset]: 'true', [size]: '4' }, risky: [] },
];
void describe('upstream-hash: annotations-risk-level', () => {
  for (const row of riskRows) {
    void it(row.name, () => {
      const read = readConfigMap({ 'annotations-risk-level': row.level });
      assert.deepEqual(read.failures, []);
      const parsed = parseAnnotations(row.annotations, read.settings);
      if (row.risky.length === 0) {
        assert.ok(parsed.ok, parsed.ok ? '' : described(parsed.failures).join('; '));
        return;
      }
      assert.equal(parsed.ok, false);
      if (parsed.ok) return;
      assert.deepEqual(described(parsed.failures.filter((f) => f.warning !== true)), row.risky.map((name) => `RiskyAnnotation ${annotationField(name)}`));
      assert.match(parsed.failures[0]?.message ?? '', new RegExp(`is High risk, above the ConfigMap's annotations-risk-level ${row.level}`));
    });
  }
});
