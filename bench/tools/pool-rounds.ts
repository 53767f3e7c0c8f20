// The goals judged on rounds (per core and p99 served at once, rolling's p99
// rise), pooled over saved runs: one run's interval can straddle a goal on
// this noisy machine; the rounds of many runs say which side it is on.
// Reads <folder>/proxy.json and <folder>/rolling.json, as `npm run bench`
// writes them; name runs of the same code and profile, or say in what you
// report that they are not (the notes give each run's profile and median).
//
//   node bench/tools/pool-rounds.ts bench/results/<timestamp> [...]
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatResult } from '../lib/report.ts';
import { poolRuns, type RoundsGoal, type SavedRun } from '../lib/rounds-goal.ts';
import { P99_AT_ONCE, PER_CORE_AT_ONCE } from '../proxy/cpu-at-once.ts';
import { P99_RISE } from '../rolling/rolling-deploys.ts';

const GOALS: readonly RoundsGoal<never>[] = [PER_CORE_AT_ONCE, P99_AT_ONCE, P99_RISE];
const BENCHMARKS = [...new Set(GOALS.map((g) => g.benchmark))];

/** The raws of the goals' benchmarks saved in `folder`; throws when it holds none of them. */
function readRun(folder: string): SavedRun {
  const raws = new Map<string, unknown>();
  for (const id of BENCHMARKS) {
    const file = join(folder, `${id}.json`);
    if (existsSync(file)) raws.set(id, (JSON.parse(readFileSync(file, 'utf8')) as { raw?: unknown }).raw);
  }
  if (raws.size === 0) throw new Error(`${folder}: no ${BENCHMARKS.map((id) => `${id}.json`).join(' or ')}: not a results folder of npm run bench`);
  // The profile (full, quick) names the run in the notes: a quick run's rounds are shorter and fewer.
  const summary = join(folder, 'results.json');
  const profile = existsSync(summary) ? (JSON.parse(readFileSync(summary, 'utf8')) as { profile?: string }).profile : undefined;
  return { folder: profile === undefined ? folder : `${folder} [${profile}]`, raws };
}

const folders = process.argv.slice(2);
if (folders.length === 0) throw new Error('usage: node bench/tools/pool-rounds.ts <results folder> [...]');
console.log(formatResult(poolRuns(GOALS, folders.map(readRun))));
