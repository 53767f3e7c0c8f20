// How parsing the command line ends without options: help or version asked
// for (exit 0, text to stdout), or a usage error (exit 2, one line to stderr).
// parseOptions throws it instead of exiting so tests can inspect it; main
// prints it and exits.
import { CommanderError, type Command } from 'commander';

/** Why parsing stopped: `usage` is an error, the others are requests. */
export type CommandLineExitKind = 'help' | 'version' | 'usage';

/** Thrown by parseOptions when the process should print something and exit. */
export class CommandLineExit extends Error {
  readonly kind: CommandLineExitKind;
  /** 0 for help/version; 2 for a usage error (the convention of getopt-style tools and ingress-nginx's pflag). */
  readonly exitCode: 0 | 2;
  /** What to print, ending in a newline: help/version text, or `error: …` for usage errors. */
  readonly output: string;

  constructor(kind: CommandLineExitKind, output: string) {
    const text = output.endsWith('\n') ? output : `${output}\n`;
    super(kind === 'usage' ? text.trim() : `${kind} requested`);
    this.name = 'CommandLineExit';
    this.kind = kind;
    this.exitCode = kind === 'usage' ? 2 : 0;
    this.output = text;
  }

  /** Builds a usage error from a message, forced onto one line. */
  static usage(message: string): CommandLineExit {
    const oneLine = message.replace(/\s*\n\s*/g, ' ').trim();
    return new CommandLineExit('usage', oneLine.startsWith('error:') ? oneLine : `error: ${oneLine}`);
  }
}

/**
 * Runs `command` (built with exitOverride() and its stdout written into
 * `output.out`) on the user's arguments: --help/--version and commander's own
 * errors become a CommandLineExit.
 */
export function parseCommand(command: Command, argv: readonly string[], output: { readonly out: string }): void {
  try {
    command.parse([...argv], { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    if (err.code === 'commander.helpDisplayed') throw new CommandLineExit('help', output.out);
    if (err.code === 'commander.version') throw new CommandLineExit('version', output.out);
    throw CommandLineExit.usage(err.message);
  }
}

/** Where a CommandLineExit is printed. */
export interface ExitStreams {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

/**
 * Prints the exit's output to the right stream and returns the exit code;
 * main does `process.exitCode = printCommandLineExit(err, process)`.
 */
export function printCommandLineExit(exit: CommandLineExit, streams: ExitStreams): number {
  const stream = exit.kind === 'usage' ? streams.stderr : streams.stdout;
  stream.write(exit.output);
  return exit.exitCode;
}
