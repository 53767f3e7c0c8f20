// The resty-ingress command: parse flags (bad ones exit 2 before anything
// starts), start the controller and its NGINX, stop both on SIGTERM/SIGINT.
// SIGTERM first fails the health checks, waits --shutdown-grace-period so
// load balancers stop sending traffic, then NGINX quits gracefully.

import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { CommandLineExit, parseOptions, printCommandLineExit, type ControllerOptions } from './cli/index.ts';
import { startController, type Controller } from './controller.ts';

function parseOrExit(): ControllerOptions | null {
  try {
    return parseOptions(process.argv.slice(2));
  } catch (err) {
    if (err instanceof CommandLineExit) {
      process.exitCode = printCommandLineExit(err, process);
      return null;
    }
    throw err;
  }
}

async function main(): Promise<void> {
  const opts = parseOrExit();
  if (!opts) return;
  const logger = pino({ level: opts.logLevel });
  // ingress-nginx flags taken without a flag of ours (cli/ingress-nginx-args.ts): one line each.
  for (const notice of opts.flagNotices) logger[notice.level]({ flag: notice.flag, value: notice.value }, notice.message);
  // ingress-nginx's const labels; the Pod's name and namespace come from the downward API.
  const registry = new Registry();
  registry.setDefaultLabels({
    controller_namespace: process.env.POD_NAMESPACE ?? '',
    controller_class: opts.controllerClass,
    controller_pod: process.env.POD_NAME ?? '',
  });
  let controller: Controller | null = null;
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, gracePeriodSeconds: opts.shutdownGracePeriod }, 'stopping');
    controller?.beginShutdown();
    const graceful = async (): Promise<void> => {
      if (controller && opts.shutdownGracePeriod > 0) await sleep(opts.shutdownGracePeriod * 1000);
      await controller?.stop();
    };
    void graceful().then(
      () => { logger.info('stopped'); process.exit(0); },
      (err: unknown) => { logger.error({ err }, 'stop failed'); process.exit(1); },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  try {
    controller = await startController(opts, logger, registry);
    if (stopping) await controller.stop();
  } catch (err) {
    logger.fatal({ err }, 'controller failed to start');
    process.exit(1);
  }
}

await main();
