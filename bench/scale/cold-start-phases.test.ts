import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coldStartPhases, troubleLines } from './cold-start-phases.ts';
import { controllerScaleParams } from './controller-scale.ts';

test('coldStartPhases splits a cold start by the controller\'s log lines', () => {
  const lines = [
    { msg: 'self-signed default certificate written', time: 1_000_900 },
    { msg: 'watching', time: 1_001_200 },
    { msg: 'NGINX started', time: 1_008_000 },
    { msg: 'sync', result: 'reload-queued', time: 1_009_000, ms: 5000, buildMs: 800, renderMs: 1200, applyMs: 3000 },
    { msg: 'sync', result: 'reload', time: 1_020_000, ms: 100, buildMs: 1, renderMs: 2, applyMs: 3 },
    { msg: 'first configuration is live', time: 1_009_010 },
  ];
  // Spawned at 1_000_000: ready 9,010 ms later.
  // The sync began at 1_004_000; built and rendered at 1_006_000; NGINX served at 1_008_000.
  assert.deepEqual(coldStartPhases(lines, 9010), { startupMs: 1200, listMs: 2800, buildMs: 800, renderMs: 1200, applyMs: 3000, nginxStartMs: 2000, pushMs: 1000 });
});

test('troubleLines keeps warnings and errors only', () => {
  const lines = [{ level: 30, msg: 'watching' }, { level: 40, msg: 'watch failed; restarting after backoff' }, { level: 50, msg: 'sync failed; retrying' }];
  assert.deepEqual(troubleLines(lines).map((l) => l.msg), ['watch failed; restarting after backoff', 'sync failed; retrying']);
});

test('coldStartPhases leaves a phase whose line is missing NaN', () => {
  const phases = coldStartPhases([{ msg: 'first configuration is live', time: 5000 }], 100);
  assert.ok(Number.isNaN(phases.startupMs) && Number.isNaN(phases.listMs) && Number.isNaN(phases.buildMs));
  assert.ok(Number.isNaN(phases.nginxStartMs) && Number.isNaN(phases.pushMs));
});

test('the 50,000 rows run only with --scale full', () => {
  const rows = [
    { name: 'full profile, default scale', profile: 'full', scale: 'default', cold: [10_000], rebuild: [10_000] },
    { name: 'full profile, scale full', profile: 'full', scale: 'full', cold: [10_000, 50_000], rebuild: [10_000, 50_000] },
    { name: 'smoke profile, no scale given', profile: 'smoke', scale: undefined, cold: [100], rebuild: [100] },
  ] as const;
  for (const row of rows) {
    const params = controllerScaleParams({ profile: row.profile, scale: row.scale });
    assert.deepEqual([params.coldStart, params.rebuild], [row.cold, row.rebuild], row.name);
  }
});
