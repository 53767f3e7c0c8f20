// cli: the controller's command line.
//
// Owns: the flag set (ingress-nginx names and defaults where the concept is the
// same), validation of every value before anything starts, --help/--version.
// ingress-nginx's flags it has none for are accepted, warned about or refused
// as model/features/flag-statuses.ts says (ingress-nginx-args.ts).
// May import: commander, node:net, model/types.ts (BuildOptions), package.json,
// model/features/ingress-nginx-flags.ts and flag-statuses.ts (data).
// parseOptions never prints or exits: it throws CommandLineExit, and main does
//   try { options = parseOptions(process.argv.slice(2)); }
//   catch (err) { if (err instanceof CommandLineExit) { process.exitCode = printCommandLineExit(err, process); return; } throw err; }

export { CommandLineExit, printCommandLineExit } from './command-line-exit.ts';
export type { CommandLineExitKind, ExitStreams } from './command-line-exit.ts';
export { hasFlag, helpText, parseOptions } from './options.ts';
export type { ControllerOptions } from './options.ts';
export type { FlagNotice } from './ingress-nginx-args.ts';
export { LOG_LEVELS } from './validators.ts';
export type { LogLevel } from './validators.ts';
