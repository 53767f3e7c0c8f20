// How values become NGINX tokens. Every value the templates print passes
// through one of these functions (as the nunjucks filters `q`, `qlit`, `num`).
// The model's validators already refused anything odd; this is the second
// wall: if a string that could end a directive, open a block or smuggle a
// line ever reaches render, rendering stops with an error instead of emitting
// a config that means something else (five ingress-nginx CVEs came from
// strings pasted into nginx.conf).

/** Stable codes for everything render refuses. */
export type RenderErrorCode =
  | 'UnsafeValue'
  | 'InvalidOptions'
  | 'DuplicateServer'
  | 'DuplicateLocation'
  | 'UnknownBackend'
  | 'TemplateFailed';

/** A refusal to render: the model or options broke the contract. */
export class RenderError extends Error {
  readonly code: RenderErrorCode;

  constructor(code: RenderErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RenderError';
    this.code = code;
  }
}

/**
 * Characters no NGINX string of ours may ever contain: ASCII controls
 * (newline, NUL, tab, …), the quote and backslash (they would end or escape
 * the quoted string) and `;{}` (they end a directive / open a block even
 * where a quote was forgotten).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN_IN_STRING = /[\u0000-\u001f\u007f"\\;{}]/u;

/** Shows a rejected value in an error message without its control characters. */
function describeValue(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** A non-empty string with none of FORBIDDEN_IN_STRING, else a RenderError. */
function assertSafeString(value: unknown, what: string): string {
  if (typeof value !== 'string') {
    throw new RenderError('UnsafeValue', `${what}: expected a string, got ${describeValue(value)}`);
  }
  if (value.length === 0) {
    throw new RenderError('UnsafeValue', `${what}: empty string`);
  }
  const bad = FORBIDDEN_IN_STRING.exec(value);
  if (bad !== null) {
    throw new RenderError(
      'UnsafeValue',
      `${what}: character ${JSON.stringify(bad[0])} is never allowed in nginx.conf: ${describeValue(value)}`,
    );
  }
  return value;
}

/** `value` as an NGINX double-quoted string; throws RenderError on unsafe characters. */
export function quoteNginxString(value: unknown): string {
  return `"${assertSafeString(value, 'quoted value')}"`;
}

/**
 * Like quoteNginxString, and also refuses `$`: for values NGINX would
 * interpolate as variables (e.g. `set $proxy_upstream_name "..."`) and that
 * are names, never expressions.
 */
export function quoteNginxLiteral(value: unknown): string {
  const text = assertSafeString(value, 'literal value');
  if (text.includes('$')) {
    throw new RenderError('UnsafeValue', `literal value: "$" would be read as a variable: ${describeValue(text)}`);
  }
  return `"${text}"`;
}

/** A non-negative safe integer as decimal text; throws RenderError otherwise. */
export function formatNginxInteger(value: unknown): string {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new RenderError('UnsafeValue', `expected a non-negative integer, got ${describeValue(value)}`);
  }
  return String(value);
}

/**
 * The characters a log format may hold inside single quotes: printable ASCII
 * except `'` (ends the string), `\\` (escapes) and `;`. `"`, `{`, `}` are
 * plain text inside quotes and a JSON format needs them; `$` is NGINX's
 * variable syntax, which is the point of a log format (model/log-format.ts
 * allow-lists the names).
 */
const LOG_FORMAT_TEXT = /^[\x20-\x26\x28-\x3a\x3c-\x5b\x5d-\x7e]+$/u;

/** `value` as a single-quoted NGINX string for `log_format`; throws RenderError outside LOG_FORMAT_TEXT. */
export function quoteLogFormat(value: unknown): string {
  if (typeof value !== 'string' || !LOG_FORMAT_TEXT.test(value)) {
    throw new RenderError('UnsafeValue', `log format: only printable ASCII without ' \\ ; is allowed: ${describeValue(value)}`);
  }
  return `'${value}'`;
}

/**
 * A Lua search path (`lua_package_path`) quoted: `;` is its separator, so it
 * is allowed here and only here; each entry must otherwise be a safe string.
 * Empty entries are allowed (`;;` means "append the default path").
 */
export function quoteLuaSearchPath(value: unknown): string {
  if (typeof value !== 'string' || value.replaceAll(';', '') === '') {
    throw new RenderError('UnsafeValue', `Lua search path: expected a non-empty path list, got ${describeValue(value)}`);
  }
  for (const entry of value.split(';')) {
    if (entry !== '') assertSafeString(entry, 'Lua search path entry');
  }
  return `"${value}"`;
}
