// loadLoop on a thread of its own. The test process also runs the local API
// server and the simulator: at 1,000 requests per second, pacing the load
// from that event loop makes both late (the load skips beats, watch events
// and slice writes queue behind it). The worker paces from its own loop.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { loadLoop, type LoadOptions, type LoadReport } from './load.ts';

/** What the worker is started with (a signal cannot cross threads). */
type WorkerLoad = Omit<LoadOptions, 'signal'>;

/** Runs loadLoop(options) in a worker thread; resolves with its report. */
export function loadLoopInWorker(options: WorkerLoad): Promise<LoadReport> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { load: options } });
  return new Promise((resolve, reject) => {
    worker.once('message', (report: LoadReport) => resolve(report));
    worker.once('error', reject);
    worker.once('exit', (code) => { if (code !== 0) reject(new Error(`load worker exited with code ${code}`)); });
  });
}

const job = (workerData as { load?: WorkerLoad } | null)?.load;
if (!isMainThread && parentPort !== null && job !== undefined) {
  const port = parentPort;
  port.postMessage(await loadLoop(job));
}
