// How the values of allow/deny lists, block lists and CORS become NGINX
// tokens (the filters `qaddr`, `qpattern`, `qorigins`). The model parsed them
// already (model/features/ip-ranges.ts, block-patterns.ts, cors.ts); each
// filter checks its value's grammar again and refuses to render anything else.

import { originRegex } from '../model/features/cors.ts';
import type { BlockPattern } from '../model/types.ts';
import { RenderError } from './nginx-values.ts';

function unsafe(what: string, value: unknown): RenderError {
  const text = JSON.stringify(value) ?? String(value);
  return new RenderError('UnsafeValue', `${what}: ${text.length > 120 ? `${text.slice(0, 117)}...` : text}`);
}

/** An IPv4 or IPv6 address or range as the model writes it (hex digits, dots, colons, one /prefix), quoted. */
export function quoteAddress(value: unknown): string {
  if (typeof value !== 'string' || !/^(?:[0-9.]{7,15}|[0-9a-f:.]{2,45})(?:\/\d{1,3})?$/u.test(value)) throw unsafe('expected an IP address or range', value);
  return `"${value}"`;
}

/**
 * A map key: `"~regex"`, `"~*regex"` or `"string"`. Printable ASCII without `"`; a backslash only where
 * NGINX keeps it as it is (not before `"`, `'`, `\`, `t`, `n`, `r`, nor last); a string is no map
 * parameter and does not start with `~` or `\`.
 */
export function quoteMapKey(value: unknown): string {
  const pattern = value as BlockPattern | null;
  const text = pattern?.value;
  if (typeof text !== 'string' || !/^[\x20-\x21\x23-\x7e]+$/u.test(text) || /\\(?:["'\\tnr]|$)/u.test(text)) throw unsafe('expected a map key', value);
  if (pattern?.kind === 'regex') return `"~${text}"`;
  if (pattern?.kind === 'regex-caseless') return `"~*${text}"`;
  if (pattern?.kind === 'exact' && !/^[~\\]/u.test(text) && !['default', 'hostnames', 'include', 'volatile'].includes(text)) return `"${text}"`;
  throw unsafe('expected a map key', value);
}

/** The anchored regex of an origin list (not `*`), each origin checked again (model/features/cors.ts), quoted. */
export function quoteOriginRegex(value: unknown): string {
  if (!Array.isArray(value) || value.length === 0
    || !value.every((origin) => typeof origin === 'string' && /^(?:[a-z]+:\/\/(?:\*\.)?[A-Za-z0-9.-]*(?::\d+)?|null)$/u.test(origin))) {
    throw unsafe('expected a list of origins', value);
  }
  return `"${originRegex(value as string[])}"`;
}
