// Golden reports: `resty-ingress migrate -o json` over the example manifests
// in testdata/examples (an ingress-nginx install's apps: a plain app, a regex
// rewrite, a canary pair, auth-url with auth-signin (served), whitelist-source-range (served),
// a typo, enable-cors, a snippet, an Ingress of another class; the
// ingress-nginx ConfigMap in a second folder; Helm values) → the checked-in
// JSON in testdata/golden/<case>.json. File paths are written relative to
// testdata/examples.
// After an intended change, regenerate and review the diff:
//   UPDATE_GOLDEN=1 node --test controller/src/migrate/golden.test.ts
//   git diff controller/src/migrate/testdata/golden

import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runMigrate } from './run.ts';

const EXAMPLES = join(import.meta.dirname, 'testdata', 'examples');
const GOLDEN_DIR = join(import.meta.dirname, 'testdata', 'golden');
const updating = process.env.UPDATE_GOLDEN === '1';

/** Each case: its arguments after `migrate -o json`, paths relative to testdata/examples. */
const CASES: readonly { readonly name: string; readonly args: readonly string[]; readonly exitCode: number }[] = [
  { name: 'apps', args: ['apps'], exitCode: 1 },
  { name: 'apps-with-configmap', args: ['apps', 'configmap'], exitCode: 1 },
  { name: 'apps-with-helm-values', args: ['--helm-values', 'helm-values.yaml', 'apps'], exitCode: 1 },
  { name: 'shop-only', args: ['apps/shop', 'apps/ingress-nginx'], exitCode: 0 },
];

const example = (arg: string): string => (arg.startsWith('-') ? arg : join(EXAMPLES, arg));

void describe('golden migrate reports', () => {
  for (const item of CASES) {
    void it(item.name, async () => {
      let stdout = '';
      let stderr = '';
      const argv = ['-o', 'json', ...item.args.map(example)];
      const code = await runMigrate(argv, { stdout: { write: (text: string) => { stdout += text; } }, stderr: { write: (text: string) => { stderr += text; } } });
      assert.equal(stderr, '');
      assert.equal(code, item.exitCode, 'exit code');
      const actual = stdout.replaceAll(`${EXAMPLES}/`, '');
      assert.equal((JSON.parse(actual) as { exitCode: number }).exitCode, code, 'the report carries the exit code');
      const goldenFile = join(GOLDEN_DIR, `${item.name}.json`);
      if (updating) writeFileSync(goldenFile, actual);
      assert.ok(existsSync(goldenFile), `${goldenFile} missing; run with UPDATE_GOLDEN=1`);
      assert.deepEqual(JSON.parse(actual), JSON.parse(readFileSync(goldenFile, 'utf8')));
    });
  }
});
