// Typed failures of the NGINX process manager. Each carries a stable `code`
// (for metrics labels and Events) and the lines NGINX itself printed, so a
// caller can show the operator NGINX's own words ("unknown directive ...").

/** Stable codes, one per way running NGINX can fail. */
export type NginxErrorCode =
  | 'NGINX_CONFIG_INVALID'
  | 'NGINX_RELOAD_FAILED'
  | 'NGINX_START_FAILED'
  | 'NGINX_NOT_RUNNING';

/** NGINX's error-log prefix: `2024/01/31 12:00:00 [emerg] 123#123: `. */
const LOG_PREFIX = /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d \[(\w+)\] \d+#\d+: (?:\*\d+ )?/;
const PROBLEM_LEVELS = new Set(['emerg', 'alert', 'crit', 'error']);

/**
 * The problem lines of NGINX output (`[emerg]`, `[alert]`, `[crit]`, `[error]`),
 * without timestamp and pid, as `[level] message`. Also keeps `nginx: [emerg] ...`
 * lines, the form NGINX uses before its error log is open.
 */
export function nginxProblems(output: string): string[] {
  const problems: string[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    const logged = LOG_PREFIX.exec(line);
    if (logged && PROBLEM_LEVELS.has(logged[1])) {
      problems.push(`[${logged[1]}] ${line.slice(logged[0].length)}`);
      continue;
    }
    const early = /^nginx: \[(\w+)\] (.*)$/.exec(line);
    if (early && PROBLEM_LEVELS.has(early[1])) problems.push(`[${early[1]}] ${early[2]}`);
  }
  return problems;
}

/** ` in <file>:<line>` at the end of a problem line: where NGINX's parser stopped. */
const PLACE = / in (\S+):(\d+)$/;

/**
 * The line of `file` that NGINX's first problem names (`... in <file>:<line>`),
 * or null when it names none or another file (e.g. an included one).
 */
export function problemLine(output: string, file: string): number | null {
  const first = nginxProblems(output)[0];
  const place = first === undefined ? null : PLACE.exec(first);
  return place !== null && place[1] === file ? Number(place[2]) : null;
}

/**
 * NGINX's problem lines for a user to read (an Event): without the file
 * paths and line numbers of the controller's own files, which mean nothing
 * outside the pod; `; `-joined.
 */
export function problemText(output: string): string {
  return nginxProblems(output).map((problem) => problem.replace(PLACE, '')).join('; ');
}

/** Base class: `code` says what failed, `nginxOutput` what NGINX printed about it. */
export class NginxError extends Error {
  readonly code: NginxErrorCode;
  readonly nginxOutput: string;

  constructor(code: NginxErrorCode, message: string, nginxOutput = '', options?: ErrorOptions) {
    super(message, options);
    this.name = 'NginxError';
    this.code = code;
    this.nginxOutput = nginxOutput;
  }
}

/** `nginx -t` rejected a configuration; the live configuration was not touched. */
export class NginxConfigError extends NginxError {
  /**
   * The line of the tested file NGINX named, or null (another file, none, or
   * `nginx -t` did not finish: then NGINX refused nothing, see `refused`).
   */
  readonly line: number | null;
  /** NGINX itself refused the file (it printed why); false when `nginx -t` timed out or was cancelled. */
  readonly refused: boolean;

  constructor(message: string, nginxOutput: string, place: { line: number | null; refused: boolean } = { line: null, refused: true }) {
    super('NGINX_CONFIG_INVALID', message, nginxOutput);
    this.name = 'NginxConfigError';
    this.line = place.line;
    this.refused = place.refused;
  }
}

/** A validated configuration was signalled but NGINX did not confirm it in time; the old one keeps serving. */
export class NginxReloadError extends NginxError {
  constructor(message: string, nginxOutput = '', options?: ErrorOptions) {
    super('NGINX_RELOAD_FAILED', message, nginxOutput, options);
    this.name = 'NginxReloadError';
  }
}

/** The master did not come up serving the expected version (exited, or timed out). */
export class NginxStartError extends NginxError {
  constructor(message: string, nginxOutput = '', options?: ErrorOptions) {
    super('NGINX_START_FAILED', message, nginxOutput, options);
    this.name = 'NginxStartError';
  }
}

/** An operation needs a running master and there is none (never started, restarting, or stopped). */
export class NginxNotRunningError extends NginxError {
  constructor(message: string) {
    super('NGINX_NOT_RUNNING', message);
    this.name = 'NginxNotRunningError';
  }
}
