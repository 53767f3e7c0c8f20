// NGINX writes its error log to stderr (the master and, inherited, every
// worker). These lines are forwarded to the controller's logger at a level
// that matches NGINX's own, so `[emerg]` from a failed reload is an error in
// the controller's log too, and so the manager can watch for them.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';

/** The logger levels NGINX lines map onto. */
export type ForwardLevel = 'debug' | 'info' | 'warn' | 'error';

/** One parsed line of NGINX output. */
export interface NginxLogLine {
  readonly level: ForwardLevel;
  /** NGINX's own level name (`emerg`, `notice`, ...), or null for lines without one. */
  readonly nginxLevel: string | null;
  /** The process that wrote the line, when NGINX says. */
  readonly pid: number | null;
  /** The text after NGINX's timestamp and pid. */
  readonly message: string;
}

const LEVELS: Readonly<Record<string, ForwardLevel>> = {
  emerg: 'error',
  alert: 'error',
  crit: 'error',
  error: 'error',
  warn: 'warn',
  notice: 'info',
  info: 'info',
  debug: 'debug',
};

const LOGGED = /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d \[(\w+)\] (\d+)#\d+: (.*)$/;
const EARLY = /^nginx: \[(\w+)\] (.*)$/;

/** Parses `2024/01/31 12:00:00 [warn] 12#12: message` (and NGINX's other shapes) into level, pid and text. */
export function parseNginxLogLine(line: string): NginxLogLine {
  const logged = LOGGED.exec(line);
  if (logged) {
    const level = LEVELS[logged[1]] ?? 'info';
    return { level, nginxLevel: logged[1], pid: Number(logged[2]), message: logged[3] };
  }
  const early = EARLY.exec(line);
  if (early) return { level: LEVELS[early[1]] ?? 'info', nginxLevel: early[1], pid: null, message: early[2] };
  // Lines NGINX prints without a level ("nginx: configuration file ... test failed"), or Lua prints.
  return { level: 'info', nginxLevel: null, pid: null, message: line };
}

/**
 * Reads `stream` line by line, logs each line at its level (with `nginxLevel`
 * and `pid` fields) and hands it to `onLine`. Returns when the stream ends.
 */
export async function forwardNginxLog(
  stream: Readable,
  logger: Logger,
  onLine?: (line: NginxLogLine) => void,
): Promise<void> {
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  for await (const raw of lines) {
    if (raw.trim() === '') continue;
    const line = parseNginxLogLine(raw);
    logger[line.level]({ nginxLevel: line.nginxLevel, pid: line.pid }, line.message);
    onLine?.(line);
  }
}
