// The command-line tests' way to read a refusal: parseOptions must throw a
// CommandLineExit (exit code and message), anything else fails the test.
import assert from 'node:assert/strict';
import { CommandLineExit } from '../command-line-exit.ts';
import { parseOptions } from '../options.ts';

/** Runs parseOptions and returns the CommandLineExit it must throw. */
export function exitOf(argv: string[]): CommandLineExit {
  try {
    parseOptions(argv);
  } catch (err) {
    if (err instanceof CommandLineExit) return err;
    throw err;
  }
  return assert.fail(`parseOptions(${JSON.stringify(argv)}) did not exit`);
}
