// `npm start`: the playground. Brings up the local cluster (API server +
// simulator), the real controller with its NGINX, applies the example app,
// prints how to reach and change it, and runs until Ctrl-C or SIGTERM, then
// stops everything it started. Scripts read the `KEY=value` lines and wait
// for `READY` (see e2e/playground.test.ts). Controller activity goes to stderr.
//   node e2e/playground.ts [--http-port N]     (default 8080 when free, else any free port)
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import type { Cluster, ControllerHandle, LogEntry } from './harness/index.ts';

// Ctrl-C must work from the first moment: the handlers go in before the
// harness (client-node and friends) is loaded, which takes seconds on a busy machine.
let onStopSignal = (signal: string): void => { process.stderr.write(`${signal}: nothing started yet\n`); process.exit(0); };
process.once('SIGINT', () => onStopSignal('SIGINT'));
process.once('SIGTERM', () => onStopSignal('SIGTERM'));
const { freePort, isPortFree, REPO_ROOT, startCluster, startController, waitForResponse } = await import('./harness/index.ts');

const DEMO_HOST = 'demo.localtest';
const FRIENDLY_HTTP_PORT = 8080;
const FRIENDLY_HTTPS_PORT = 8443;
const EXAMPLES = join(REPO_ROOT, 'e2e/examples');

async function chooseHttpPort(requested: string | undefined): Promise<number> {
  if (requested !== undefined) {
    const port = Number(requested);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`--http-port must be 1..65535, got ${JSON.stringify(requested)}`);
    return port;
  }
  return (await isPortFree(FRIENDLY_HTTP_PORT)) ? FRIENDLY_HTTP_PORT : freePort();
}

/** One short stderr line per interesting controller log line: syncs, reloads, warnings. */
function describeLog(entry: LogEntry): string | null {
  if (entry.msg === 'sync') return `sync: ${String(entry.result)} (${String(entry.why)})`;
  if (entry.level >= 40 || entry.msg === 'NGINX reloaded') {
    const about = typeof entry.ingress === 'string' ? ` [${entry.ingress}]` : '';
    return `${entry.msg}${about}`;
  }
  return null;
}

/** What the user reads: machine-readable KEY=value lines first, then what to try. */
function guide(cluster: Cluster, controller: ControllerHandle): string {
  const second = relative(process.cwd(), join(EXAMPLES, 'second-ingress.yaml')) || 'e2e/examples/second-ingress.yaml';
  const lines = [`KUBECONFIG=${cluster.kubeconfig}`, `HTTP=${controller.http}`];
  // Printed only when something answers there (issues "TLS" and "operating it" add them).
  if (controller.https) lines.push(`HTTPS=${controller.https}`);
  if (controller.metricsUrl) lines.push(`METRICS=${controller.metricsUrl}`);
  return [
    ...lines,
    '',
    'Try, in another shell:',
    `  curl -H 'Host: ${DEMO_HOST}' ${controller.http}/`,
    ...(controller.https ? [`  curl -k --resolve ${DEMO_HOST}:${new URL(controller.https).port}:127.0.0.1 https://${DEMO_HOST}:${new URL(controller.https).port}/   # the default certificate`] : []),
    `  export KUBECONFIG=${cluster.kubeconfig}`,
    '  kubectl get deployments,services,endpointslices,ingresses',
    '  kubectl scale deployment/demo --replicas=4           # endpoints change, no NGINX reload',
    '  kubectl rollout restart deployment/demo              # new pods, no reload, no failed request',
    `  kubectl apply -f ${second}   # a new host: one reload`,
    `  curl -H 'Host: second.localtest' ${controller.http}/app/hello`,
    'Ctrl-C stops everything.',
  ].join('\n');
}

interface Running {
  readonly cluster: Cluster;
  readonly controller: ControllerHandle;
}

/** Starts the cluster, then the controller; `started` collects what to stop, even when a later step fails. */
async function bringUp(httpPort: number, started: Array<{ stop(): Promise<void> }>): Promise<Running> {
  const cluster = await startCluster();
  started.push(cluster);
  const controller = await startController(cluster, {
    ports: { http: httpPort, ...((await isPortFree(FRIENDLY_HTTPS_PORT)) && httpPort !== FRIENDLY_HTTPS_PORT ? { https: FRIENDLY_HTTPS_PORT } : {}) },
    onLog: (entry) => { const line = describeLog(entry); if (line) process.stderr.write(`controller: ${line}\n`); },
  });
  started.push(controller);
  await cluster.apply(await readFile(join(EXAMPLES, 'demo.yaml'), 'utf8'));
  return { cluster, controller };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'http-port': { type: 'string' } } });
  const httpPort = await chooseHttpPort(values['http-port']);
  const started: Array<{ stop(): Promise<void> }> = [];
  process.stderr.write('starting the local cluster and the controller…\n');
  const starting = bringUp(httpPort, started);
  let stopping: Promise<void> | null = null;
  const stopAll = (): Promise<void> => {
    // A signal during start-up waits for the step in flight, so nothing it starts is left behind.
    stopping ??= starting.then(() => undefined, () => undefined).then(async () => {
      for (const thing of started.reverse()) await thing.stop().catch((err: unknown) => process.stderr.write(`stop: ${(err as Error).message}\n`));
    });
    return stopping;
  };
  onStopSignal = (signal) => {
    process.stderr.write(`\n${signal}: stopping the controller, NGINX and the cluster…\n`);
    void stopAll().then(() => process.exit(0));
  };

  try {
    const { cluster, controller } = await starting;
    if (stopping) return;
    process.stdout.write(`${guide(cluster, controller)}\n`);
    await waitForResponse(controller.http, { host: DEMO_HOST }, (res) => res.status === 200, 30_000);
    // READY once the old workers are gone, so every connection from here on reaches the demo.
    await controller.waitForReload(0, 30_000);
    if (!stopping) process.stdout.write('READY\n');
  } catch (err) {
    if (stopping) return;
    process.stderr.write(`playground: ${(err as Error).message}\n`);
    await stopAll();
    process.exit(1);
  }
}

await main();
