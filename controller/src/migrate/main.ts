// Entry of `resty-ingress migrate` (bin/resty-ingress.js imports it when the
// first argument is `migrate`): runs the command with the arguments after it
// and sets the exit code. stdout is flushed by Node before it exits.

import { runMigrate } from './run.ts';

process.exitCode = await runMigrate(process.argv.slice(3), process);
