// User-space instructions per proxied request, counted by valgrind's
// callgrind: the proxy benchmark's sides (ours, the native reference and the
// ablations) each run as a single NGINX process (master_process off) under
// callgrind, and the count over a wrk run is divided by its requests. Unlike
// CPU time the count is the same from run to run (±0.5 %), so a change of
// 100 instructions per request shows; it leaves out the kernel (sockets,
// writes), which both sides share. A profiling tool, not a benchmark: it
// needs valgrind (`apt-get install valgrind`) and is not part of
// `npm run bench`.
//
//   node bench/tools/instructions-per-request.ts [side ...]
//
// Per-function counts: callgrind_annotate --inclusive=no <the cg.<pid>.1 file printed>.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findDataplane } from '../../controller/src/nginx/dataplane.ts';
import { loopbackAddresses, startBackends } from '../lib/backends.ts';
import type { BenchContext } from '../lib/context.ts';
import { freePort } from '../lib/ports.ts';
import { runWrk } from '../lib/wrk.ts';
import { BENCH_HOST, buildProxyModel } from '../proxy/proxy-model.ts';
import { startSide } from '../proxy/proxy-side.ts';
import { nativeReferenceConf, withoutMetricsLog, withoutRedirectCheck, type Peer } from '../proxy/reference-conf.ts';

const SIDES: Record<string, { transform: (conf: string, peers: readonly Peer[]) => string; lua: boolean }> = {
  ours: { transform: (conf) => conf, lua: true },
  native: { transform: nativeReferenceConf, lua: false },
  'ours-no-metrics': { transform: withoutMetricsLog, lua: true },
  'ours-no-redirect-check': { transform: withoutRedirectCheck, lua: true },
};
const WARMUP_SECONDS = 3;
const MEASURED_SECONDS = 8;
const CONNECTIONS = 4;

/** Total instructions of the callgrind dump that `callgrind_control -d` wrote in `dir`. */
function dumpedInstructions(dir: string): { total: number; file: string } {
  const dumps = readdirSync(dir).map((name) => join(dir, name)).filter((file) => /Trigger: dump/.test(readFileSync(file, 'utf8')));
  const file = dumps.at(-1);
  const total = file === undefined ? Number.NaN : Number(/^summary: (\d+)/m.exec(readFileSync(file, 'utf8'))?.[1]);
  if (file === undefined || !Number.isFinite(total)) throw new Error(`no callgrind dump with a summary in ${dir}`);
  return { total, file };
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !(name in SIDES));
  if (unknown.length > 0) throw new Error(`unknown side(s) ${unknown.join(', ')}; known: ${Object.keys(SIDES).join(', ')}`);
  execFileSync('valgrind', ['--version']);
  const dataplane = findDataplane();
  const workDir = mkdtempSync(join(tmpdir(), 'resty-instructions-'));
  const port = await freePort();
  const addresses = loopbackAddresses('127.0.91.1', 4);
  const peers = addresses.map((address) => ({ address, port }));
  const { model } = buildProxyModel(peers);
  const backends = await startBackends(dataplane, workDir, addresses, port, 1);
  try {
    for (const [name, side] of Object.entries(SIDES).filter(([n]) => wanted.length === 0 || wanted.includes(n))) {
      const dumpDir = join(workDir, `${name}-callgrind`);
      mkdirSync(dumpDir);
      const valgrind = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${dumpDir}/cg.%p`];
      const ctx: BenchContext = {
        profile: 'quick', workDir, dataplane: { ...dataplane, command: [...valgrind, ...dataplane.command] }, serverCpu: 0, loadCpu: 1, log: () => {},
      };
      // One process: callgrind follows it, and it is the one that serves.
      const singleProcess = (conf: string): string => {
        if (!/^master_process on;$/m.test(conf)) throw new Error('the rendered nginx.conf has no "master_process on;" line to turn off');
        return conf.replace(/^master_process on;$/m, 'master_process off;');
      };
      const started = await startSide(ctx, model, name, (conf) => singleProcess(side.transform(conf, peers)), side.lua);
      try {
        const load = { url: `http://127.0.0.1:${started.port}/`, hosts: [BENCH_HOST], connections: CONNECTIONS, cpu: 1 };
        await runWrk({ ...load, durationSeconds: WARMUP_SECONDS });
        execFileSync('callgrind_control', ['-z', String(started.nginx.masterPid)], { stdio: 'ignore' });
        const measured = await runWrk({ ...load, durationSeconds: MEASURED_SECONDS });
        execFileSync('callgrind_control', ['-d', String(started.nginx.masterPid)], { stdio: 'ignore' });
        const { total, file } = dumpedInstructions(dumpDir);
        console.log(`${name.padEnd(24)} ${String(measured.requests).padStart(7)} requests  ${(total / measured.requests).toFixed(0).padStart(7)} instructions/request  ${file}`);
      } finally {
        await started.nginx.stop();
      }
    }
  } finally {
    await backends.nginx.stop();
  }
}

await main();
