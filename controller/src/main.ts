// The resty-ingress command: parse flags (bad ones exit 2 before anything
// starts), start the controller and its NGINX, stop both on SIGTERM/SIGINT.

import { pino } from 'pino';
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
  let controller: Controller | null = null;
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    void (controller?.stop() ?? Promise.resolve()).then(
      () => { logger.info('stopped'); process.exit(0); },
      (err: unknown) => { logger.error({ err }, 'stop failed'); process.exit(1); },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  try {
    controller = await startController(opts, logger);
    if (stopping) await controller.stop();
  } catch (err) {
    logger.fatal({ err }, 'controller failed to start');
    process.exit(1);
  }
}

await main();
