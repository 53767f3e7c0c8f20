// User-space instructions per proxied request of the proxy benchmark's sides
// (ours, the native reference and the ablations), counted by callgrind as
// the benchmark does (bench/proxy/instruction-count.ts), with longer windows
// and the dump files kept for per-function profiles:
//
//   node bench/tools/instructions-per-request.ts [side ...]
//   callgrind_annotate --inclusive=no <the dump file printed>
import { countInstructions, hasCallgrind } from '../proxy/instruction-count.ts';
import { withProxyTool } from './proxy-tool-setup.ts';

const WINDOWS = { warmupSeconds: 3, idleSeconds: 3, seconds: 8, connections: 4 };

if (!hasCallgrind()) throw new Error('valgrind is not installed (npm run setup installs it)');
await withProxyTool(process.argv.slice(2), async ({ ctx, model, sides }) => {
  for (const spec of sides) {
    const count = await countInstructions({ ...ctx, log: () => {} }, model, spec, WINDOWS);
    console.log(`${spec.label.padEnd(24)} ${String(count.requests).padStart(7)} requests  ${count.perRequest.toFixed(0).padStart(7)} instructions/request  `
      + `(background ${Math.round(count.idlePerSecond)}/s)  ${count.dumpFile}`);
  }
});
