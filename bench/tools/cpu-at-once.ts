// CPU per request of two proxy-benchmark sides served at once, as the
// benchmark judges its per-core goal (bench/proxy/cpu-at-once.ts): the
// quickest honest answer to "is this change cheaper?" on this noisy machine
// (a round's ratio moves about ±2 %; name the same side twice to see it).
//
//   node bench/tools/cpu-at-once.ts <measured side> <reference side> [rounds] [seconds]
//   node bench/tools/cpu-at-once.ts ours native 5 3
import { median } from '../lib/stats.ts';
import { atOnceRounds } from '../proxy/cpu-at-once.ts';
import { withProxyTool } from './proxy-tool-setup.ts';

const [measured, reference, rounds = '5', seconds = '3'] = process.argv.slice(2);
if (measured === undefined || reference === undefined) throw new Error('usage: node bench/tools/cpu-at-once.ts <measured side> <reference side> [rounds] [seconds]');
await withProxyTool([measured, reference], async ({ ctx, model, sides }) => {
  const [a, b] = sides;
  if (a === undefined || b === undefined) throw new Error('two sides are needed');
  const result = await atOnceRounds(ctx, model, a, b, { seconds: Number(seconds), warmupSeconds: 1, connections: 50 }, Number(rounds));
  const ratios = result.map((r) => r.perCoreRatio);
  console.log(`${a.label} per core ÷ ${b.label}'s: ${ratios.map((r) => r.toFixed(3)).join(', ')}; median ${median(ratios).toFixed(3)}, range ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}`);
});
