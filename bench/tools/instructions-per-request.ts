// User-space instructions per proxied request of the proxy benchmark's sides
// (ours, the native reference and the ablations), counted by callgrind as
// the benchmark does (bench/proxy/instruction-count.ts), with longer windows
// and the dump files kept for per-function profiles:
//
//   node bench/tools/instructions-per-request.ts [side ...]
//   callgrind_annotate --inclusive=no <the dump file printed>
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findDataplane } from '../../controller/src/nginx/dataplane.ts';
import { loopbackAddresses, startBackends } from '../lib/backends.ts';
import type { BenchContext } from '../lib/context.ts';
import { freePort } from '../lib/ports.ts';
import { countInstructions, hasCallgrind } from '../proxy/instruction-count.ts';
import { buildProxyModel } from '../proxy/proxy-model.ts';
import { sideSpecs } from '../proxy/reference-conf.ts';

const WINDOWS = { warmupSeconds: 3, idleSeconds: 3, seconds: 8, connections: 4 };

async function main(): Promise<void> {
  if (!hasCallgrind()) throw new Error('valgrind is not installed (npm run setup installs it)');
  const dataplane = findDataplane();
  const workDir = mkdtempSync(join(tmpdir(), 'resty-instructions-'));
  const port = await freePort();
  const addresses = loopbackAddresses('127.0.91.1', 4);
  const peers = addresses.map((address) => ({ address, port }));
  const specs = sideSpecs(peers);
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !specs.some((s) => s.label === name));
  if (unknown.length > 0) throw new Error(`unknown side(s) ${unknown.join(', ')}; known: ${specs.map((s) => s.label).join(', ')}`);
  const { model } = buildProxyModel(peers);
  const backends = await startBackends(dataplane, workDir, addresses, port, 1);
  const ctx: BenchContext = { profile: 'full', workDir, dataplane, serverCpu: 0, loadCpu: 1, log: () => {} };
  try {
    for (const spec of specs.filter((s) => wanted.length === 0 || wanted.includes(s.label))) {
      const count = await countInstructions(ctx, model, spec, WINDOWS);
      console.log(`${spec.label.padEnd(24)} ${String(count.requests).padStart(7)} requests  ${count.perRequest.toFixed(0).padStart(7)} instructions/request  `
        + `(background ${Math.round(count.idlePerSecond)}/s)  ${count.dumpFile}`);
    }
  } finally {
    await backends.nginx.stop();
  }
}

await main();
