/**
 * The whole pure path, golden: model/testdata/golden/<case>/in.yaml → buildModel
 * → model.json (checked by model/golden.test.ts) → renderConfig → nginx.conf
 * beside it, and the real `nginx -t` accepts every nginx.conf.
 *
 * After an intended change, regenerate both and review the diff:
 *   UPDATE_GOLDEN=1 node --test controller/src/model/golden.test.ts controller/src/golden.test.ts
 *   git diff controller/src/model/testdata/golden
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildModel } from './model/build.ts';
import { deepFreeze, options } from './model/testdata/fixtures.ts';
import { loadSnapshotFromYaml } from './model/testdata/load-yaml.ts';
import type { BuildOptions } from './model/types.ts';
import { renderConfig } from './render/render-config.ts';
import { assertNginxAccepts } from './render/testdata/golden-check.ts';
import { goldenOptions } from './render/testdata/model-fixtures.ts';

const GOLDEN_DIR = join(import.meta.dirname, 'model', 'testdata', 'golden');
const cases = readdirSync(GOLDEN_DIR, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();

function caseOptions(dir: string): BuildOptions {
  const file = join(dir, 'options.json');
  return options(existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<BuildOptions>) : {});
}

void describe('golden: in.yaml → nginx.conf', () => {
  for (const name of cases) {
    void it(`${name}: renders the golden nginx.conf and nginx -t accepts it`, async () => {
      const dir = join(GOLDEN_DIR, name);
      const snapshot = deepFreeze(loadSnapshotFromYaml(readFileSync(join(dir, 'in.yaml'), 'utf8')));
      const { model } = buildModel(snapshot, caseOptions(dir));
      const { conf } = renderConfig(model, goldenOptions());
      const goldenFile = join(dir, 'nginx.conf');
      if (process.env.UPDATE_GOLDEN === '1') writeFileSync(goldenFile, conf);
      assert.ok(existsSync(goldenFile), `${goldenFile} missing; run with UPDATE_GOLDEN=1`);
      assert.equal(conf, readFileSync(goldenFile, 'utf8'), `${name}: nginx.conf differs from its golden file`);
      await assertNginxAccepts(conf);
    });
  }
});
