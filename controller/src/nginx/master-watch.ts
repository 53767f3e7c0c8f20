// While a start or a reload waits for its config version, the master's own
// error lines say why the version may never come. They are collected for the
// error the caller gets, and an `[emerg]` during a reload, which ends the
// master's reconfiguration (it keeps the old one), ends the wait early
// instead of letting it run into the timeout. The one exception is bind():
// NGINX logs it at emerg and retries 5 times before "still could not bind()".
import type { NginxLogLine } from './nginx-log.ts';

export interface MasterWatch {
  /** Feed every NGINX line here; only the master's problem lines are kept. */
  onLine(line: NginxLogLine): void;
  /** The master's problem lines so far, `[level] message`, duplicates dropped. */
  problems(): string[];
  /** Aborted shortly after a fatal `[emerg]` from the master. */
  readonly refused: AbortSignal;
  /** Stops the pending abort timer. */
  close(): void;
}

/** Lines the master logs at emerg and then retries. */
const RETRIED = /^bind\(\) to /;

/**
 * masterPid: the master whose lines count (workers log request errors too).
 * graceMs: how long after a fatal emerg the wait still polls, in case the
 * version arrives anyway.
 */
export function watchMaster(masterPid: number, graceMs = 300): MasterWatch {
  const seen = new Set<string>();
  const refused = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  return {
    onLine: (line) => {
      if (closed || line.level !== 'error') return;
      // Lines without a pid come from NGINX before its log is open: the master's.
      if (line.pid !== null && line.pid !== masterPid) return;
      seen.add(`[${line.nginxLevel}] ${line.message}`);
      if (line.nginxLevel === 'emerg' && !RETRIED.test(line.message) && !timer) {
        timer = setTimeout(() => refused.abort(), graceMs);
      }
    },
    problems: () => [...seen],
    refused: refused.signal,
    close: () => {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}
