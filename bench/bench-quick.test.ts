// Keeps the benchmarks from rotting: runs `bench/run.ts --smoke` (the
// smallest sizes, about a second per benchmark) for every benchmark and
// checks the results are well formed. It asserts shapes, never timings:
// benchmarks measure, they do not pass or fail.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BENCHMARKS } from './benchmarks.ts';
import type { BenchResult, Metric } from './lib/report.ts';

const RUN = fileURLToPath(new URL('./run.ts', import.meta.url));

/**
 * Runs bench/run.ts in a process group of its own and returns its stdout. Past `timeoutMs` the
 * whole group is killed: the controllers, NGINX masters and workers the benchmarks started
 * would otherwise outlive a killed run.ts and hold ports and CPU for the rest of the suite.
 */
function runBench(args: readonly string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUN, ...args], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    const killGroup = (): void => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ } };
    const timer = setTimeout(() => { killGroup(); reject(new Error(`bench/run.ts ${args.join(' ')}: no end within ${timeoutMs} ms\n${stderr.slice(-4000)}`)); }, timeoutMs);
    child.on('error', (err) => { clearTimeout(timer); killGroup(); reject(err); });
    child.on('close', (code) => {
      clearTimeout(timer);
      killGroup(); // anything a benchmark left behind
      if (code === 0) resolve(stdout);
      else reject(new Error(`bench/run.ts ${args.join(' ')} exited with ${code}\n${stderr.slice(-4000)}`));
    });
  });
}

interface Summary {
  readonly profile: string;
  readonly results: readonly BenchResult[];
}

test('bench --smoke: every benchmark completes and writes well-formed results', { timeout: 240_000 }, async () => {
  const out = mkdtempSync(join(tmpdir(), 'resty-bench-smoke-'));
  try {
    const stdout = await runBench(['--smoke', '--out', out], 230_000);
    const summary = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as Summary;
    assert.equal(summary.profile, 'smoke');
    assert.deepEqual(summary.results.map((r) => r.id), BENCHMARKS.map((b) => b.id));
    for (const result of summary.results) {
      const failed = result.notes.find((n) => n.startsWith('benchmark failed'));
      assert.equal(failed, undefined, `${result.id}: ${failed}`);
      assert.ok(result.metrics.length > 0, `${result.id} reports metrics`);
      for (const m of result.metrics) {
        assert.ok(m.value === null || typeof m.value === 'number', `${result.id}/${m.name}: value is a number`);
        assert.equal(typeof m.missed, 'boolean', `${result.id}/${m.name}: verdict`);
        assert.equal(typeof m.onTheLine, 'boolean', `${result.id}/${m.name}: on the line or not`);
      }
      assert.deepEqual(JSON.parse(readFileSync(join(out, `${result.id}.json`), 'utf8')).id, result.id);
      if (result.distributions.length > 0) {
        assert.match(readFileSync(join(out, `${result.id}-latency.svg`), 'utf8'), /^<svg [\s\S]*<polyline[\s\S]*<\/svg>\n$/);
      }
      assert.match(stdout, new RegExp(`^== ${result.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    }
    // setup installs valgrind: the proxy benchmark's instruction counts are real numbers, ours above native.
    const proxy = summary.results.find((r) => r.id === 'proxy');
    const instructions = proxy?.metrics.find((m) => m.name === 'user-space instructions per request (callgrind)');
    assert.ok(instructions && typeof instructions.value === 'number' && typeof instructions.reference === 'number', 'proxy: instruction counts measured');
    assert.ok(instructions.value > instructions.reference && instructions.reference > 1000, `proxy: ours ${instructions.value} > native ${instructions.reference} instructions/request`);
    // The canary rows: ours ÷ native of the same requests, with the 1.25× goal, valued only when the metrics log shows the split.
    // The smoke profile runs one canary route, by header (proxy-path.ts SMOKE_ROUTES: plain and one canary split).
    const canaryRows = proxy?.metrics.filter((m) => m.name.startsWith('user-space instructions per request, canary by')) ?? [];
    assert.deepEqual(canaryRows.map((m) => m.name.replace(/ \(.*$/, '')), ['user-space instructions per request, canary by header']);
    for (const row of canaryRows) {
      assert.deepEqual(row.goal, { on: 'ratio', op: '<=', target: 1.25 }, `proxy: ${row.name} has the canary goal`);
      assert.ok(typeof row.value === 'number' && typeof row.reference === 'number' && row.value > row.reference && row.reference > 1000, `proxy: ${row.name}: ours ${row.value} > native ${row.reference}`);
    }
    assert.equal(proxy?.notes.filter((n) => /^canary split .*logged requests to the canary \(expected a share of (1|0\.5)\)$/.test(n)).length, 1, 'proxy: the canary split as configured');
    // The per-core goal is judged on both sides served at once; the control pairs native with itself.
    const atOnce = proxy?.metrics.find((m) => m.name.startsWith('requests per core-second, served at once'));
    const control = proxy?.metrics.find((m) => m.name.startsWith('the same, native served at once with native'));
    for (const [name, row] of [['at once', atOnce], ['control', control]] as const) {
      assert.ok(row && typeof row.value === 'number' && row.value > 0.3 && row.value < 3, `proxy ${name}: a per-core ratio was measured (${row?.value})`);
    }
    assert.deepEqual(atOnce?.goal, { on: 'value', op: '>=', target: 0.9 }, 'proxy: the per-core goal is on the at-once row');
    // Goals on medians of rounds are judged with the median's interval (one smoke round: the round itself).
    const carriesInterval = (m: Metric | undefined): boolean =>
      m?.interval != null && typeof m.value === 'number' && m.interval.low <= m.value && m.value <= m.interval.high;
    assert.ok(carriesInterval(atOnce), 'proxy: the at-once row carries its interval');
    // The p99 goal is on the rounds served at once, with its interval; back-to-back pairs are information.
    const p99Goals = proxy?.metrics.filter((m) => m.goal !== null && m.name.startsWith('latency p99')) ?? [];
    assert.deepEqual(p99Goals.map((m) => m.name), ['latency p99, served at once: ours ÷ native per round (median of rounds)'], 'proxy: one p99 goal, on the at-once row');
    const p99 = p99Goals[0]!;
    assert.deepEqual(p99.goal, { on: 'value', op: '<=', target: 1.2 });
    assert.ok(typeof p99.value === 'number' && p99.value > 0 && carriesInterval(p99), `proxy: at-once p99 ratio measured with its interval (${p99.value})`);
    const paired = proxy?.metrics.find((m) => m.name.startsWith('latency p99, ours ÷ native of each pair'));
    assert.ok(paired && typeof paired.value === 'number' && paired.value > 0, `proxy: paired p99 ratio still measured (${paired?.value})`);
    assert.equal(proxy?.metrics.filter((m) => m.goal !== null && m.name.startsWith('latency')).length, 1, 'proxy: one latency goal row');
    // TCP services: njs against a native upstream in the same run, and njs's endpoint changes without a reload.
    const stream = summary.results.find((r) => r.id === 'stream')?.metrics ?? [];
    const perCore = stream.find((m) => m.name.startsWith('TCP connections per core-second'));
    assert.ok(perCore && typeof perCore.value === 'number' && typeof perCore.reference === 'number' && perCore.value > 0 && perCore.reference > 0, 'stream: both sides measured');
    const streamP99 = stream.find((m) => m.name.startsWith('endpoint change → new connections use the new set, p99'));
    assert.deepEqual(streamP99?.goal, { on: 'value', op: '<', target: 100 }, 'stream: the propagation goal');
    assert.ok(typeof streamP99?.value === 'number' && typeof streamP99.reference === 'number', 'stream: propagation measured on both sides');
    assert.equal(stream.find((m) => m.name.startsWith('NGINX reloaded during'))?.value, 0, 'stream: no reload for njs endpoint changes');
    // Controller at scale: the cold start split into its phases, the rebuild measured; no 50,000 row without --scale full.
    const controllerRows = summary.results.find((r) => r.id === 'controller')?.metrics ?? [];
    for (const prefix of ['cold start to ready', '  start-up: spawn → watching', '  initial lists', '  first build', '  first render', '  NGINX start', 'cold start to ready from the TypeScript sources', '  start-up from the sources', 'controller RSS at ready', 'rebuild: build + diff']) {
      const row = controllerRows.find((m) => m.name.startsWith(prefix));
      assert.ok(typeof row?.value === 'number' && Number.isFinite(row.value) && row.value >= 0, `controller: ${prefix} measured (${row?.value})`);
    }
    assert.ok(!controllerRows.some((m) => m.name.includes('50,000')), 'controller: the 50,000 rows only with --scale full');
    // External auth: both added-latency rows valued (every request 200, one subrequest per protected request), beside the plain route's figure.
    const externalAuth = summary.results.find((r) => r.id === 'external-auth')?.metrics ?? [];
    assert.deepEqual(externalAuth.map((m) => m.referenceLabel), ['plain route p50, same run', 'plain route p99, same run']);
    for (const row of externalAuth) {
      assert.ok(typeof row.value === 'number' && typeof row.reference === 'number' && row.reference > 0, `external-auth: ${row.name}: ${row.value} ms added to ${row.reference} ms`);
    }
    // Rolling: the p99 goal is on the median of each round's during ÷ before, with its interval.
    const rolling = summary.results.find((r) => r.id === 'rolling');
    const rise = rolling?.metrics.filter((m) => m.goal !== null && m.name.startsWith('latency p99'));
    assert.equal(rise?.length, 1, 'rolling: one latency goal row');
    assert.deepEqual(rise[0]?.goal, { on: 'value', op: '<', target: 1.5 }, 'rolling: the goal is on the per-round ratio');
    assert.ok(carriesInterval(rise?.[0]), 'rolling: the goal row carries its interval');
    // Churn: every change timed, reloads counted against changes, NGINX workers found under the controller (one generation at least).
    const churn = summary.results.find((r) => r.id === 'churn')?.metrics ?? [];
    const churnRow = (prefix: string): Metric | undefined => churn.find((m) => m.name.startsWith(prefix));
    assert.deepEqual(churnRow('change → served, p99')?.goal, { on: 'value', op: '<', target: 1000 }, 'churn: the p99 goal');
    for (const prefix of ['change → served (first 200', '  new plain host', '  new host whose Ingress', '  server-alias added']) {
      const row = churnRow(prefix);
      assert.ok(typeof row?.value === 'number' && row.value > 0, `churn: ${prefix} measured (${row?.value})`);
    }
    const reloadRow = churnRow('reloads done vs changes');
    assert.ok(typeof reloadRow?.value === 'number' && reloadRow.value >= 1 && reloadRow.reference === 3, `churn: reloads ${reloadRow?.value} for 3 changes`);
    const generations = churnRow('NGINX worker generations alive at once')?.value;
    assert.ok(typeof generations === 'number' && generations >= 1, `churn: worker generations seen (${generations})`);
    assert.match(readFileSync(join(out, 'results.md'), 'utf8'), /^\| bench \| measured \|/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
