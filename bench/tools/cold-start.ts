// One cold start of the real controller against the local API server holding
// N apps, as the controller bench runs it, with the phases, the CPU seconds of
// the controller and of this process (the in-process API server: loading the
// objects and serving the lists) and the controller's warnings. With
// COLD_START_CPU_PROF=<dir> the controller writes a V8 CPU profile there
// (--cpu-prof); COLD_START_LOG=<file> keeps its whole log.
//
//   node bench/tools/cold-start.ts [apps] [runs]
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryOf, startControllerProcess } from '../lib/controller-process.ts';
import { startLocalCluster } from '../lib/local-cluster.ts';
import { cpuSecondsOf } from '../lib/process-cpu.ts';
import { appName, syntheticCluster } from '../lib/synthetic-cluster.ts';
import { coldStartPhases, troubleLines } from '../scale/cold-start-phases.ts';
import { realSlice } from '../scale/real-slices.ts';

const cpuOfThisProcess = (): number => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };

async function once(apps: number): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'resty-cold-start-'));
  chmodSync(workDir, 0o755);
  const cluster = await startLocalCluster(workDir);
  try {
    const synthetic = syntheticCluster({ apps, endpointsPerApp: 5 });
    cluster.load({ ...synthetic, endpointSlices: synthetic.endpointSlices.map((slice, i) => realSlice(slice, appName(i), i)) });
    const profDir = process.env.COLD_START_CPU_PROF;
    if (profDir !== undefined) process.env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${profDir}`;
    const apiCpuBefore = cpuOfThisProcess();
    const controller = await startControllerProcess({ kubeconfigPath: cluster.kubeconfigPath, workDir, readyTimeoutMs: 600_000 });
    delete process.env.NODE_OPTIONS;
    const apiCpu = cpuOfThisProcess() - apiCpuBefore;
    try {
      const cpu = cpuSecondsOf([controller.pid]);
      const memory = memoryOf(controller.pid, (p) => readFileSync(p, 'utf8'));
      const phases = coldStartPhases(controller.logs(), controller.readyMs);
      const fmt = (ms: number): string => ms.toFixed(0);
      process.stdout.write(`${apps} apps: ready ${fmt(controller.readyMs)} ms (start-up ${fmt(phases.startupMs)}, lists ${fmt(phases.listMs)}, build ${fmt(phases.buildMs)}, render ${fmt(phases.renderMs)}, NGINX start ${fmt(phases.nginxStartMs)}, push ${fmt(phases.pushMs)}); controller CPU ${cpu.toFixed(2)} s, API server (this process) CPU ${apiCpu.toFixed(2)} s, RSS ${memory.rssMb.toFixed(0)} MB\n`);
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
for (let i = 0; i < runs; i++) await once(apps);
