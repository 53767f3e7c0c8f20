// Collects a child process's pino JSON log lines (stdout) and plain stderr
// lines, and lets a test wait for a line that matches. Lines that are not
// JSON are kept as entries with only `msg`, so nothing the process says is lost.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** One log line: pino's fields (msg, level, component, …) and the raw text. */
export interface LogEntry {
  readonly msg: string;
  /** pino's numeric level (30 info, 40 warn, 50 error); 0 for non-JSON lines. */
  readonly level: number;
  readonly raw: string;
  readonly [field: string]: unknown;
}

/** A regex tested against the raw line, or a predicate on the parsed entry. */
export type LogMatcher = RegExp | ((entry: LogEntry) => boolean);

export interface LogCollector {
  entries(): readonly LogEntry[];
  /** Resolves with the first entry at index >= `from` that matches; rejects after `timeoutMs` or when the stream ends. */
  waitFor(match: LogMatcher, timeoutMs: number, from?: number): Promise<LogEntry>;
  /** The last `count` raw lines, for error messages. */
  tail(count?: number): string;
  /** Resolves when every attached stream has ended. */
  readonly ended: Promise<void>;
}

export function parseLogLine(raw: string): LogEntry {
  try {
    const parsed = JSON.parse(raw) as Record<string, unknown>;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return { ...parsed, msg: typeof parsed.msg === 'string' ? parsed.msg : '', level: typeof parsed.level === 'number' ? parsed.level : 0, raw };
    }
  } catch {
    // not JSON: kept as text below
  }
  return { msg: raw, level: 0, raw };
}

export function matches(match: LogMatcher, entry: LogEntry): boolean {
  return match instanceof RegExp ? match.test(entry.raw) : match(entry);
}

/** `onEntry` sees every line as it arrives. */
export function collectLogs(streams: readonly Readable[], onEntry?: (entry: LogEntry) => void): LogCollector {
  const entries: LogEntry[] = [];
  const waiters = new Set<{ match: LogMatcher; from: number; resolve: (e: LogEntry) => void }>();
  const ended = Promise.all(streams.map((stream) => new Promise<void>((resolve) => {
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    lines.on('line', (raw) => {
      const entry = parseLogLine(raw);
      entries.push(entry);
      onEntry?.(entry);
      for (const waiter of waiters) if (matches(waiter.match, entry)) waiter.resolve(entry);
    });
    lines.once('close', () => resolve());
  }))).then(() => undefined);

  const tail = (count = 30): string => entries.slice(-count).map((e) => e.raw).join('\n');
  return {
    entries: () => entries,
    tail,
    ended,
    waitFor(match, timeoutMs, from = 0): Promise<LogEntry> {
      const seen = entries.slice(from).find((entry) => matches(match, entry));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = {
          match,
          from,
          resolve: (entry: LogEntry): void => { done(); resolve(entry); },
        };
        const fail = (why: string): void => { done(); reject(new Error(`${why} waiting for log ${String(match)}; last lines:\n${tail()}`)); };
        const timer = setTimeout(() => fail(`timed out after ${timeoutMs} ms`), timeoutMs);
        const done = (): void => { clearTimeout(timer); waiters.delete(waiter); };
        waiters.add(waiter);
        void ended.then(() => { if (waiters.has(waiter)) fail('process output ended'); });
      });
    },
  };
}

/**
 * A controller log line about a request the API server refused (RBAC): client-node's error text
 * (`HTTP-Code: 403`), a status field of 403, or the Status body's `Forbidden`. Not any "403" in
 * the line: a sync that took 403 ms is not a denial.
 */
export function isForbidden(entry: LogEntry): boolean {
  const text = JSON.stringify(entry);
  return /forbidden|HTTP-Code: 403\b/i.test(text) || /"(?:code|statusCode|status)":403\b/.test(text);
}
