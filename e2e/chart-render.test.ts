// charts/resty-ingress: `helm lint --strict` is clean and `helm template`
// matches the golden render for the default values and every ci/*.yaml.
// Regenerate the golden files after an intended chart change with
//   UPDATE_GOLDEN=1 node --test e2e/chart-render.test.ts
// and review the diff of charts/resty-ingress/tests/golden/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHART_DIR, GOLDEN_DIR, chartCases, renderChart, runHelm, valuesArgs } from './chart-render.ts';

const UPDATE = process.env.UPDATE_GOLDEN === '1';

for (const chartCase of chartCases()) {
  void test(`helm lint --strict: ${chartCase.name}`, async () => {
    const res = await runHelm(['lint', '--strict', CHART_DIR, ...valuesArgs(chartCase)]);
    assert.equal(res.code, 0, `helm lint failed:\n${res.stdout}\n${res.stderr}`);
    assert.match(res.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
    assert.doesNotMatch(res.stdout, /\[(WARNING|ERROR)\]/);
  });

  void test(`helm template matches golden: ${chartCase.name}`, async () => {
    const rendered = await renderChart(chartCase);
    const goldenPath = join(GOLDEN_DIR, `${chartCase.name}.yaml`);
    if (UPDATE) {
      await mkdir(GOLDEN_DIR, { recursive: true });
      await writeFile(goldenPath, rendered);
    }
    assert.ok(existsSync(goldenPath), `no golden file ${goldenPath}: run with UPDATE_GOLDEN=1`);
    assert.equal(rendered, await readFile(goldenPath, 'utf8'), `render differs from ${goldenPath} (UPDATE_GOLDEN=1 to accept)`);
  });
}

void test('every golden file belongs to a case (no stale renders)', () => {
  const names = new Set(chartCases().map((c) => `${c.name}.yaml`));
  const stale = readdirSync(GOLDEN_DIR).filter((f) => !names.has(f));
  assert.deepEqual(stale, []);
});

void test('bad values fail the render with a clear message', async () => {
  const rows = [
    { name: 'unknown workload kind', set: 'controller.kind=StatefulSet', want: /at '\/controller\/kind': value must be one of 'Deployment', 'DaemonSet'/ },
    { name: 'unknown service type', set: 'controller.service.type=ExternalName', want: /at '\/controller\/service\/type': value must be one of 'LoadBalancer', 'NodePort', 'ClusterIP'/ },
    { name: 'published Service not namespace/name', set: 'controller.publishService.pathOverride=lb', want: /pathOverride must be namespace\/name, not "lb"/ },
  ];
  for (const row of rows) {
    const res = await runHelm(['template', 'r', CHART_DIR, '--set', row.set]);
    assert.notEqual(res.code, 0, row.name);
    assert.match(res.stderr, row.want, row.name);
  }
});
