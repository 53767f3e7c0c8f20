// What satisfy (model/features/satisfy.ts) prints into a location, and that real `nginx -t` takes it.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { SatisfyConfig } from '../model/types.ts';
import { renderConfig } from './render-config.ts';
import { assertNginxAccepts } from './testdata/golden-check.ts';
import { backend, goldenOptions, model, proxied, server } from './testdata/model-fixtures.ts';

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
