/**
 * Golden files: controller/src/render/testdata/<case>/model.json → nginx.conf,
 * rendered with goldenOptions() (placeholder prefix and data-plane paths, so
 * the files do not depend on the machine).
 *
 * After an intended template or render change, regenerate and review:
 *   UPDATE_GOLDEN=1 node --test controller/src/render/golden.test.ts
 *   git diff controller/src/render/testdata
 * To add a case: create testdata/<case>/model.json, then run the above.
 *
 * Every golden conf is also checked by the real `nginx -t` of the data-plane
 * runtime (`npm run setup` unpacks it; findDataplane() locates it), with the
 * placeholder paths swapped for real ones. Without the runtime these tests
 * FAIL: the test command runs setup first.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Model } from '../model/types.ts';
import { renderConfig } from './render-config.ts';
import type { RenderOptions } from './render-options.ts';
import { assertNginxAccepts } from './testdata/golden-check.ts';
import { backend, deepFreeze, goldenOptions, model, proxied, server } from './testdata/model-fixtures.ts';

const TESTDATA = fileURLToPath(new URL('./testdata', import.meta.url));

const caseNames = readdirSync(TESTDATA, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(TESTDATA, entry.name, 'model.json')))
  .map((entry) => entry.name)
  .sort();

function readModel(caseName: string): Model {
  return deepFreeze(JSON.parse(readFileSync(join(TESTDATA, caseName, 'model.json'), 'utf8')) as Model);
}

void describe('golden files', () => {
  void it('has the cases the suite is about', () => {
    for (const needed of ['catch-all-only', 'match-kinds', 'not-found', 'https-backend', 'rewrite-target', 'mirror', 'external-auth']) {
      assert.ok(caseNames.includes(needed), `testdata/${needed}/model.json is missing`);
    }
  });

  for (const caseName of caseNames) {
    void it(`${caseName}: renders the golden nginx.conf and nginx -t accepts it`, async () => {
      // A case's options.json (optional) changes render options, e.g. sslPassthrough.
      const optionsPath = join(TESTDATA, caseName, 'options.json');
      const extra = existsSync(optionsPath) ? JSON.parse(readFileSync(optionsPath, 'utf8')) as Partial<RenderOptions> : {};
      const caseModel = readModel(caseName);
      const { conf } = renderConfig(caseModel, { ...goldenOptions(), ...extra });
      const goldenPath = join(TESTDATA, caseName, 'nginx.conf');
      if (process.env.UPDATE_GOLDEN === '1') writeFileSync(goldenPath, conf);
      assert.ok(existsSync(goldenPath), `${goldenPath} missing: run with UPDATE_GOLDEN=1`);
      assert.equal(conf, readFileSync(goldenPath, 'utf8'), `${caseName} differs from its golden file`);
      await assertNginxAccepts(conf, caseModel);
    });
  }

  void it('nginx -t accepts 3,000 hosts with 200-character names (hash sizing)', async () => {
    const web = backend('default-web-80');
    const servers = Array.from({ length: 3000 }, (_, i) =>
      server(`${'x'.repeat(180)}-${String(i).padStart(5, '0')}.example.com`, [proxied('/', 'prefix', web.name)]),
    );
    const { conf } = renderConfig(model(servers, [web]), goldenOptions());
    await assertNginxAccepts(conf);
  });
});
