// User-space instructions per proxied request of the proxy benchmark's sides
// (ours, the native reference and the ablations), counted by callgrind as
// the benchmark does (bench/proxy/instruction-count.ts), with longer windows
// and the dump files kept for per-function profiles. `side@route` runs a
// side on another route of wrk's location (plain, canary-by-header,
// canary-by-weight: bench/proxy/proxy-model.ts), with that route's headers:
//
//   node bench/tools/instructions-per-request.ts [side[@route] ...]
//   node bench/tools/instructions-per-request.ts ours native ours@canary-by-header native@canary-by-header
//   callgrind_annotate --inclusive=no <the dump file printed>
import { countInstructions, hasCallgrind } from '../proxy/instruction-count.ts';
import { runName } from '../proxy/instruction-rows.ts';
import { BENCH_ROUTES, buildProxyModel, ROUTE_HEADERS, type BenchRoute } from '../proxy/proxy-model.ts';
import { withProxyTool } from './proxy-tool-setup.ts';

const WINDOWS = { warmupSeconds: 3, idleSeconds: 3, seconds: 8, connections: 4 };

const runs = process.argv.slice(2).map((arg) => {
  const [side = '', route = 'plain'] = arg.split('@');
  if (!BENCH_ROUTES.includes(route as BenchRoute)) throw new Error(`unknown route ${route}; known: ${BENCH_ROUTES.join(', ')}`);
  return { side, route: route as BenchRoute };
});

if (!hasCallgrind()) throw new Error('valgrind is not installed (npm run setup installs it)');
await withProxyTool([...new Set(runs.map((r) => r.side))], async ({ ctx, model, peers, sides }) => {
  const wanted = runs.length > 0 ? runs : sides.map((spec) => ({ side: spec.label, route: 'plain' as BenchRoute }));
  for (const run of wanted) {
    const spec = sides.find((s) => s.label === run.side);
    if (spec === undefined) throw new Error(`unknown side ${run.side}`);
    const routeModel = run.route === 'plain' ? model : buildProxyModel(peers, run.route).model;
    const name = runName(spec.label, run.route);
    const count = await countInstructions({ ...ctx, log: () => {} }, routeModel, spec, WINDOWS, ROUTE_HEADERS[run.route], name.replace(/\W+/g, '-'));
    const split = count.split === null ? '' : `  canary ${count.split.canary}/${count.split.requests}, ${count.split.ok} answered 2xx`;
    console.log(`${name.padEnd(32)} ${String(count.requests).padStart(7)} requests  ${count.perRequest.toFixed(0).padStart(7)} instructions/request  `
      + `(background ${Math.round(count.idlePerSecond)}/s)${split}  ${count.dumpFile}`);
  }
});
