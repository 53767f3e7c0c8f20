// The pooling tool on results folders as `npm run bench` writes them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const TOOL = join(import.meta.dirname, 'pool-rounds.ts');

function wrk(p99: number): { latency: { percentile: number; ms: number }[] } {
  return { latency: [{ percentile: 99, ms: p99 }] };
}

/** A results folder with the proxy benchmark's at-once rounds of these per-core ratios (p99 equal on both sides). */
function proxyRun(dir: string, name: string, ratios: readonly number[]): string {
  const folder = join(dir, name);
  mkdirSync(folder);
  const atOnce = ratios.map((perCoreRatio) => ({ perCoreRatio, measured: { wrk: wrk(2) }, reference: { wrk: wrk(2) } }));
  writeFileSync(join(folder, 'proxy.json'), JSON.stringify({ id: 'proxy', raw: { atOnce } }));
  return folder;
}

test('pool-rounds: pools the folders it is given; refuses one that holds no results', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pool-rounds-'));
  try {
    const rows = [
      {
        name: 'two runs: the median of all five rounds',
        folders: [proxyRun(dir, 'one', [0.95, 0.85, 0.85]), proxyRun(dir, 'two', [0.95, 0.85])],
        status: 0,
        out: /proxy: requests per core-second.*, 5 rounds of 2 runs pooled\s+0\.85 ×.*MISSED GOAL/,
      },
      { name: 'an empty folder', folders: [join(dir, 'one'), dir], status: 1, out: /no proxy\.json or rolling\.json: not a results folder/ },
    ];
    for (const row of rows) {
      const run = spawnSync(process.execPath, [TOOL, ...row.folders], { encoding: 'utf8' });
      assert.equal(run.status, row.status, `${row.name}: ${run.stderr}`);
      assert.match(run.stdout + run.stderr, row.out, row.name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
