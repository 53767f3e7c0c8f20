// `npm run bench` / `npm run bench:quick`: runs the benchmarks one after the
// other, prints each one's table as it finishes and a summary at the end,
// and writes bench/results/<timestamp>/{results.json,results.md,<id>.json,
// <id>-latency.svg}. Benchmarks measure; a missed goal is printed as
// "MISSED GOAL" but never changes the exit code (2 only for bad arguments).
//
//   node bench/run.ts [--quick | --smoke] [--scale full] [--only proxy,propagation,...] [--out DIR]
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findDataplane } from '../controller/src/nginx/dataplane.ts';
import { BENCHMARKS } from './benchmarks.ts';
import type { BenchContext, Profile } from './lib/context.ts';
import { formatMarkdownTable, formatResult, formatTable, metric, type BenchResult } from './lib/report.ts';
import { latencyChartSvg } from './lib/svg-chart.ts';
import { hasTaskset } from './lib/wrk.ts';

interface RunArgs {
  readonly profile: Profile;
  readonly scale: 'default' | 'full';
  readonly only: readonly string[] | null;
  readonly outDir: string;
}

const RESULTS_DIR = fileURLToPath(new URL('./results', import.meta.url));

/** Parses the command line; throws an Error with a usage message on bad input. */
export function parseRunArgs(argv: readonly string[], now = new Date()): RunArgs {
  let profile: Profile = 'full';
  let scale: 'default' | 'full' = 'default';
  let only: string[] | null = null;
  let outDir = join(RESULTS_DIR, now.toISOString().replace(/[:.]/g, '-'));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') profile = 'quick';
    else if (arg === '--smoke') profile = 'smoke';
    else if (arg === '--scale' && (argv[i + 1] === 'full' || argv[i + 1] === 'default')) scale = argv[++i] === 'full' ? 'full' : 'default';
    else if (arg === '--only' && argv[i + 1] !== undefined) only = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (arg === '--out' && argv[i + 1] !== undefined) outDir = argv[++i] ?? outDir;
    else throw new Error(`unknown argument ${JSON.stringify(arg)}; usage: node bench/run.ts [--quick|--smoke] [--scale full] [--only ${BENCHMARKS.map((b) => b.id).join(',')}] [--out DIR]`);
  }
  const unknown = (only ?? []).filter((id) => !BENCHMARKS.some((b) => b.id === id));
  if (unknown.length > 0) throw new Error(`unknown benchmark ${unknown.join(', ')}; known: ${BENCHMARKS.map((b) => b.id).join(', ')}`);
  return { profile, scale, only, outDir };
}

/** A benchmark that threw still gets a row, so a broken benchmark is visible in the table. */
function failedResult(id: string, title: string, error: unknown): BenchResult {
  const message = error instanceof Error ? error.stack ?? error.message : String(error);
  return {
    id, title, notes: [`benchmark failed: ${message.split('\n').slice(0, 4).join(' | ')}`], distributions: [], raw: { error: message },
    metrics: [metric('benchmark completed', '', 0, 1, 'completed', { on: 'value', op: '==', target: 1 })],
  };
}

async function main(): Promise<void> {
  let args: RunArgs;
  try {
    args = parseRunArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const dataplane = findDataplane();
  const pin = hasTaskset() && availableParallelism() >= 2;
  mkdirSync(args.outDir, { recursive: true });
  const results: BenchResult[] = [];
  const startedAt = Date.now();
  for (const bench of BENCHMARKS.filter((b) => args.only === null || args.only.includes(b.id))) {
    const workDir = mkdtempSync(join(tmpdir(), `resty-bench-${bench.id}-`));
    // Run as root, NGINX's workers are `nobody`: they must reach the prefixes inside to reopen
    // their logs (the metrics log rotation sends USR1; mkdtemp's 0700 made them keep writing
    // to the renamed file, metrics.log.old, which nobody reads).
    chmodSync(workDir, 0o755);
    const ctx: BenchContext = {
      profile: args.profile, scale: args.scale, workDir, dataplane, serverCpu: pin ? 0 : null, loadCpu: pin ? 1 : null,
      log: (message) => process.stderr.write(`[${bench.id} ${((Date.now() - startedAt) / 1000).toFixed(0)}s] ${message}\n`),
    };
    ctx.log(`starting: ${bench.title} (${args.profile})`);
    let result: BenchResult;
    try {
      result = await bench.run(ctx);
    } catch (err) {
      result = failedResult(bench.id, bench.title, err);
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
    results.push(result);
    writeFileSync(join(args.outDir, `${bench.id}.json`), `${JSON.stringify(result, null, 2)}\n`);
    if (result.distributions.length > 0) writeFileSync(join(args.outDir, `${bench.id}-latency.svg`), latencyChartSvg(result.title, result.distributions));
    process.stdout.write(`\n${formatResult(result)}\n`);
  }
  const summary = { profile: args.profile, startedAt: new Date(startedAt).toISOString(), seconds: (Date.now() - startedAt) / 1000, results };
  writeFileSync(join(args.outDir, 'results.json'), `${JSON.stringify(summary, null, 2)}\n`);
  writeFileSync(join(args.outDir, 'results.md'), `${formatMarkdownTable(results)}\n`);
  process.stdout.write(`\n== Summary (${args.profile}, ${summary.seconds.toFixed(0)} s)\n${formatTable(results)}\nResults: ${args.outDir}\n`);
}

await main();
