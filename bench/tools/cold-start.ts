// One cold start of the real controller against the local API server holding
// N apps, as the controller bench runs it, with the phases, the controller's
// warnings and the CPU seconds, spawn → ready, of each party: the controller,
// the processes it waited for (`nginx -t`), NGINX (master and workers: its
// parse, Lua taking the first push) and this process (the in-process API
// server serving the lists and the Events). On a shared machine the CPU
// seconds move far less than the wall times. With
// COLD_START_CPU_PROF=<dir> the controller writes a V8 CPU profile there
// (--cpu-prof); COLD_START_LOG=<file> keeps its whole log. Each run starts
// the controller as it ships (the bundle in dist/, built first if stale) and
// from the TypeScript sources; COLD_START_AS=shipped|sources runs one of them.
//
//   node bench/tools/cold-start.ts [apps] [runs]
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryOf, startControllerProcess } from '../lib/controller-process.ts';
import { startLocalCluster } from '../lib/local-cluster.ts';
import { cpuSecondsOf, descendantsOf } from '../lib/process-cpu.ts';
import { appName, syntheticCluster } from '../lib/synthetic-cluster.ts';
import { coldStartPhases, troubleLines } from '../scale/cold-start-phases.ts';
import { realSlice } from '../scale/real-slices.ts';
import { shippedLauncher } from '../lib/shipped-build.ts';

const cpuOfThisProcess = (): number => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };

/** CPU seconds of the children `pid` waited for (cutime + cstime: the `nginx -t` runs), from /proc. */
function waitedChildrenCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

async function once(apps: number, as: string, launcher: string | undefined): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'resty-cold-start-'));
  chmodSync(workDir, 0o755);
  const cluster = await startLocalCluster(workDir);
  try {
    const synthetic = syntheticCluster({ apps, endpointsPerApp: 5 });
    cluster.load({ ...synthetic, endpointSlices: synthetic.endpointSlices.map((slice, i) => realSlice(slice, appName(i), i)) });
    const profDir = process.env.COLD_START_CPU_PROF;
    if (profDir !== undefined) process.env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${profDir}`;
    const apiCpuBefore = cpuOfThisProcess();
    const controller = await startControllerProcess({ kubeconfigPath: cluster.kubeconfigPath, workDir, readyTimeoutMs: 600_000, launcher });
    delete process.env.NODE_OPTIONS;
    const apiCpu = cpuOfThisProcess() - apiCpuBefore;
    try {
      const cpu = cpuSecondsOf([controller.pid]);
      const nginxCpu = cpuSecondsOf(descendantsOf(controller.pid));
      const testCpu = waitedChildrenCpu(controller.pid);
      const memory = memoryOf(controller.pid, (p) => readFileSync(p, 'utf8'));
      const phases = coldStartPhases(controller.logs(), controller.readyMs);
      const fmt = (ms: number): string => ms.toFixed(0);
      process.stdout.write(`${apps} apps, ${as}: ready ${fmt(controller.readyMs)} ms (start-up ${fmt(phases.startupMs)}, lists ${fmt(phases.listMs)}, build ${fmt(phases.buildMs)}, render ${fmt(phases.renderMs)}, NGINX start ${fmt(phases.nginxStartMs)}, push ${fmt(phases.pushMs)}); CPU: controller ${cpu.toFixed(2)} s, nginx -t ${testCpu.toFixed(2)} s, NGINX ${nginxCpu.toFixed(2)} s, API server ${apiCpu.toFixed(2)} s; RSS ${memory.rssMb.toFixed(0)} MB\n`);
      for (const line of troubleLines(controller.logs())) process.stdout.write(`  trouble: ${JSON.stringify(line).slice(0, 400)}\n`);
      const logFile = process.env.COLD_START_LOG;
      if (logFile !== undefined) writeFileSync(logFile, controller.logs().map((l) => JSON.stringify(l)).join('\n'));
    } finally {
      await controller.stop();
    }
  } finally {
    await cluster.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

const apps = Number(process.argv[2] ?? 10_000);
const runs = Number(process.argv[3] ?? 1);
const only = process.env.COLD_START_AS;
const variants = [
  { as: 'as shipped', launcher: only === 'sources' ? null : await shippedLauncher((line) => process.stdout.write(`${line}\n`)) },
  { as: 'from sources', launcher: only === 'shipped' ? null : undefined },
].filter((v) => v.launcher !== null);
for (let i = 0; i < runs; i++) for (const v of variants) await once(apps, v.as, v.launcher ?? undefined);
