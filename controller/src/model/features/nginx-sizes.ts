// NGINX sizes and times as the proxy tuning keys take them. ingress-nginx
// validates a size with ^(?i)\d+[bkmg]?$ after removing its spaces and pastes
// the trimmed value into nginx.conf; NGINX's size slots (ngx_parse_size, every
// key here, proxy_max_temp_file_size too) know only k and m. A value
// ingress-nginx takes that NGINX would refuse (a `b` unit, a space inside, a
// `g` on a buffer) or that this controller bounds (a buffer of gigabytes is
// allocated per request: one tenant's Ingress would starve the others) is
// unsupported; anything else is invalid.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';

const SCALE: Readonly<Record<string, number>> = Object.freeze({ '': 1, k: 1024, m: 1024 * 1024, g: 1024 * 1024 * 1024 });

/** The bytes of a size token this module accepted (digits and an optional k, m or g). */
export function sizeBytes(token: string): number {
  const match = /^(\d+)([kKmMgG]?)$/u.exec(token);
  if (match === null) throw new RangeError(`not a size token: ${token}`);
  return Number(match[1]) * (SCALE[match[2]!.toLowerCase()] ?? 1);
}

/** ingress-nginx's SizeRegex over the value without its spaces (parser.ValidateRegex(SizeRegex, true)). */
function ingressNginxTakes(raw: string): boolean {
  return /^\d+[bBkKmMgG]?$/u.test(raw.replaceAll(' ', '')) && !/[\r\n]/u.test(raw);
}

/** `value` trimmed of spaces, as ingress-nginx prints it. */
function trimmed(raw: string): string {
  return raw.replace(/^ +| +$/gu, '');
}

/**
 * A size_t size (proxy_buffer_size, client_body_buffer_size, …): digits and an optional k or m,
 * from `min` to `max` bytes (both as users write them, for the reasons).
 */
export function parseBufferSize(raw: string, min: number, max: number, maxText: string): Checked<string> {
  const value = trimmed(raw);
  if (/^\d{1,9}[kKmM]?$/u.test(value)) {
    const bytes = sizeBytes(value);
    if (bytes < min) return unsupported(`NGINX needs at least ${min} bytes here`);
    if (bytes > max) return unsupported(`at most ${maxText}: a buffer is allocated per request`);
    return accept(value);
  }
  if (ingressNginxTakes(raw)) return unsupported(`expected digits and an optional k or m (NGINX takes no other unit and no space inside), at most ${maxText}`);
  return refuse('expected an NGINX size such as 4k, 16k or 1m');
}

/** `on` or `off`, trimmed (ingress-nginx's ValidateOptions(…, true, true)); exact spelling. */
export function parseOnOff(raw: string): Checked<'on' | 'off'> {
  const value = raw.trim();
  if (value === 'on' || value === 'off') return accept(value);
  return refuse('expected on or off');
}

const TIME_UNITS_MS: Readonly<Record<string, number>> = Object.freeze({ ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 });

/**
 * An NGINX time (ngx_parse_time) of one unit, ms, s, m, h or d (`1h`, `90s`), or bare seconds,
 * from 1 ms to `maxMs`. Returns the token as written. (NGINX also takes `1h30m`, its units
 * in decreasing order: refused here, one unit says the same.)
 */
export function parseNginxTime(raw: string, maxMs: number): Checked<string> {
  const value = raw.trim();
  const match = /^(\d{1,9})(ms|s|m|h|d)?$/u.exec(value);
  if (match === null) return refuse('expected an NGINX time of one unit, such as 60s, 30m or 1h');
  const total = Number(match[1]) * (TIME_UNITS_MS[match[2] ?? 's'] ?? 1000);
  if (total < 1 || total > maxMs) return unsupported(`expected from 1ms to ${maxMs / 86_400_000}d`);
  return accept(value);
}
