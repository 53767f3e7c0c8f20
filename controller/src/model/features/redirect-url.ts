// Redirect targets as values: permanent-redirect, temporal-redirect and app-root
// are user strings that end up after `return <code>` in nginx.conf. ingress-nginx
// v1.15.1 checks them against a character class (URLIsValidRegex: letters,
// digits and `-._~/:,?&=`; app-root: RegexPathWithCapture) and pastes them into
// its template. Here a value is parsed into its parts (scheme, host, port, path,
// query), each with its own grammar, and render prints the parts it was given
// (redirectTargetText), never the raw annotation. A value of the character
// class that is neither an http(s) URL nor an absolute path is refused as
// unsupported: NGINX would send it as a Location no client can follow.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { RedirectTarget } from '../types.ts';

/** ingress-nginx's URLIsValidRegex (a value outside it refuses the Ingress there too). */
const URL_CHARACTERS = /^[-._~a-zA-Z0-9/:,?&=]*$/u;
const ABSOLUTE = /^(?<scheme>https?):\/\/(?<host>[-._~a-zA-Z0-9]+)(?::(?<port>\d{1,5}))?(?<path>\/[^?]*)?(?:\?(?<query>.*))?$/u;
const RELATIVE = /^(?<path>\/[^?]*)(?:\?(?<query>.*))?$/u;
/** A host: DNS labels (letters, digits, `-`, `_`), dot-separated, no empty label. */
const HOST = /^[a-zA-Z0-9_](?:[-a-zA-Z0-9_]*[a-zA-Z0-9_])?(?:\.[a-zA-Z0-9_](?:[-a-zA-Z0-9_]*[a-zA-Z0-9_])?)*\.?$/u;
const MAX_LENGTH = 2048;

/** permanent-redirect / temporal-redirect: an http(s) URL or an absolute path (+ query). */
export function parseRedirectTarget(raw: string): Checked<RedirectTarget> {
  if (raw.length > MAX_LENGTH) return refuse(`longer than ${MAX_LENGTH} characters`);
  if (!URL_CHARACTERS.test(raw)) return refuse('expected a URL of letters, digits and -._~/:,?&=');
  const absolute = ABSOLUTE.exec(raw)?.groups;
  if (absolute !== undefined) {
    const host = absolute['host'] ?? '';
    if (!HOST.test(host)) return unsupported('the URL\'s host is not a DNS name');
    const port = absolute['port'] === undefined ? null : Number(absolute['port']);
    if (port !== null && (port < 1 || port > 65535)) return unsupported('the URL\'s port is not 1..65535');
    return accept(Object.freeze({
      scheme: absolute['scheme'] === 'https' ? 'https' : 'http', host, port,
      path: absolute['path'] ?? '', query: absolute['query'] ?? null,
    }));
  }
  const relative = RELATIVE.exec(raw)?.groups;
  if (relative !== undefined && !raw.startsWith('//')) {
    return accept(Object.freeze({ scheme: null, host: null, port: null, path: relative['path'] ?? '/', query: relative['query'] ?? null }));
  }
  return unsupported('expected an http:// or https:// URL or a path starting with /');
}

/** The target as NGINX sends it in Location: exactly the parts that were parsed. */
export function redirectTargetText(target: RedirectTarget): string {
  const origin = target.scheme === null || target.host === null
    ? ''
    : `${target.scheme}://${target.host}${target.port === null ? '' : `:${target.port}`}`;
  return `${origin}${target.path}${target.query === null ? '' : `?${target.query}`}`;
}

/** ingress-nginx's RegexPathWithCapture without `$` (a variable: not supported here). */
const APP_ROOT = /^\/[-._~a-zA-Z0-9/:]*$/u;

/**
 * app-root: an absolute path. ingress-nginx ignores (with a log line) a value that is not a
 * request URI or is an absolute URL; its grammar also admits `$`, which NGINX would read as a
 * variable: refused as unsupported here.
 */
export function parseAppRoot(raw: string): Checked<string> {
  if (raw.length > MAX_LENGTH) return refuse(`longer than ${MAX_LENGTH} characters`);
  if (/^\/?[-._~a-zA-Z0-9/:$]*$/u.test(raw) && raw.includes('$') && raw.startsWith('/')) {
    return unsupported('NGINX variables ($) in app-root are not supported');
  }
  if (!APP_ROOT.test(raw)) return refuse('expected a path starting with / (letters, digits and -._~/:)');
  return accept(raw);
}
