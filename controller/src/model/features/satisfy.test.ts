// satisfy as ingress-nginx v1.15.1 reads it (annotations/satisfy/main.go: ValidateOptions
// any|all, case-sensitive, trimmed; anything else is ""), what it prints, and that real
// `nginx -t` takes the location it prints into. How `any` combines an allow list with
// authentication is proven where those features are (they are NGINX access-phase checks).

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { renderConfig } from '../../render/render-config.ts';
import { assertNginxAccepts } from '../../render/testdata/golden-check.ts';
import { backend, goldenOptions, model, proxied, server } from '../../render/testdata/model-fixtures.ts';
import type { SatisfyConfig } from '../types.ts';
import { satisfyFeature } from './satisfy.ts';
import { testDefaults, testValueRows, type ValueRow } from './testing.ts';

const values: ValueRow<SatisfyConfig>[] = [
  { name: 'any', key: 'satisfy', value: 'any', want: { mode: 'any' } },
  { name: 'all', key: 'satisfy', value: 'all', want: { mode: 'all' } },
  { name: 'any with spaces around (trimmed, as ingress-nginx)', key: 'satisfy', value: ' any ', want: { mode: 'any' } },
  { name: 'ANY (case-sensitive): ignored', key: 'satisfy', value: 'ANY', want: 'ignore' },
  { name: 'some: ignored', key: 'satisfy', value: 'some', want: 'ignore' },
  { name: 'a directive: ignored', key: 'satisfy', value: 'any; allow all', want: 'ignore' },
];

void describe('satisfy: values', () => testValueRows(satisfyFeature, values));
void describe('satisfy: defaults', () => testDefaults(satisfyFeature, { mode: null }));

void describe('satisfy: rendered', () => {
  const APP = backend('default-app');
  const rows: { name: string; mode: SatisfyConfig['mode'] | undefined; want: string | null }[] = [
    { name: 'any', mode: 'any', want: 'satisfy any;' },
    { name: 'all', mode: 'all', want: 'satisfy all;' },
    { name: 'not set', mode: undefined, want: null },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const policy = row.mode === undefined ? {} : { satisfy: { mode: row.mode } };
      const conf = renderConfig(model([server('shop.test', [proxied('/', 'prefix', APP.name, { policy })])], [APP]), goldenOptions()).conf;
      if (row.want === null) assert.doesNotMatch(conf, /satisfy/u);
      else assert.equal(conf.split(row.want).length - 1, 1, conf);
      await assertNginxAccepts(conf);
    });
  }
});
