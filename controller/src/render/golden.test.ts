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
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Model } from '../model/types.ts';
import { findDataplane, type Dataplane } from '../nginx/dataplane.ts';
import { renderConfig } from './render-config.ts';
import { backend, deepFreeze, goldenOptions, model, PLACEHOLDER_DATAPLANE, proxied, server } from './testdata/model-fixtures.ts';
import { checkConfig, makePrefix } from './testdata/nginx-runner.ts';

const TESTDATA = fileURLToPath(new URL('./testdata', import.meta.url));
const GOLDEN_PREFIX = '/golden/prefix';

const caseNames = readdirSync(TESTDATA, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(TESTDATA, entry.name, 'model.json')))
  .map((entry) => entry.name)
  .sort();

function readModel(caseName: string): Model {
  return deepFreeze(JSON.parse(readFileSync(join(TESTDATA, caseName, 'model.json'), 'utf8')) as Model);
}

/** Replaces one placeholder string everywhere, failing if it is absent (the golden file would be stale). */
function swap(conf: string, placeholder: string, real: string): string {
  assert.ok(conf.includes(placeholder), `placeholder ${placeholder} not in the golden conf`);
  return conf.replaceAll(placeholder, real);
}

/** The golden conf with the placeholder prefix and data-plane paths replaced by real ones. */
function materialize(conf: string, dataplane: Dataplane, prefix: string): string {
  const placeholderModules = PLACEHOLDER_DATAPLANE.modules.map((path) => `load_module "${path}";`).join('\n');
  const realModules = dataplane.modules.map((path) => `load_module "${path}";`).join('\n');
  let real = swap(conf, placeholderModules, realModules);
  real = swap(real, `"${PLACEHOLDER_DATAPLANE.luaPackagePath}"`, `"${dataplane.luaPackagePath}"`);
  real = swap(real, `"${PLACEHOLDER_DATAPLANE.luaPackageCPath}"`, `"${dataplane.luaPackageCPath}"`);
  return swap(real, GOLDEN_PREFIX, prefix);
}

async function assertNginxAccepts(conf: string): Promise<void> {
  const prefix = makePrefix();
  try {
    await checkConfig(findDataplane(), prefix, materialize(conf, findDataplane(), prefix));
  } finally {
    rmSync(prefix, { recursive: true, force: true });
  }
}

void describe('golden files', () => {
  void it('has the cases the suite is about', () => {
    for (const needed of ['catch-all-only', 'match-kinds', 'not-found', 'https-backend', 'rewrite-target']) {
      assert.ok(caseNames.includes(needed), `testdata/${needed}/model.json is missing`);
    }
  });

  for (const caseName of caseNames) {
    void it(`${caseName}: renders the golden nginx.conf and nginx -t accepts it`, async () => {
      const { conf } = renderConfig(readModel(caseName), goldenOptions());
      const goldenPath = join(TESTDATA, caseName, 'nginx.conf');
      if (process.env.UPDATE_GOLDEN === '1') writeFileSync(goldenPath, conf);
      assert.ok(existsSync(goldenPath), `${goldenPath} missing: run with UPDATE_GOLDEN=1`);
      assert.equal(conf, readFileSync(goldenPath, 'utf8'), `${caseName} differs from its golden file`);
      await assertNginxAccepts(conf);
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
