// Golden cases: testdata/golden/<case>/in.yaml (+ optional options.json with
// BuildOptions overrides) → model.json (the whole BuildResult).
// After an intended change, regenerate and review the diff:
//   UPDATE_GOLDEN=1 node --test controller/src/model/golden.test.ts
//   git diff controller/src/model/testdata/golden

import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildModel } from './build.ts';
import { deepFreeze, options } from './testdata/fixtures.ts';
import { loadSnapshotFromYaml } from './testdata/load-yaml.ts';
import type { BuildOptions } from './types.ts';

const GOLDEN_DIR = join(import.meta.dirname, 'testdata', 'golden');
const updating = process.env.UPDATE_GOLDEN === '1';

function caseOptions(dir: string): BuildOptions {
  const file = join(dir, 'options.json');
  return options(existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<BuildOptions>) : {});
}

void describe('golden models', () => {
  const cases = readdirSync(GOLDEN_DIR, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();

  void it('has cases to check', () => {
    assert.ok(cases.length >= 3, `expected golden cases in ${GOLDEN_DIR}`);
  });

  for (const name of cases) {
    void it(name, () => {
      const dir = join(GOLDEN_DIR, name);
      const snapshot = deepFreeze(loadSnapshotFromYaml(readFileSync(join(dir, 'in.yaml'), 'utf8')));
      const actual = `${JSON.stringify(buildModel(snapshot, caseOptions(dir)), null, 2)}\n`;
      const goldenFile = join(dir, 'model.json');
      if (updating) writeFileSync(goldenFile, actual);
      assert.ok(existsSync(goldenFile), `${goldenFile} missing; run with UPDATE_GOLDEN=1`);
      assert.deepEqual(JSON.parse(actual), JSON.parse(readFileSync(goldenFile, 'utf8')));
    });
  }
});
